"""The interestingness test of a reduction: python -m amdpcode.clfuzz.check SPEC.json BODY.cl
exits 0 when the kernel (the spec's fixed head + BODY) still shows the failure and shows no
sign of undefined behaviour (see reduce.py)."""
import json
import subprocess
import sys

from . import core, gen

# Warnings that flag undefined or unspecified behaviour; a candidate with any of them is
# rejected, so cvise cannot trade the failure for UB.
UB_ERRORS = ["uninitialized", "sometimes-uninitialized", "conditional-uninitialized", "shift-count-overflow",
             "shift-count-negative", "shift-negative-value", "division-by-zero", "integer-overflow",
             "array-bounds", "return-type", "implicit-function-declaration", "incompatible-pointer-types",
             "int-conversion", "unsequenced", "implicit-int", "null-dereference", "unused-value"]


# Lines of the generated kernel a reduction must keep: clang does not warn about reading an
# array element nobody wrote, so the private array's initialization is checked by text.
REQUIRED = ["arr[i] = in[(gid * 8u + i) & 255u] ^ i;"]


def interesting(spec, source):
  for line in REQUIRED:
    if "arr[" in source and line not in source: return False, "the private array is no longer initialized"
  args = core.clang_args(spec["target"], spec["opt"]) + ["-fsyntax-only"] + [f"-Werror={w}" for w in UB_ERRORS]
  p = subprocess.run(args + ["-"], input=source, capture_output=True, text=True)
  if p.returncode: return False, "clang rejects it: " + p.stderr[-300:]
  case = gen.Case(seed=spec["seed"], source=source, block=spec["block"], groups=spec["groups"],
                  knobs=gen.Knobs(**spec["knobs"]), input_words=gen.generate(spec["seed"], gen.Knobs(**spec["knobs"])).input_words)
  try:
    ref = core.run_reference(case)
    pocl_self = core.compare(ref, core.run_reference(case, options="-cl-opt-disable"))
  except Exception as e:
    return False, f"PoCL: {str(e)[:200]}"
  if spec["mode"] == "reference":
    # Keep PoCL's disagreement with itself (and amdpcode's agreement with unoptimized PoCL
    # is not required: the construct is what is wanted).
    return bool(pocl_self), "PoCL differs from itself" if pocl_self else "PoCL agrees with itself"
  if pocl_self:
    return False, "PoCL differs from itself without optimization"
  try:
    co = core.compile_kernel(source, spec["target"], spec["opt"])
    got, other = core.run_engines(case, co, ("jit", "interp"))
  except Exception as e:
    return False, f"amdpcode: {str(e)[:200]}"
  diff = core.compare(ref, got)
  if spec["mode"] == "engines":
    return bool(core.compare(got, other)), "engines"
  if not {x[0] for x in diff} & set(spec["buffers"]): return False, "the failure is gone"
  if core.compare(got, other): return False, "the engines now disagree"
  if spec.get("witness"):
    t, o = spec["witness"]
    try:
      if core.compare(ref, core.run_amdpcode(case, core.compile_kernel(source, t, o), "jit")):
        return False, "the witness configuration fails too"
    except Exception as e:
      return False, f"witness: {str(e)[:200]}"
  return True, "interesting"


def main(argv):
  with open(argv[0]) as f: spec = json.load(f)
  with open(spec["head"]) as f: head = f.read()
  with open(argv[1]) as f: body = f.read()
  ok, why = interesting(spec, head + body)
  print(why, file=sys.stderr)
  return 0 if ok else 1


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
