"""python -m amdpcode.clfuzz: a differential campaign of random OpenCL C kernels, compiled by
clang-22 for AMD targets and run on amdpcode, against PoCL on the host CPU.

  python -m amdpcode.clfuzz --seeds 0..99 --targets gfx1100,gfx950 --opt-levels O0,O2 --jobs 2 --out DIR
  python -m amdpcode.clfuzz --seeds 0..9999 --targets all --ray auto --out DIR     (a Ray cluster)
  python -m amdpcode.clfuzz --show 17                                              (print kernel 17)

Exit status: 0 when every failure is explained (docs/compiler-bugs.md), 1 when some are not,
2 for bad arguments or a missing tool."""
import argparse
import json
import os
import shutil
import sys
import time

from . import campaign, core, gen


def parse_seeds(text):
  a, sep, b = text.partition("..")
  try:
    if not sep: return [int(a)]
    lo, hi = int(a), int(b)
  except ValueError:
    raise argparse.ArgumentTypeError(f"--seeds: expected N or A..B (inclusive), not {text!r}") from None
  if hi < lo: raise argparse.ArgumentTypeError(f"--seeds {text}: the range is empty")
  return list(range(lo, hi + 1))


def parse_levels(text):
  out = []
  for x in text.split(","):
    x = x.strip().upper().lstrip("-")
    if not x.startswith("O"): x = "O" + x
    if x not in core.OPT_LEVELS:
      raise argparse.ArgumentTypeError(f"--opt-levels: {x} is not one of {', '.join(core.OPT_LEVELS)}")
    out.append(x)
  return out


def parse_knobs(text):
  out = {}
  fields = gen.Knobs().__dict__
  for item in filter(None, (text or "").split(",")):
    k, _, v = item.partition("=")
    if k not in fields: raise argparse.ArgumentTypeError(f"--knobs: unknown knob {k!r} (known: {', '.join(fields)})")
    t = type(fields[k])
    out[k] = (v.lower() in ("1", "true", "yes", "on")) if t is bool else t(v)
  return out


def main(argv=None):
  ap = argparse.ArgumentParser(prog="python -m amdpcode.clfuzz", description=__doc__.split("\n\n")[0])
  ap.add_argument("--seeds", type=parse_seeds, default=parse_seeds("0..49"), help="N or A..B (inclusive)")
  ap.add_argument("--targets", default="all",
                  help="comma-separated processors (gfx1100, gfx1100-w64, gfx950, ...) or 'all' (every one amdpcode runs)")
  ap.add_argument("--opt-levels", type=parse_levels, default=parse_levels("O0,O2"))
  ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="local worker processes")
  ap.add_argument("--ray", metavar="ADDRESS", help="run on Ray: a cluster address, 'auto', or 'local'")
  ap.add_argument("--ray-cpus", type=int, help="with --ray local: the instance's CPUs")
  ap.add_argument("--batch", type=int, default=8, help="seeds per task")
  ap.add_argument("--unit", type=int, default=8,
                  help="kernels per translation unit: one PoCL build and one clang-22 + ld.lld-22 per (target, level) "
                       "for all of them (1: each kernel alone)")
  ap.add_argument("--engine", default="jit", choices=["jit", "interp"])
  ap.add_argument("--knobs", type=parse_knobs, default={}, help="generator knobs k=v,... (see gen.Knobs)")
  ap.add_argument("--reduce", action="store_true", help="reduce unexplained failures and reference differences with cvise")
  ap.add_argument("--out", help="folder for summary.json and one folder per failure")
  ap.add_argument("--show", type=int, metavar="SEED", help="print kernel SEED's source and launch, then exit")
  ap.add_argument("--quiet", action="store_true")
  args = ap.parse_args(argv)

  if args.show is not None:
    case = gen.generate(args.show, gen.Knobs(**args.knobs))
    sys.stdout.write(case.source)
    print(f"// launch: {case.groups} workgroup(s) of {case.block} work-items")
    return 0
  for tool in (core.CLANG, core.LLD):
    if not shutil.which(tool):
      print(f"clfuzz: {tool} is not installed (apt-get install clang-22 lld-22)", file=sys.stderr)
      return 2
  if args.targets == "all":
    targets = core.supported_targets()
    for t in core.CANDIDATE_TARGETS:
      if t not in targets and not args.quiet: print(f"clfuzz: skipping {t}: {core.probe_target(t)}", file=sys.stderr)
  else:
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    for t in targets:
      why = core.probe_target(t)
      if why:
        print(f"clfuzz: target {t}: amdpcode cannot run it here: {why}", file=sys.stderr)
        return 2
  if not targets:
    print("clfuzz: no target to run", file=sys.stderr)
    return 2
  reduce_dir = os.path.abspath(args.out) if args.out else None
  if args.out: os.makedirs(args.out, exist_ok=True)

  timer = core.Timer()
  results = []
  t0 = time.perf_counter()
  total = len(args.seeds) * len(targets) * len(args.opt_levels)

  def progress(out):
    if args.quiet: return
    bad = [r for r in out["results"] if r["status"] != "ok"]
    print(f"clfuzz: {len(results) + len(out['results'])}/{total} runs, +{len(bad)} failing", file=sys.stderr, flush=True)
    for r in bad:
      print(f"  seed {r['seed']} {r['target']} -{r['opt']}: {r['status']}", file=sys.stderr, flush=True)

  if args.ray:
    it = campaign.run_ray(args.ray, args.seeds, targets, args.opt_levels, args.knobs, args.batch, args.engine,
                          args.reduce, reduce_dir, progress, args.ray_cpus, args.unit)
  else:
    it = campaign.run_local(args.seeds, targets, args.opt_levels, args.knobs, args.jobs, args.batch, args.engine,
                            args.reduce, reduce_dir, progress, args.unit)
  for out in it:
    results.extend(out["results"])
    t = core.Timer()
    t.seconds, t.counts = out["seconds"], out["counts"]
    timer.merge(t)
  wall = time.perf_counter() - t0

  summary = summarize(results, timer, wall, targets, args)
  if args.out:
    write_out(args.out, results, summary, args.knobs)
  print(render(summary))
  return 1 if summary["classes"].get("unexplained", 0) else 0


def summarize(results, timer, wall, targets, args):
  statuses, classes = {}, {}
  for r in results:
    statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    if r["status"] != "ok":
      c = r.get("triage", {}).get("class") or r.get("class") or "unexplained"
      classes[c] = classes.get(c, 0) + 1
  stages = {}
  for stage, s in timer.seconds.items():
    n = timer.counts.get(stage, 0)
    stages[stage] = {"count": n, "seconds": round(s, 3), "per_core_per_second": round(n / s, 3) if s else None}
  return {"seeds": [args.seeds[0], args.seeds[-1]], "kernels": len(args.seeds), "targets": targets,
          "opt_levels": args.opt_levels, "runs": len(results), "status": statuses, "classes": classes,
          "wall_seconds": round(wall, 1), "stages": stages,
          "runner": f"ray {args.ray}" if args.ray else f"{args.jobs} local process(es)", "unit": args.unit,
          "generator": gen.GENERATOR_VERSION, "amdpcode": core.amdpcode_build(),
          "failures": [{k: r.get(k) for k in ("seed", "target", "opt", "status")} |
                       {"class": r.get("triage", {}).get("class") or r.get("class") or "unexplained",
                        "known": r.get("triage", {}).get("known")} for r in results if r["status"] != "ok"]}


def render(s):
  lines = [f"clfuzz: {s['kernels']} kernels x {len(s['targets'])} targets ({', '.join(s['targets'])}) x "
           f"{', '.join('-' + o for o in s['opt_levels'])} = {s['runs']} runs in {s['wall_seconds']} s on {s['runner']}, "
           f"{s.get('unit', 1)} kernel(s) per translation unit"]
  b = s.get("amdpcode")
  if b: lines.append(f"  amdpcode: {b['path']} (modified {b['modified']}, sha256 {b['sha256']})")
  lines.append("  status: " + ", ".join(f"{k} {v}" for k, v in sorted(s["status"].items())))
  lines.append("  failures by class: " + (", ".join(f"{k} {v}" for k, v in sorted(s["classes"].items())) or "none"))
  lines.append("  stage       count   seconds   per core per second")
  for stage in ("generate", "reference", "compile", "amdpcode", "alone", "triage", "reduce"):
    if stage in s["stages"]:
      st = s["stages"][stage]
      lines.append(f"  {stage:<10} {st['count']:>6} {st['seconds']:>9.1f}   {st['per_core_per_second']}")
  for f in s["failures"][:50]:
    lines.append(f"  seed {f['seed']} {f['target']} -{f['opt']}: {f['status']}, {f['class']}" +
                 (f" ({f['known']})" if f.get("known") else ""))
  return "\n".join(lines)


def write_out(out, results, summary, knobs):
  with open(os.path.join(out, "summary.json"), "w") as f:
    json.dump(summary, f, indent=1, default=str)
  for r in results:
    if r["status"] == "ok": continue
    d = os.path.join(out, f"seed{r['seed']}-{r['target']}-{r['opt']}")
    os.makedirs(d, exist_ok=True)
    case = gen.generate(r["seed"], gen.Knobs(**knobs))
    with open(os.path.join(d, "kernel.cl"), "w") as f: f.write(case.source)
    with open(os.path.join(d, "result.json"), "w") as f:
      json.dump(r | {"block": case.block, "groups": case.groups, "knobs": knobs}, f, indent=1, default=str)


if __name__ == "__main__":
  sys.exit(main())
