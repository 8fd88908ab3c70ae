"""Explained failures: each entry names a class, says why (docs/compiler-bugs.md has the
reduced reproducers), and matches a failing configuration by what it shows.

An entry's `match(case, result, evidence)` must be specific: the campaign's promise is that
every failure it counts as explained is one of these, and nothing else."""

from . import core

# LLVM's AMDGPUCodeGenPrepare splits a PHI of a large vector (`ushort4`, `int2`, ...) into one
# PHI per element ("break large PHIs"); on a divergent `switch` whose `default` edge carries
# the vector unchanged, the machine code of the split PHIs copies the value on some incoming
# edges only, so the lanes that reach the join from the default case keep whatever register
# held before (docs/compiler-bugs.md). The signature is the compiler's own switch: the same
# kernel, target and level compiled with `-mllvm -amdgpu-codegenprepare-break-large-phis=0`
# matches the reference, and -O0 of the target passes.
BREAK_LARGE_PHIS_OFF = ["-mllvm", "-amdgpu-codegenprepare-break-large-phis=0"]


def _break_large_phis(case, r, ev):
  if r.get("status") != "mismatch" or r.get("opt") == "O0" or f"{r['target']} -O0" not in ev.get("passing", []):
    return False
  try:
    co = core.compile_kernel(case.source, r["target"], r["opt"], extra=BREAK_LARGE_PHIS_OFF)
    ok = not core.compare(core.run_reference(case), core.run_amdpcode(case, co, "interp"))
  except Exception as e:  # a compile or run failure is no evidence either way
    ev["break_large_phis_off_error"] = str(e)[-300:]
    return False
  ev["break_large_phis_off_matches_reference"] = ok
  return ok


KNOWN = [
  {"name": "llvm-amdgpu-break-large-phis", "class": "compiler", "match": _break_large_phis,
   "why": "LLVM AMDGPU: a split large-vector PHI loses the value of a divergent switch's default edge "
          "(right with -mllvm -amdgpu-codegenprepare-break-large-phis=0 and at -O0)"},
]
