"""The stages of one differential test: compile (clang-22 + ld.lld-22), run on amdpcode, run
on the reference (PoCL on the host CPU through pyopencl), compare.

A configuration is (seed, target, opt level); with the generator's knobs it names one test
everywhere. Targets are processor names, with ``-w64`` for wave64 on an RDNA processor
(``gfx1100-w64``)."""
import os
import shutil
import subprocess
import tempfile
import time

import numpy as np

from . import gen

CLANG = os.environ.get("AMDPCODE_CLANG", "clang-22")
LLD = os.environ.get("AMDPCODE_LLD", "ld.lld-22")

# Every processor the campaign knows how to compile for; `supported_targets()` keeps those the
# installed amdpcode runs.
CANDIDATE_TARGETS = ["gfx1100", "gfx1100-w64", "gfx1200", "gfx950", "gfx942", "gfx90a", "gfx908",
                     "gfx1030", "gfx1010", "gfx1250"]
OPT_LEVELS = ["O0", "O1", "O2", "O3"]
STEP_BUDGET = 200_000_000


class CompileError(Exception):
  pass


def target_flags(target):
  mcpu, _, wave = target.partition("-")
  flags = [f"-mcpu={mcpu}"]
  if wave == "w64": flags.append("-mwavefrontsize64")
  elif wave: raise ValueError(f"target {target}: unknown suffix -{wave} (expected -w64)")
  return flags


def clang_args(target, opt, extra=()):
  return [CLANG, "-x", "cl", "-cl-std=CL1.2", "-target", "amdgcn-amd-amdhsa", *target_flags(target),
          "-nogpulib", "-Xclang", "-finclude-default-header", "-ffp-contract=off", f"-{opt}", *extra]


def compile_kernel(source, target, opt, workdir=None, asm=False, extra=()):
  """The code object (bytes) of `source` for `target` at `opt`; with asm=True, the assembly text.
  `extra`: more clang arguments (triage recompiles with a compiler option switched off)."""
  own = workdir is None
  workdir = workdir or tempfile.mkdtemp(prefix="clfuzz-")
  try:
    src = os.path.join(workdir, "k.cl")
    with open(src, "w") as f: f.write(source)
    obj, co = os.path.join(workdir, "k.o"), os.path.join(workdir, "k.hsaco")
    if asm:
      p = subprocess.run(clang_args(target, opt, extra) + ["-S", src, "-o", "-"], capture_output=True, text=True)
      if p.returncode: raise CompileError(p.stderr[-4000:])
      return p.stdout
    p = subprocess.run(clang_args(target, opt, extra) + ["-c", src, "-o", obj], capture_output=True, text=True)
    if p.returncode: raise CompileError(f"clang ({target} -{opt}): {p.stderr[-4000:]}")
    p = subprocess.run([LLD, "-shared", obj, "-o", co], capture_output=True, text=True)
    if p.returncode: raise CompileError(f"ld.lld ({target} -{opt}): {p.stderr[-4000:]}")
    with open(co, "rb") as f: return f.read()
  finally:
    if own: shutil.rmtree(workdir, ignore_errors=True)


# ---- buffers

BUFFERS = ["out", "m8", "m16", "m32", "m64", "atom", "atom64"]


def initial_buffers(case):
  """The kernel's arguments before the run, in order (in, then the BUFFERS)."""
  n = case.items
  rng = np.random.Generator(np.random.PCG64(case.seed))
  atom = rng.integers(0, 1 << 32, gen.N_ATOM, dtype=np.uint64).astype(np.uint32)
  atom64 = rng.integers(0, 1 << 63, gen.N_ATOM64, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
  return [
      np.array(case.input_words, dtype=np.uint32),
      np.zeros(n, dtype=np.uint64),
      rng.integers(0, 1 << 8, n * gen.SLICE, dtype=np.uint64).astype(np.uint8),
      rng.integers(0, 1 << 16, n * gen.SLICE // 2, dtype=np.uint64).astype(np.uint16),
      rng.integers(0, 1 << 32, n * gen.SLICE // 4, dtype=np.uint64).astype(np.uint32),
      rng.integers(0, 1 << 63, n * gen.SLICE // 8, dtype=np.uint64) * np.uint64(3),
      atom,
      atom64,
  ]


def run_amdpcode(case, code_object, engine="jit", kernel="fuzz"):
  """The BUFFERS after running the kernel (`kernel` of the code object) on amdpcode."""
  import amdpcode
  args = initial_buffers(case)
  amdpcode.dispatch(code_object, kernel, args, [case.groups], [case.block], engine_name=engine,
                    step_budget=STEP_BUDGET)
  return args[1:]


def run_engines(case, code_object, engines=("jit", "interp"), kernel="fuzz"):
  """The BUFFERS after running the kernel on each of `engines`, one list per engine. Every run
  gets the same buffers, so the same addresses, reset to their initial contents: code that reads
  a register the compiler left unwritten sees whatever it held, which can be half of a buffer's
  address, so only runs at the same addresses compare one engine with the other."""
  import amdpcode
  initial = initial_buffers(case)
  args = [a.copy() for a in initial]
  results = []
  for engine in engines:
    for a, i in zip(args, initial): np.copyto(a, i)
    amdpcode.dispatch(code_object, kernel, args, [case.groups], [case.block], engine_name=engine,
                      step_budget=STEP_BUDGET)
    results.append([a.copy() for a in args[1:]])
  return results


_cl = {}


def _cl_context():
  if "ctx" not in _cl:
    # Every kernel is new: neither pyopencl's nor PoCL's cache would ever hit, only grow.
    os.environ.setdefault("PYOPENCL_NO_CACHE", "1")
    os.environ.setdefault("POCL_KERNEL_CACHE", "0")
    import warnings
    import pyopencl as cl
    warnings.filterwarnings("ignore", category=cl.CompilerWarning)
    plats = [p for p in cl.get_platforms() if "Portable Computing Language" in p.name]
    if not plats: raise RuntimeError("PoCL (pocl-opencl-icd) is not installed: no OpenCL platform named PoCL")
    ctx = cl.Context(plats[0].get_devices())
    _cl.update(cl=cl, ctx=ctx, queue=cl.CommandQueue(ctx))
  return _cl["cl"], _cl["ctx"], _cl["queue"]


class ReferenceError(Exception):
  pass


def build_reference(source, options=""):
  """A PoCL program of `source` (one build for every kernel in it)."""
  cl, ctx, _ = _cl_context()
  try:
    return cl.Program(ctx, source).build(options=("-w " + options).strip())
  except Exception as e:  # pyopencl raises RuntimeError subclasses with the build log
    raise ReferenceError(f"PoCL build: {str(e)[-3000:]}") from None


def run_reference_kernel(program, case, kernel="fuzz"):
  """The BUFFERS after running `kernel` of a built PoCL program on `case`'s buffers."""
  cl, ctx, queue = _cl_context()
  args = initial_buffers(case)
  mf = cl.mem_flags
  bufs = [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a) for a in args]
  getattr(program, kernel)(queue, (case.items,), (case.block,), *bufs)
  for a, b in zip(args, bufs): cl.enqueue_copy(queue, a, b)
  queue.finish()
  return args[1:]


def run_reference(case, source=None, options=""):
  """The BUFFERS after running the kernel on PoCL (the host CPU)."""
  return run_reference_kernel(build_reference(source or case.source, options), case)


def compare(ref, got):
  """The differences between two runs: [(buffer, first index, count, expected, got)]."""
  out = []
  for name, r, g in zip(BUFFERS, ref, got):
    if not np.array_equal(r, g):
      bad = np.nonzero(r != g)[0]
      i = int(bad[0])
      out.append((name, i, int(bad.size), int(r[i]), int(g[i])))
  return out


# ---- the targets the installed amdpcode runs

_PROBE = """
kernel void fuzz(global uint *out) {
  out[__builtin_amdgcn_workitem_id_x()] = __builtin_amdgcn_workitem_id_x() * 3u + 1u;
}
"""
_supported = {}


def probe_target(target):
  """None when amdpcode compiles and runs a small kernel for `target` correctly, else why not."""
  if target in _supported: return _supported[target]
  import amdpcode
  why = None
  try:
    co = compile_kernel(_PROBE, target, "O1")
    out = np.zeros(64, dtype=np.uint32)
    amdpcode.dispatch(co, "fuzz", [out], [1], [64])
    if not np.array_equal(out, np.arange(64, dtype=np.uint32) * 3 + 1):
      why = "the probe kernel gave a wrong answer"
  except CompileError as e:
    why = f"clang cannot compile for it: {str(e).splitlines()[0] if str(e) else e}"
  except Exception as e:  # amdpcode.Error: an unknown processor or an arch without a database
    why = str(e).splitlines()[0]
  _supported[target] = why
  return why


def supported_targets(candidates=None):
  """The targets of `candidates` (default CANDIDATE_TARGETS) that the installed amdpcode runs."""
  return [t for t in (candidates or CANDIDATE_TARGETS) if probe_target(t) is None]


def amdpcode_build():
  """Which amdpcode extension ran: its path, modification time and the start of its SHA-256.
  A campaign's figures hold for that build only; a stale extension (one `maturin develop`
  behind the checkout) otherwise looks exactly like a current one."""
  import datetime
  import hashlib
  from amdpcode import _amdpcode
  path = _amdpcode.__file__
  with open(path, "rb") as f: digest = hashlib.sha256(f.read()).hexdigest()[:16]
  mtime = datetime.datetime.fromtimestamp(os.stat(path).st_mtime, datetime.timezone.utc)
  return {"path": path, "modified": mtime.strftime("%Y-%m-%d %H:%M:%S UTC"), "sha256": digest}


class Timer:
  """Seconds spent per stage."""

  def __init__(self):
    self.seconds = {}
    self.counts = {}

  def add(self, stage, seconds, n=1):
    self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds
    self.counts[stage] = self.counts.get(stage, 0) + n

  def time(self, stage):
    timer = self

    class _T:
      def __enter__(self):
        self.t = time.perf_counter()

      def __exit__(self, *exc):
        timer.add(stage, time.perf_counter() - self.t)

    return _T()

  def merge(self, other):
    for k, v in other.seconds.items(): self.add(k, v, other.counts.get(k, 0))
