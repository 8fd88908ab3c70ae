"""A campaign: batches of seeds through generate -> compile -> amdpcode -> reference -> compare,
on local processes or Ray tasks; mismatches are triaged (and reduced when asked).

`run_batch` is the unit of work: a pure function of its arguments (seeds, targets, levels,
knobs), so any result is reproducible from (seed, target, level) alone."""
import time
import traceback

from . import core, gen, triage


def run_batch(seeds, targets, levels, knobs=None, engine="jit", reduce=False, out_dir=None):
  """Runs every (seed, target, level); returns a plain dict (picklable, JSON-able):
  {"results": [...], "seconds": {stage: s}, "counts": {stage: n}}.

  A result is {"seed", "target", "opt", "status", ...}: status "ok", "mismatch" (with "diff"
  and "triage"), "compile_error", "amdpcode_error" or "reference_error" (with "message")."""
  knobs = gen.Knobs(**(knobs or {}))
  timer = core.Timer()
  results = []
  reduced_reference = set()
  for seed in seeds:
    try:
      with timer.time("generate"):
        case = gen.generate(seed, knobs)
    except Exception:
      results.append({"seed": seed, "target": "*", "opt": "*", "status": "generator_error",
                      "message": traceback.format_exc()[-2000:]})
      continue
    try:
      with timer.time("reference"):
        ref = core.run_reference(case)
    except Exception as e:
      results.append({"seed": seed, "target": "*", "opt": "*", "status": "reference_error",
                      "message": str(e)[-2000:], "class": "reference"})
      continue
    runs = {}
    for target in targets:
      for opt in levels:
        r = {"seed": seed, "target": target, "opt": opt}
        try:
          with timer.time("compile"):
            co = core.compile_kernel(case.source, target, opt)
        except core.CompileError as e:
          r.update(status="compile_error", message=str(e)[-2000:])
          results.append(r)
          continue
        try:
          t = time.perf_counter()
          got = core.run_amdpcode(case, co, engine)
          timer.add("amdpcode", time.perf_counter() - t)
        except Exception as e:
          timer.add("amdpcode", time.perf_counter() - t)
          r.update(status="amdpcode_error", message=str(e)[-2000:])
          results.append(r)
          continue
        diff = core.compare(ref, got)
        runs[(target, opt)] = diff
        if not diff:
          r["status"] = "ok"
        else:
          r.update(status="mismatch", diff=diff)
        results.append(r)
    # Triage each mismatch with what the other configurations of this seed showed.
    for r in results:
      if r["seed"] == seed and r["status"] in ("mismatch", "amdpcode_error"):
        with timer.time("triage"):
          try:
            r["triage"] = triage.triage(case, r, runs, engine)
          except Exception:
            r["triage"] = {"class": "unexplained", "why": "triage failed: " + traceback.format_exc()[-1500:]}
        cls = r["triage"].get("class")
        if cls == "reference" and seed in reduced_reference:
          continue  # one reduction per seed: PoCL's disagreement does not depend on the target
        if reduce and cls in ("unexplained", "reference") and out_dir:
          if cls == "reference": reduced_reference.add(seed)
          from . import reduce as reducer
          with timer.time("reduce"):
            try:
              r["reduced"] = reducer.reduce_case(case, r, runs, out_dir)
            except Exception:
              r["reduced"] = {"error": traceback.format_exc()[-1500:]}
  return {"results": results, "seconds": timer.seconds, "counts": timer.counts}


def split(seeds, batch):
  return [seeds[i:i + batch] for i in range(0, len(seeds), batch)]


def run_local(seeds, targets, levels, knobs=None, jobs=1, batch=4, engine="jit", reduce=False,
              out_dir=None, progress=None):
  """Runs the batches on `jobs` local processes (one worker process per core)."""
  batches = split(list(seeds), batch)
  args = [(b, targets, levels, knobs, engine, reduce, out_dir) for b in batches]
  if jobs <= 1:
    for a in args:
      out = run_batch(*a)
      if progress: progress(out)
      yield out
    return
  import multiprocessing as mp
  ctx = mp.get_context("spawn")  # no fork of a process holding an OpenCL context
  with ctx.Pool(jobs, maxtasksperchild=50) as pool:
    for out in pool.imap_unordered(_star, args):
      if progress: progress(out)
      yield out


def _star(a):
  return run_batch(*a)


def run_ray(address, seeds, targets, levels, knobs=None, batch=4, engine="jit", reduce=False,
            out_dir=None, progress=None, num_cpus=None):
  """Runs the batches as Ray tasks (address "local" starts a local instance); results are
  gathered to the driver as they finish."""
  import ray
  if not ray.is_initialized():
    if address == "local":
      ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    else:
      ray.init(address=address, log_to_driver=False)
  task = ray.remote(num_cpus=1)(run_batch)
  pending = [task.remote(b, targets, levels, knobs, engine, reduce, out_dir)
             for b in split(list(seeds), batch)]
  while pending:
    done, pending = ray.wait(pending, num_returns=1)
    out = ray.get(done[0])
    if progress: progress(out)
    yield out
