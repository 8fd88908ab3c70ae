"""amdpcode as the emulator of tinygrad's mock GPU, and a pytest plugin that installs it.

``Remu`` has the attributes and the ``run_asm`` signature of tinygrad's
``test/mockgpu/helpers.py`` ``PythonRemu``: the mock GPU sets ``valid_mem_ranges``, ``rsrc2``,
``scratch_size``, ``arch`` and ``user_data`` and calls ``run_asm(lib, lib_sz, gx, gy, gz, lx, ly,
lz, args_ptr)``; ``rsrc1`` (COMPUTE_PGM_RSRC1: the MODE a wave starts with, e.g. FP16/FP64
denormals kept) is not among them, so ``install`` also has the mock's dispatch packet handler
copy it from the mock GPU's registers (without it the waves would start with MODE 0, which
flushes every denormal); the kernel's entry is at ``lib`` (``lib_sz`` bytes of code image from there),
``gx, gy, gz`` count workgroups of ``lx * ly * lz`` work-items, and global memory is this
process's own memory restricted to ``valid_mem_ranges`` (any other access is an
``amdpcode.FaultError`` naming the address). LDS is RSRC2's LDS_SIZE * 512 bytes per workgroup,
scratch ``scratch_size`` bytes per lane, and the workgroup ids are where the hardware puts them
(SGPRs after the user SGPRs, or ttmp7/ttmp9 on RDNA 4).

Plugin: ``DEV=MOCK+AMD:LLVM pytest -p amdpcode.tinygrad test/backend/test_dtype_alu.py`` from
tinygrad's source tree replaces the module-level ``remu`` of ``test/mockgpu/amd/amdgpu.py`` with
a ``Remu`` (tinygrad's files stay untouched). ``AMDPCODE_ENGINE=interp`` selects the
interpreter instead of the JIT.
"""
import ctypes
import os
import re
import time

from . import Error, engine

_ARCHES = {"rdna3": "rdna3", "rdna4": "rdna4", "cdna": "cdna", "cdna4": "cdna"}


def _dev_target(dev):
  """The processor a ``DEV`` value names (``MOCK+AMD:LLVM:gfx942`` -> ``gfx942``), or None.
  tinygrad's mock GPU knows three arches and labels every other target's code with the nearest
  (``rdna3`` for gfx942); the compiler builds for the named processor, so that name decides
  which amdpcode arch runs the code."""
  found = re.findall(r"(?:^|[:+])(gfx[0-9a-f]+)\b", dev or "")
  return found[-1] if found else None


class Remu:
  """A drop-in for tinygrad's ``PythonRemu`` running on amdpcode."""
  valid_mem_ranges: set = set()
  rsrc1: int = 0
  rsrc2: int = 0x19c
  scratch_size: int = 0
  arch: str = "rdna3"
  user_data: list = []

  def __init__(self, engine_name=None):
    self.engine_name = engine_name or os.environ.get("AMDPCODE_ENGINE", "jit")
    self.instructions = 0
    self.launches = 0
    self.seconds = 0.0
    self.mapped_bytes = 0

  def run_asm(self, lib: int, lib_sz: int, gx: int, gy: int, gz: int, lx: int, ly: int, lz: int, args_ptr: int) -> int:
    arch = _dev_target(os.environ.get("DEV")) or _ARCHES.get(self.arch)
    if arch is None: raise Error(f"unknown arch `{self.arch}` (expected rdna3, rdna4 or cdna)")
    start = time.perf_counter()
    eng = engine(arch, self.engine_name)
    code = ctypes.string_at(lib, lib_sz)
    user = [v & 0xffffffff for v in self.user_data] or [args_ptr & 0xffffffff, (args_ptr >> 32) & 0xffffffff]
    ranges = [(int(a), int(n)) for a, n in self.valid_mem_ranges if n]
    if _CAPTURE: _capture(arch, code, lib, self.rsrc1, self.rsrc2, user, [gx, gy, gz], [lx, ly, lz], ranges,
                          self.scratch_size)
    self.instructions += eng.dispatch_raw(code, lib, self.rsrc1, self.rsrc2, 0, user, [gx, gy, gz], [lx, ly, lz], ranges,
                                          scratch_bytes=self.scratch_size or None)
    self.launches += 1
    self.seconds += time.perf_counter() - start
    self.mapped_bytes = max(self.mapped_bytes, sum(n for _, n in ranges))
    return 0


# ``AMDPCODE_CAPTURE=FILE.jsonl`` appends every launch, as ``amdpcode dispatch --batch`` reads
# it (raw form: the memory before the run — the kernel-argument range and every declared range
# an argument word points into (``_reachable``), each as its bytes up to the last non-zero one
# and a zero-filled rest), to FILE, for replaying a test suite's kernels without tinygrad.
_CAPTURE = os.environ.get("AMDPCODE_CAPTURE")


def _reachable(ranges, user):
  """The declared ranges a launch can reach: the one holding the kernel arguments (the address
  in the first two user SGPRs) and every range a 64-bit word of those arguments points into.
  A framework's mock declares every buffer it has allocated (hundreds of MB); a kernel reads
  and writes only the buffers its arguments name."""
  def holding(addr): return next(((a, n) for a, n in ranges if a <= addr < a + n), None)
  kernarg = (user[0] | user[1] << 32) if len(user) >= 2 else 0
  home = holding(kernarg)
  if home is None: return list(ranges)
  out = [home]
  args = ctypes.string_at(kernarg, min(4096, home[0] + home[1] - kernarg))
  for i in range(0, len(args) - 7, 8):
    r = holding(int.from_bytes(args[i:i + 8], "little"))
    if r is not None and r not in out: out.append(r)
  return out


def _capture(arch, code, lib, rsrc1, rsrc2, user, grid, block, ranges, scratch):
  import json
  memory = []
  for a, n in _reachable([r for r in ranges if not r[0] <= lib < r[0] + r[1]], user):
    data = ctypes.string_at(a, n).rstrip(b"\0")
    if data: memory.append({"addr": hex(a), "hex": data.hex()})
    if len(data) < n: memory.append({"addr": hex(a + len(data)), "size": n - len(data)})
  launch = {"arch": arch, "code_hex": code.hex(), "code_addr": hex(lib), "rsrc1": hex(rsrc1), "rsrc2": hex(rsrc2),
            "user_sgprs": [hex(v) for v in user], "grid": grid, "block": block, "scratch_bytes": scratch,
            "memory": memory}
  with open(_CAPTURE, "a") as f: f.write(json.dumps(launch) + "\n")


def install():
  """Replaces tinygrad's mock-GPU emulator (``test.mockgpu.amd.amdgpu.remu``) with a ``Remu``;
  returns it. Needs tinygrad's source tree on ``sys.path``."""
  import test.mockgpu.amd.amdgpu as amdgpu
  remu = Remu()
  amdgpu.remu = remu
  # COMPUTE_PGM_RSRC1 sits just below COMPUTE_PGM_RSRC2 in the register map.
  reg_rsrc1 = amdgpu.regCOMPUTE_PGM_RSRC2 - 1
  dispatch = amdgpu.PM4Executor._exec_dispatch_direct

  def dispatch_with_rsrc1(executor, n):
    try: remu.rsrc1 = executor.gpu.regs[reg_rsrc1]
    except KeyError: remu.rsrc1 = 0
    return dispatch(executor, n)

  amdgpu.PM4Executor._exec_dispatch_direct = dispatch_with_rsrc1
  return remu


def write_kfd_header(tree):
  """Writes ``extra/hip_gpu_driver/kfd_ioctl.h`` in a tinygrad source tree that lacks it (the
  source snapshot has no ``extra/``; the mock driver only reads the ``AMDKFD_IOC_*`` lines),
  from the ioctl table of tinygrad's own ``tinygrad/runtime/autogen/kfd.py``. Returns the path."""
  import pathlib
  import re
  tree = pathlib.Path(tree)
  out = tree / "extra" / "hip_gpu_driver" / "kfd_ioctl.h"
  if out.exists(): return out
  src = (tree / "tinygrad" / "runtime" / "autogen" / "kfd.py").read_text()
  pat = r"^(AMDKFD_IOC_[A-Z0-9_]+) = AMDKFD_(IOW?R?)\((0x[0-9a-fA-F]+), struct_([A-Za-z0-9_]+)\)"
  lines = [f"#define {n} AMDKFD_{d}({nr}, struct {s})" for n, d, nr, s in re.findall(pat, src, re.M)]
  if not lines: raise Error(f"no AMDKFD_IOC_ definitions in {tree}/tinygrad/runtime/autogen/kfd.py")
  out.parent.mkdir(parents=True, exist_ok=True)
  out.write_text("/* generated by amdpcode.tinygrad.write_kfd_header from tinygrad's autogen/kfd.py */\n" + "\n".join(lines) + "\n")
  return out


# MODE of the hardware runs of tinygrad's ``test/amd/hw`` suite (kernel descriptors at LLVM's
# ``.amdhsa_*`` defaults): FLOAT_MODE 0xc0 (f32 denormals flushed, f16/f64 kept, round to nearest
# even), and on RDNA 3 and CDNA DX10 clamp and IEEE mode on (RDNA 4 has neither bit).
_HW_RSRC1 = {"rdna3": 0xc0 << 12 | 1 << 21 | 1 << 23, "cdna": 0xc0 << 12 | 1 << 21 | 1 << 23, "rdna4": 0xc0 << 12}


def _caller_buffer(addr):
  """The size of the ctypes buffer at ``addr`` held by a caller's frame (the hardware tests keep
  their output buffer in a local), or None."""
  import inspect
  frame = inspect.currentframe()
  while frame is not None:
    for v in frame.f_locals.values():
      if isinstance(v, ctypes.Array) and ctypes.addressof(v) == addr: return ctypes.sizeof(v)
    frame = frame.f_back
  return None


def _called_from(name):
  import inspect
  frame = inspect.currentframe()
  while frame is not None:
    if frame.f_code.co_name == name: return True
    frame = frame.f_back
  return False


def hw_run_asm(lib, lib_sz, gx, gy, gz, lx, ly, lz, args_ptr, rsrc2=0x19c, scratch_size=0, arch="rdna3", user_data=None):
  """amdpcode in place of ``test.mockgpu.amd.emu.run_asm`` (same signature), for tinygrad's
  hardware-validated instruction tests (``test/amd/hw``): the launch those tests ran on the GPU.
  Memory is the kernarg (one u64: the output buffer's address) and the output buffer (the
  caller's ctypes buffer at that address; its size is found in the caller's frame). MODE is the
  hardware runs' (``_HW_RSRC1``); programs the tests run as wave64 on the GPU
  (``_run_wave64_emu``) run in wave64. Returns 0; a fault raises ``amdpcode.FaultError``."""
  arch = _ARCHES.get(arch)
  if arch is None: raise Error(f"unknown arch (expected rdna3, rdna4 or cdna)")
  code = ctypes.string_at(lib, lib_sz)
  out = ctypes.c_uint64.from_address(args_ptr).value
  size = _caller_buffer(out) or 4096
  user = [v & 0xffffffff for v in (user_data or [])] or [args_ptr & 0xffffffff, (args_ptr >> 32) & 0xffffffff]
  wave = 64 if arch == "cdna" or _called_from("_run_wave64_emu") else 32
  eng = engine(arch, os.environ.get("AMDPCODE_ENGINE", "jit"))
  eng.dispatch_raw(code, lib, _HW_RSRC1[arch], rsrc2, 0, user, [gx, gy, gz], [lx, ly, lz], [(args_ptr, 8), (out, size)],
                   wave=wave, scratch_bytes=scratch_size or None)
  return 0


def install_hw():
  """Replaces ``test.mockgpu.amd.emu.run_asm`` (what ``test/amd/hw`` imports) with ``hw_run_asm``."""
  import test.mockgpu.amd.emu as emu
  emu.run_asm = hw_run_asm


_installed = None


def pytest_configure(config):
  global _installed
  _installed = install()
  install_hw()


def pytest_terminal_summary(terminalreporter):
  if _installed is not None:
    terminalreporter.write_line(f"amdpcode: {_installed.launches} launches, {_installed.instructions} wave instructions, "
                                f"{_installed.seconds:.2f} s in run_asm (at most {_installed.mapped_bytes} bytes mapped), "
                                f"engine {_installed.engine_name}")


if __name__ == "__main__":
  import sys
  if len(sys.argv) != 3 or sys.argv[1] != "prepare":
    sys.exit("usage: python -m amdpcode.tinygrad prepare TINYGRAD_TREE")
  print(write_kfd_header(sys.argv[2]))
