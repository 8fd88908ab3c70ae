"""A campaign: batches of seeds through generate -> compile -> amdpcode -> reference -> compare,
on local processes or Ray tasks; mismatches are triaged (and reduced when asked).

`run_batch` is the unit of work: a pure function of its arguments (seeds, targets, levels,
knobs), so any result is reproducible from (seed, target, level) alone."""
import time
import traceback

from . import core, gen, triage


def run_batch(seeds, targets, levels, knobs=None, engine="jit", reduce=False, out_dir=None, unit=8):
  """Runs every (seed, target, level); returns a plain dict (picklable, JSON-able):
  {"results": [...], "seconds": {stage: s}, "counts": {stage: n}}.

  A result is {"seed", "target", "opt", "status", ...}: status "ok", "mismatch" (with "diff"
  and "triage"), "compile_error", "amdpcode_error" or "reference_error" (with "message").

  `unit` kernels share one translation unit (`gen.unit_source`): one PoCL build, and one
  clang-22 + ld.lld-22 per (target, level), for all of them. A kernel that fails in its unit
  is run again alone, from its own source, and that run is its result (the unit's outcome is
  kept under "unit"); so every result is the one (seed, target, level) gives alone."""
  knobs = gen.Knobs(**(knobs or {}))
  timer = core.Timer()
  results = []
  cases = []
  for seed in seeds:
    try:
      with timer.time("generate"):
        cases.append(gen.generate(seed, knobs))
    except Exception:
      results.append({"seed": seed, "target": "*", "opt": "*", "status": "generator_error",
                      "message": traceback.format_exc()[-2000:]})
  for i in range(0, len(cases), max(1, unit)):
    results += _run_unit(cases[i:i + max(1, unit)], targets, levels, engine, reduce, out_dir, timer)
  return {"results": results, "seconds": timer.seconds, "counts": timer.counts}


def _run_unit(cases, targets, levels, engine, reduce, out_dir, timer):
  """The results of the kernels of one translation unit (see `run_batch`)."""
  results = []
  alone = len(cases) == 1
  source = cases[0].source if alone else gen.unit_source(cases)
  name = (lambda c: "fuzz") if alone else gen.unit_kernel
  refs = {}
  t = time.perf_counter()
  try:
    program = core.build_reference(source)
  except Exception:
    program = None  # each kernel builds alone below, and a failure is its own
  for c in cases:
    try:
      refs[c.seed] = core.run_reference_kernel(program, c, name(c)) if program else core.run_reference(c)
    except Exception as e:
      refs[c.seed] = None
      results.append({"seed": c.seed, "target": "*", "opt": "*", "status": "reference_error",
                      "message": str(e)[-2000:], "class": "reference"})
  timer.add("reference", time.perf_counter() - t, len(cases))
  live = [c for c in cases if refs[c.seed] is not None]
  runs = {c.seed: {} for c in live}
  by_seed = {c.seed: [] for c in live}
  for target in targets:
    for opt in levels:
      co, unit_error = None, None
      if live:
        t = time.perf_counter()
        try:
          co = core.compile_kernel(source, target, opt)
        except core.CompileError as e:
          unit_error = str(e)
        timer.add("compile", time.perf_counter() - t, len(live))
      for c in live:
        r = {"seed": c.seed, "target": target, "opt": opt}
        got, run_error = None, None
        if co is not None:
          t = time.perf_counter()
          try:
            got = core.run_amdpcode(c, co, engine, name(c))
          except Exception as e:
            run_error = str(e)[-2000:]
          timer.add("amdpcode", time.perf_counter() - t)
        diff = core.compare(refs[c.seed], got) if got is not None else None
        if diff == []:
          r["status"] = "ok"
        elif alone:
          if diff: r.update(status="mismatch", diff=diff)
          elif unit_error: r.update(status="compile_error", message=unit_error[-2000:])
          else: r.update(status="amdpcode_error", message=run_error)
        else:
          r["unit"] = {"diff": diff} if diff else {"error": (unit_error or run_error or "")[-500:]}
          with timer.time("alone"):
            _run_alone(c, r, target, opt, engine)
        if r["status"] in ("ok", "mismatch"):
          runs[c.seed][(target, opt)] = r.get("diff", [])
        by_seed[c.seed].append(r)
  for c in live:
    results += _triage_seed(c, by_seed[c.seed], runs[c.seed], engine, reduce, out_dir, timer)
  return results


def _run_alone(case, r, target, opt, engine):
  """Fills `r` with the outcome of (case, target, opt) from the kernel's own source."""
  try:
    ref = core.run_reference(case)
  except Exception as e:
    r.update(status="reference_error", message=str(e)[-2000:], **{"class": "reference"})
    return
  try:
    co = core.compile_kernel(case.source, target, opt)
  except core.CompileError as e:
    r.update(status="compile_error", message=str(e)[-2000:])
    return
  try:
    got = core.run_amdpcode(case, co, engine)
  except Exception as e:
    r.update(status="amdpcode_error", message=str(e)[-2000:])
    return
  diff = core.compare(ref, got)
  if diff:
    r.update(status="mismatch", diff=diff)
  elif "unit" in r:
    # Right alone, wrong in a unit of several kernels: a failure all the same (the unit's
    # code is what the compiler emitted), left for a person with the unit's evidence.
    r.update(status="unit_mismatch")
  else:
    r["status"] = "ok"


def _triage_seed(case, rs, runs, engine, reduce, out_dir, timer):
  """Triage (and reduction, when asked) of a seed's failing configurations."""
  reduced_reference = False
  for r in rs:
    if r["status"] not in ("mismatch", "amdpcode_error", "unit_mismatch"):
      continue
    with timer.time("triage"):
      try:
        r["triage"] = triage.triage(case, r, runs, engine)
      except Exception:
        r["triage"] = {"class": "unexplained", "why": "triage failed: " + traceback.format_exc()[-1500:]}
    cls = r["triage"].get("class")
    if cls == "reference" and reduced_reference:
      continue  # one reduction per seed: PoCL's disagreement does not depend on the target
    if reduce and cls in ("unexplained", "reference") and out_dir and r["status"] != "unit_mismatch":
      reduced_reference = reduced_reference or cls == "reference"
      from . import reduce as reducer
      with timer.time("reduce"):
        try:
          r["reduced"] = reducer.reduce_case(case, r, runs, out_dir)
        except Exception:
          r["reduced"] = {"error": traceback.format_exc()[-1500:]}
  return rs


def split(seeds, batch):
  return [seeds[i:i + batch] for i in range(0, len(seeds), batch)]


def run_local(seeds, targets, levels, knobs=None, jobs=1, batch=8, engine="jit", reduce=False,
              out_dir=None, progress=None, unit=8):
  """Runs the batches on `jobs` local processes (one worker process per core)."""
  batches = split(list(seeds), batch)
  args = [(b, targets, levels, knobs, engine, reduce, out_dir, unit) for b in batches]
  import multiprocessing as mp
  ctx = mp.get_context("spawn")  # no fork of a process holding an OpenCL context
  # A fresh worker process per batch, also for one job: amdpcode keeps what it prepared for
  # every code object it dispatched (10-25 MB per kernel and configuration measured), so a
  # long-lived process would grow through a campaign.
  with ctx.Pool(max(1, jobs), maxtasksperchild=1) as pool:
    for out in pool.imap_unordered(_star, args):
      if progress: progress(out)
      yield out


def _star(a):
  return run_batch(*a)


def run_ray(address, seeds, targets, levels, knobs=None, batch=8, engine="jit", reduce=False,
            out_dir=None, progress=None, num_cpus=None, unit=8):
  """Runs the batches as Ray tasks (address "local" starts a local instance); results are
  gathered to the driver as they finish."""
  import ray
  if not ray.is_initialized():
    if address == "local":
      ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    else:
      ray.init(address=address, log_to_driver=False)
  # One batch per worker process, as on local processes (see run_local).
  task = ray.remote(num_cpus=1, max_calls=1)(run_batch)
  pending = [task.remote(b, targets, levels, knobs, engine, reduce, out_dir, unit)
             for b in split(list(seeds), batch)]
  while pending:
    done, pending = ray.wait(pending, num_returns=1)
    out = ray.get(done[0])
    if progress: progress(out)
    yield out
