"""Automatic reduction of a failing kernel with cvise.

The prelude (UB-free helpers and the target mapping) stays fixed; cvise reduces only the kernel
after it. The interestingness test (`python -m amdpcode.clfuzz.check`) keeps a candidate when
- clang-22 compiles it cleanly with the warnings that flag undefined behaviour as errors,
- PoCL builds it and gives the same results with and without optimization,
- the failing configuration still differs from PoCL, in the same buffers, and
- (compiler mode) a configuration that passed before still passes and amdpcode's two engines
  still agree, or (engines mode) amdpcode's two engines still disagree.
A failure triaged as a reference difference (PoCL disagrees with itself) is reduced in
reference mode instead: the candidate must keep PoCL's optimized and unoptimized builds apart
while passing the same UB checks, which isolates the construct the generator must avoid."""
import json
import os
import shlex
import shutil
import subprocess
import sys

from . import gen

CVISE = os.environ.get("AMDPCODE_CVISE", "cvise")


def split_source(source):
  """(head, body): the generator's header comment + prelude, and the kernel after it."""
  i = source.index("kernel void fuzz(")
  return source[:i], source[i:]


def reduce_case(case, r, runs, out_dir, timeout=900):
  """Reduces the failing configuration `r` of `case`; returns {"dir", "lines_before",
  "lines_after", "mode"} (the reduced kernel is `dir`/kernel.cl)."""
  if not shutil.which(CVISE): return {"error": f"{CVISE} is not installed (apt-get install cvise)"}
  tri = r.get("triage", {})
  mode = {"amdpcode": "engines", "reference": "reference"}.get(tri.get("class"), "compiler")
  d = os.path.join(out_dir, f"reduce-seed{case.seed}-{r['target']}-{r['opt']}")
  os.makedirs(d, exist_ok=True)
  head, body = split_source(case.source)
  with open(os.path.join(d, "head.cl"), "w") as f: f.write(head)
  with open(os.path.join(d, "body.cl"), "w") as f: f.write(body)
  witness = sorted((t, o) for (t, o), diff in runs.items() if not diff)
  spec = {"seed": case.seed, "block": case.block, "groups": case.groups, "knobs": case.knobs.__dict__,
          "target": r["target"], "opt": r["opt"], "buffers": sorted({x[0] for x in r.get("diff", [])}),
          "witness": list(witness[0]) if witness else None, "mode": mode,
          "head": os.path.join(d, "head.cl")}
  with open(os.path.join(d, "spec.json"), "w") as f: json.dump(spec, f, indent=1)
  script = os.path.join(d, "interesting.sh")
  with open(script, "w") as f:
    f.write("#!/bin/sh\n")
    f.write(f"exec {shlex.quote(sys.executable)} -m amdpcode.clfuzz.check {shlex.quote(os.path.join(d, 'spec.json'))} body.cl\n")
  os.chmod(script, 0o755)
  before = body.count("\n")
  work = os.path.join(d, "work")
  os.makedirs(work, exist_ok=True)
  shutil.copy(os.path.join(d, "body.cl"), os.path.join(work, "body.cl"))
  env = dict(os.environ, POCL_KERNEL_CACHE="0")
  if subprocess.run([script], cwd=work, env=env, capture_output=True).returncode != 0:
    return {"dir": d, "error": "the unreduced kernel is not interesting (the check script rejects it)", "mode": mode}
  try:
    subprocess.run(["timeout", str(timeout), CVISE, "--n", "1", "--timeout", "120", "--tidy", script, "body.cl"],
                   cwd=work, env=env, capture_output=True)
  finally:
    with open(os.path.join(work, "body.cl")) as f: reduced = f.read()
    with open(os.path.join(d, "kernel.cl"), "w") as f: f.write(head + reduced)
  return {"dir": d, "lines_before": before, "lines_after": reduced.count("\n"), "mode": mode}
