"""amdpcode as the emulator of tinygrad's mock GPU, and a pytest plugin that installs it.

``Remu`` has the attributes and the ``run_asm`` signature of tinygrad's
``test/mockgpu/helpers.py`` ``PythonRemu``: the mock GPU sets ``valid_mem_ranges``, ``rsrc2``,
``scratch_size``, ``arch`` and ``user_data`` and calls ``run_asm(lib, lib_sz, gx, gy, gz, lx, ly,
lz, args_ptr)``; the kernel's entry is at ``lib`` (``lib_sz`` bytes of code image from there),
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
import time

from . import Error, engine

_ARCHES = {"rdna3": "rdna3", "rdna4": "rdna4", "cdna": "cdna", "cdna4": "cdna"}


class Remu:
  """A drop-in for tinygrad's ``PythonRemu`` running on amdpcode."""
  valid_mem_ranges: set = set()
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
    arch = _ARCHES.get(self.arch)
    if arch is None: raise Error(f"unknown arch `{self.arch}` (expected rdna3, rdna4 or cdna)")
    start = time.perf_counter()
    eng = engine(arch, self.engine_name)
    code = ctypes.string_at(lib, lib_sz)
    user = [v & 0xffffffff for v in self.user_data] or [args_ptr & 0xffffffff, (args_ptr >> 32) & 0xffffffff]
    ranges = [(int(a), int(n)) for a, n in self.valid_mem_ranges if n]
    self.instructions += eng.dispatch_raw(code, lib, 0, self.rsrc2, 0, user, [gx, gy, gz], [lx, ly, lz], ranges,
                                          scratch_bytes=self.scratch_size or None)
    self.launches += 1
    self.seconds += time.perf_counter() - start
    self.mapped_bytes = max(self.mapped_bytes, sum(n for _, n in ranges))
    return 0


def install():
  """Replaces tinygrad's mock-GPU emulator (``test.mockgpu.amd.amdgpu.remu``) with a ``Remu``;
  returns it. Needs tinygrad's source tree on ``sys.path``."""
  import test.mockgpu.amd.amdgpu as amdgpu
  remu = Remu()
  amdgpu.remu = remu
  return remu


_installed = None


def pytest_configure(config):
  global _installed
  _installed = install()


def pytest_terminal_summary(terminalreporter):
  if _installed is not None:
    terminalreporter.write_line(f"amdpcode: {_installed.launches} launches, {_installed.instructions} wave instructions, "
                                f"{_installed.seconds:.2f} s in run_asm (at most {_installed.mapped_bytes} bytes mapped), "
                                f"engine {_installed.engine_name}")
