"""amdpcode beside native: the OpenCL C kernels of benches/native/kernels.cl (vector add, LDS
reduction, tiled f32 matmul, 5x5 2D convolution) run natively on this CPU by PoCL and, compiled
by clang-22 + ld.lld-22 for gfx1100 (RDNA 3) and gfx950 (CDNA 4), on amdpcode, in one process.
Each result is checked against NumPy before any time counts; the table gives the median wall
time of each and amdpcode's time over PoCL's.

    python3 -m venv venv && venv/bin/pip install numpy pyopencl maturin
    (cd python && VIRTUAL_ENV=$PWD/../venv ../venv/bin/maturin develop --release)
    venv/bin/python benches/native.py [--runs N] [--engine jit|interp] [--small]

Needs pocl-opencl-icd (or any OpenCL CPU device), clang-22 and ld.lld-22.
"""
import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE / "native" / "kernels.cl"
TARGETS = {"gfx1100": "rdna3", "gfx950": "cdna"}


def compile_amdgcn(mcpu, out_dir):
  """The code object of kernels.cl for `mcpu`."""
  obj, hsaco = out_dir / f"kernels-{mcpu}.o", out_dir / f"kernels-{mcpu}.hsaco"
  subprocess.run(["clang-22", "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-nogpulib",
                  "-Xclang", "-finclude-default-header", f"-mcpu={mcpu}", "-O2", "-w", "-c", str(SOURCE), "-o",
                  str(obj)], check=True)
  subprocess.run(["ld.lld-22", "-shared", str(obj), "-o", str(hsaco)], check=True)
  return hsaco.read_bytes()


def cases(small):
  """(kernel, args builder, global size, local size, reference, output index) per kernel."""
  rng = np.random.default_rng(7)
  n = 1 << (16 if small else 20)
  a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
  m = 1 << (14 if small else 18)
  x = rng.standard_normal(m).astype(np.float32)
  k = 64 if small else 128
  ma, mb = rng.standard_normal((k, k)).astype(np.float32), rng.standard_normal((k, k)).astype(np.float32)
  w = h = 64 if small else 256
  img = rng.standard_normal((h, w)).astype(np.float32)
  filt = rng.standard_normal((5, 5)).astype(np.float32)

  def conv_ref():
    pad = np.pad(img, 2, mode="edge")
    out = np.zeros_like(img)
    for dy in range(5):
      for dx in range(5):
        out += pad[dy:dy + h, dx:dx + w] * filt[dy, dx]
    return out

  return [
    ("vadd", lambda: [a, b, np.zeros(n, np.float32), np.uint32(n)], (n,), (256,), a + b, 2),
    ("lds_sum", lambda: [x, np.zeros(m // 256, np.float32)], (m,), (256,), x.reshape(-1, 256).sum(1), 1),
    ("matmul", lambda: [ma, mb, np.zeros((k, k), np.float32), np.uint32(k)], (k, k), (16, 16), ma @ mb, 2),
    ("conv2d", lambda: [img, filt, np.zeros((h, w), np.float32), np.uint32(w), np.uint32(h)], (w, h), (16, 16),
     conv_ref(), 2),
  ]


def median_time(fn, runs):
  fn()  # warm-up: compiles (PoCL) or decodes and prepares (amdpcode)
  times = []
  for _ in range(runs):
    t = time.perf_counter()
    fn()
    times.append(time.perf_counter() - t)
  return statistics.median(times)


def check(name, where, got, want):
  if not np.allclose(got.reshape(want.shape), want, rtol=1e-4, atol=1e-3):
    sys.exit(f"{name} on {where}: wrong result (max error {np.abs(got.reshape(want.shape) - want).max()})")


def main():
  ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  ap.add_argument("--runs", type=int, default=5)
  ap.add_argument("--engine", default="jit")
  ap.add_argument("--small", action="store_true", help="smaller problems (a quick check)")
  opts = ap.parse_args()
  for tool in ("clang-22", "ld.lld-22"):
    if shutil.which(tool) is None: sys.exit(f"{tool} not found (apt-get install clang-22 lld-22)")
  import pyopencl as cl
  import amdpcode

  cpus = [d for p in cl.get_platforms() for d in p.get_devices(device_type=cl.device_type.CPU)]
  if not cpus: sys.exit("no OpenCL CPU device (apt-get install pocl-opencl-icd)")
  ctx = cl.Context([cpus[0]])
  queue = cl.CommandQueue(ctx)
  prog = cl.Program(ctx, SOURCE.read_text()).build(options=["-cl-std=CL2.0"])
  with tempfile.TemporaryDirectory() as tmp:
    code = {mcpu: compile_amdgcn(mcpu, pathlib.Path(tmp)) for mcpu in TARGETS}
  print(f"# OpenCL device: {cpus[0].name} ({cpus[0].max_compute_units} compute units); "
        f"amdpcode engine {opts.engine}; median of {opts.runs} runs; load average "
        f"{os.getloadavg()[0]:.1f}")
  print(f"{'kernel':10} {'PoCL':>10} " + " ".join(f"{m:>10} {'ratio':>7}" for m in TARGETS))
  for name, make, gsize, lsize, want, out_at in cases(opts.small):
    # PoCL
    args = make()
    mf = cl.mem_flags
    bufs = [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=v) if isinstance(v, np.ndarray) else v
            for v in args]
    kern = getattr(prog, name)

    def native():
      kern(queue, gsize, lsize, *bufs).wait()

    native()
    out = np.empty_like(args[out_at])
    cl.enqueue_copy(queue, out, bufs[out_at]).wait()
    check(name, "PoCL", out, want)
    t_native = median_time(native, opts.runs)
    row = f"{name:10} {t_native * 1e3:8.2f}ms "
    for mcpu, arch in TARGETS.items():
      args = make()
      grid = [g // l for g, l in zip(gsize, lsize)]

      def emulated():
        amdpcode.dispatch(code[mcpu], name, args, grid=grid, block=list(lsize), arch=arch,
                          engine_name=opts.engine)

      emulated()
      check(name, f"amdpcode {mcpu}", args[out_at], want)
      t = median_time(emulated, opts.runs)
      row += f"{t * 1e3:8.2f}ms {t / t_native:6.1f}x "
    print(row, flush=True)


if __name__ == "__main__":
  main()
