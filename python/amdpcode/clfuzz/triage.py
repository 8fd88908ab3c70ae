"""Triage of one failing configuration: rerun it on the other engine, compare with the other
targets and levels of the same seed, and match it against the explained signatures of
`known.KNOWN`.

The class is one of "amdpcode" (a bug of ours), "compiler" (clang/LLVM emitted wrong code),
"reference" (the generator let undefined behaviour through, or PoCL differs) or
"unexplained" (a campaign's failure: someone has to look)."""
from . import core, known


def triage(case, r, runs, engine):
  ev = {}
  other = "interp" if engine == "jit" else "jit"
  if r["status"] == "mismatch":
    co = core.compile_kernel(case.source, r["target"], r["opt"])
    try:
      ref = core.run_reference(case)
      got, got_other = core.run_engines(case, co, (engine, other))
      ev[f"{other}_vs_reference"] = core.compare(ref, got_other)
      ev[f"{other}_vs_{engine}"] = core.compare(got, got_other)
    except Exception as e:
      ev[f"{other}_error"] = str(e)[-500:]
    ev["pocl_O0_vs_pocl"] = core.compare(core.run_reference(case), core.run_reference(case, options="-cl-opt-disable"))
  ev["failing"] = sorted(f"{t} -{o}" for (t, o), d in runs.items() if d)
  ev["passing"] = sorted(f"{t} -{o}" for (t, o), d in runs.items() if not d)
  if ev.get(f"{other}_vs_{engine}"):
    return {"class": "amdpcode", "why": f"amdpcode's {engine} and {other} engines disagree on the same code object",
            "evidence": ev}
  if ev.get("pocl_O0_vs_pocl"):
    return {"class": "reference", "why": "PoCL gives different results at -cl-opt-disable: the kernel has undefined behaviour",
            "evidence": ev}
  for k in known.KNOWN:
    if k["match"](case, r, ev):
      return {"class": k["class"], "why": k["why"], "known": k["name"], "evidence": ev}
  return {"class": "unexplained", "why": "no explanation yet", "evidence": ev}
