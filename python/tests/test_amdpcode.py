"""Tests of the Python package: eval, run and dispatch on NumPy buffers, and the
errors (bad arch, bad launch, memory fault), each a Python exception with the message; host memory
exactly as declared (zeros past a buffer in its page, faults at the first store past it)."""
import ctypes
import pathlib
import re

import numpy as np
import pytest

import amdpcode

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURE = (ROOT / "tests" / "dispatch" / "fixture-gfx1100.hsaco").read_bytes()


@pytest.mark.parametrize("engine", ["jit", "interp"])
def test_eval_scalar_add_with_carry(engine):
  out = amdpcode.eval("S_ADD_U32", "rdna3", engine_name=engine, S0=0xffffffff, S1=2)
  assert out == {"D0": "0x1", "SCC": "0x1"}
  out = amdpcode.eval("S_ADD_U32", "rdna3", engine_name=engine, S0=5, S1=2)
  assert out == {"D0": "0x7", "SCC": "0x0"}


def test_run_program_and_state():
  state = {"sgpr": {"s0": "40"}}
  out = amdpcode.run("s_add_u32 s1, s0, 2\nv_mov_b32 v1, s1\ns_endpgm", "rdna3", state=state)
  assert int(out["sgpr"]["s1"], 16) == 42
  assert [int(x, 16) for x in out["vgpr"]["v1"]] == [42] * 32
  out = amdpcode.run("v_mov_b32 v1, 3\ns_endpgm", "cdna")
  assert len(out["vgpr"]["v1"]) == 64


@pytest.mark.parametrize("engine", ["jit", "interp"])
def test_dispatch_vector_add_on_numpy_buffers(engine):
  n = 1000
  a = np.arange(n, dtype=np.float32) * 0.5 - 17.25
  b = 1.0 / (np.arange(n, dtype=np.float32) + 1)
  c = np.full(n, -1.0, dtype=np.float32)
  out = amdpcode.dispatch(FIXTURE, "vadd", [a, b, c, np.uint32(n)], grid=(n + 63) // 64, block=64, engine_name=engine)
  assert out[2] is c  # updated in place
  np.testing.assert_array_equal(c, a + b)
  # Inputs only read are unchanged; a read-only bytes buffer comes back as a new object.
  np.testing.assert_array_equal(a, np.arange(n, dtype=np.float32) * 0.5 - 17.25)
  out = amdpcode.dispatch(FIXTURE, "vadd", [a.tobytes(), b, bytes(4 * n), n], grid=(n + 63) // 64, block=64)
  np.testing.assert_array_equal(np.frombuffer(out[2], dtype=np.float32), a + b)


def test_dispatch_on_two_threads_gives_one_threads_result():
  n = 1 << 16
  a = np.arange(n, dtype=np.float32) * 0.25 - 3.0
  b = 1.0 / (np.arange(n, dtype=np.float32) + 1)
  one, two = np.zeros(n, dtype=np.float32), np.zeros(n, dtype=np.float32)
  amdpcode.dispatch(FIXTURE, "vadd", [a, b, one, n], grid=n // 64, block=64, threads=1)
  eng = amdpcode.engine("rdna3")
  assert (eng.threads, eng.last_threads) == (1, 1)
  amdpcode.dispatch(FIXTURE, "vadd", [a, b, two, n], grid=n // 64, block=64, threads=2)
  assert (eng.threads, eng.last_threads) == (2, 2)
  np.testing.assert_array_equal(one, a + b)
  assert one.tobytes() == two.tobytes()
  eng.threads = None
  assert eng.threads >= 1


def test_dispatch_lds_sum_across_barriers():
  vals = ((np.arange(192, dtype=np.int64) * 7919) % 1000 - 500).astype(np.int32)
  out = np.zeros(3, dtype=np.int32)
  amdpcode.dispatch(FIXTURE, "lds_sum", [vals, out], grid=3, block=64)
  np.testing.assert_array_equal(out, vals.reshape(3, 64).sum(axis=1))


def test_bad_arch_raises():
  with pytest.raises(amdpcode.Error, match="unknown arch `gfx0`"):
    amdpcode.Engine("gfx0")
  with pytest.raises(amdpcode.Error, match="unknown arch"):
    amdpcode.eval("S_ADD_U32", "rdna9", S0=1, S1=2)


def test_every_named_arch_builds_an_engine():
  # Every named arch has a database (the wheel's own, or one derived from a wheel folder).
  for arch in ("rdna1", "rdna2", "rdna3", "rdna4", "cdna1", "cdna2", "cdna3", "cdna", "cdna5"):
    assert amdpcode.Engine(arch, "interp").arch == arch


@pytest.mark.parametrize("engine", ["jit", "interp"])
def test_eval_cdna5_multiply_add_from_its_erratum(engine):
  # V_MAD_U32 is gfx1250's own (no AMD text): semantics/errata/cdna5/V_MAD_U32.pcode.
  out = amdpcode.eval("V_MAD_U32", "cdna5", engine_name=engine, S0=0x10001, S1=0x10001, S2=5)
  # A vector instruction: one value per lane, every lane given the same operands.
  assert set(out) == {"D0"} and set(out["D0"]) == {"0x20006"}


def test_bad_launch_raises():
  a = np.zeros(4, dtype=np.float32)
  with pytest.raises(amdpcode.Error, match="no kernel `nope`"):
    amdpcode.dispatch(FIXTURE, "nope", [], grid=1, block=1)
  with pytest.raises(amdpcode.Error, match="takes 4 arguments"):
    amdpcode.dispatch(FIXTURE, "vadd", [a, a], grid=1, block=64)
  with pytest.raises(amdpcode.Error, match="block"):
    amdpcode.dispatch(FIXTURE, "vadd", [a, a, a, 4], grid=1, block=2048)
  with pytest.raises(amdpcode.Error, match="not an ELF|code object"):
    amdpcode.dispatch(b"not a code object at all, not at all", "vadd", [], grid=1, block=1, arch="rdna3")


PAGE = 4096


def _pages(n):
  """n page-aligned pages (a view into a larger NumPy buffer), so buffers can be placed at
  chosen offsets in them whatever NumPy's allocator does."""
  raw = np.zeros((n + 1) * PAGE, dtype=np.uint8)
  off = -raw.ctypes.data % PAGE
  return raw[off:off + n * PAGE]


def _floats(pages, byte_offset, n):
  return pages[byte_offset:byte_offset + 4 * n].view(np.float32)


def _fault(msg):
  """(instruction, address) of a memory fault's message."""
  m = re.search(r"(\w+): memory fault: lane \d+ accesses \d+ global byte\(s\) at (0x[0-9a-f]+)", msg)
  assert m, msg
  return m.group(1), int(m.group(2), 16)


# Where vadd's a, b and c (16 floats each) are placed in six pages, and the fault that
# vadd with n = 64 must raise there: the instruction and the buffer whose element 16 it names.
# A load past a buffer faults only when it touches no declared byte and reaches a page that
# holds none; a store faults at the first undeclared byte.
LAYOUTS = {
  # Loads of a[16..63], b[16..63] stay in their pages and read zero; the store of c[16] faults.
  "page starts": ((0, 2 * PAGE, 4 * PAGE), ("GLOBAL_STORE_B32", 2)),
  # a ends its page: a[16] is the first byte of a page holding nothing declared.
  "a at a page end": ((PAGE - 64, 2 * PAGE, 4 * PAGE), ("GLOBAL_LOAD_B32", 0)),
  # Adjacent: a[16..] is b, b[16..] is c, c[16..] is undeclared bytes of c's page.
  "adjacent": ((0, 64, 128), ("GLOBAL_STORE_B32", 2)),
  # In the middle of pages, c's page shared with b.
  "shared page": ((1000, 2 * PAGE + 512, 2 * PAGE + 2048), ("GLOBAL_STORE_B32", 2)),
}


@pytest.mark.parametrize("engine", ["jit", "interp"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_memory_fault_names_the_address_and_leaves_memory_unchanged(engine, layout):
  # vadd with n larger than the buffers: work-items 16..63 access past the 64-byte buffers.
  offsets, (inst, which) = LAYOUTS[layout]
  pages = _pages(6)
  pages.view(np.float32)[:] = 7.0  # host bytes the kernel is never handed
  a, b, c = (_floats(pages, o, 16) for o in offsets)
  a[:], b[:], c[:] = 1.0, 2.0, 0.0
  before = pages.copy()
  with pytest.raises(amdpcode.FaultError) as info:
    amdpcode.dispatch(FIXTURE, "vadd", [a, b, c, 64], grid=1, block=64, engine_name=engine)
  got_inst, addr = _fault(str(info.value))
  assert (got_inst, addr) == (inst, (a, b, c)[which].ctypes.data + 64), str(info.value)
  np.testing.assert_array_equal(pages, before)
  # The process is unharmed: the buffers are intact and usable.
  amdpcode.dispatch(FIXTURE, "vadd", [a, b, c, 16], grid=1, block=64, engine_name=engine)
  np.testing.assert_array_equal(c, np.full(16, 3.0, dtype=np.float32))


@pytest.mark.parametrize("engine", ["jit", "interp"])
def test_memory_fault_on_numpy_arrays_is_outside_every_buffer(engine):
  # Wherever NumPy placed the arrays: the fault is one of vadd's loads or its store, at an
  # address outside every buffer, and no buffer changed.
  a = np.ones(16, dtype=np.float32)
  b = np.ones(16, dtype=np.float32)
  c = np.zeros(16, dtype=np.float32)
  with pytest.raises(amdpcode.FaultError) as info:
    amdpcode.dispatch(FIXTURE, "vadd", [a, b, c, 64], grid=1, block=64, engine_name=engine)
  inst, addr = _fault(str(info.value))
  assert inst in ("GLOBAL_LOAD_B32", "GLOBAL_STORE_B32"), str(info.value)
  assert all(not x.ctypes.data <= addr < x.ctypes.data + x.nbytes for x in (a, b, c)), str(info.value)
  np.testing.assert_array_equal(a, np.ones(16, dtype=np.float32))
  np.testing.assert_array_equal(b, np.ones(16, dtype=np.float32))
  np.testing.assert_array_equal(c, np.zeros(16, dtype=np.float32))


@pytest.mark.parametrize("engine", ["jit", "interp"])
@pytest.mark.parametrize("at", [0, PAGE // 2, PAGE - 128])
def test_over_read_past_a_buffer_in_its_page_reads_zero(engine, at):
  # vadd with n = 20 on 16-float a and b (views of pages full of 7.0): a[16..19] and
  # b[16..19] lie in the buffers' pages but were not handed over, so they read 0, not 7.
  pages = _pages(3)
  pages.view(np.float32)[:] = 7.0
  a, b = _floats(pages, at, 16), _floats(pages, PAGE + at, 16)
  a[:] = np.arange(16, dtype=np.float32)
  b[:] = 0.5
  c = np.full(20, -1.0, dtype=np.float32)
  before = pages.copy()
  amdpcode.dispatch(FIXTURE, "vadd", [a, b, c, 20], grid=1, block=64, engine_name=engine)
  want = np.concatenate([np.arange(16, dtype=np.float32) + 0.5, np.zeros(4, dtype=np.float32)])
  np.testing.assert_array_equal(c, want)
  np.testing.assert_array_equal(pages, before)


def test_assemble():
  code = amdpcode.engine("rdna3").assemble("s_endpgm")
  assert code == bytes.fromhex("0000b0bf")
  with pytest.raises(amdpcode.Error, match="line 1"):
    amdpcode.engine("rdna3").assemble("v_bogus v0")


def test_tinygrad_remu_runs_raw_code_on_host_memory():
  from amdpcode.tinygrad import Remu
  # Store v0 (the work-item id) at s[0:1] + 4 * id: the argument pointer is the only two user
  # SGPRs, as tinygrad's mock GPU passes it.
  code = amdpcode.engine("rdna3").assemble("v_lshlrev_b32 v1, 2, v0\nglobal_store_b32 v1, v0, s[0:1]\ns_endpgm")
  buf = (ctypes.c_char * len(code)).from_buffer_copy(code)
  lib = ctypes.addressof(buf)
  out = np.zeros(40, dtype=np.uint32)
  remu = Remu()
  remu.arch = "rdna3"
  remu.rsrc2 = 2 << 1  # two user SGPRs
  remu.user_data = []
  remu.valid_mem_ranges = {(lib, len(code)), (out.ctypes.data, out.nbytes)}
  assert remu.run_asm(lib, len(code), 1, 1, 1, 40, 1, 1, out.ctypes.data) == 0
  np.testing.assert_array_equal(out, np.arange(40, dtype=np.uint32))
  # Without the output range declared, the store faults naming the address.
  remu.valid_mem_ranges = {(lib, len(code))}
  out[:] = 7
  with pytest.raises(amdpcode.FaultError, match=f"0x{out.ctypes.data:x}"):
    remu.run_asm(lib, len(code), 1, 1, 1, 40, 1, 1, out.ctypes.data)
  np.testing.assert_array_equal(out, np.full(40, 7, dtype=np.uint32))


@pytest.mark.parametrize("engine", ["jit", "interp"])
def test_cndmask_applies_float_source_modifiers(engine):
  # llvm-mc-22 -mcpu=gfx1100: v_mov_b32 v1, 2.0; s_mov_b32 vcc_lo, 0;
  # v_cndmask_b32_e64 v2, -v1, v1, vcc_lo; v_cndmask_b32_e64 v3, |v4|, v1, vcc_lo; s_endpgm.
  # LLVM negates a select's operand this way (tinygrad's sin/cos sign): the hardware applies
  # neg/abs to V_CNDMASK_B32's sources as f32 although the pseudocode types them u32.
  code = "f402027e 8000eabe 020001d50103aa21 030101d50403aa01 0000b0bf"
  out = amdpcode.run(code, "rdna3", state={"vgpr": {"v4": "0x80000005"}}, engine_name=engine, hex=True)
  assert out["vgpr"]["v2"][0] == "0xc0000000"
  assert out["vgpr"]["v3"][0] == "0x5"


@pytest.mark.parametrize("engine", ["jit", "interp"])
def test_fma_mixhi_writes_the_high_half(engine):
  # llvm-mc-22 -mcpu=gfx1100: v_mov_b32 v2, 1.5; s_mov_b32 s7, 2.0; v_mov_b32 v0, 0x5555;
  # v_fma_mixhi_f16 v0, v2, s7, 0; s_endpgm. The f16 result 3.0 (0x4200) lands in bits 31:16,
  # the low half is kept (tinygrad's float16 sin uses it).
  prog = "v_mov_b32 v2, 0x3fc00000\ns_mov_b32 s7, 0x40000000\nv_mov_b32 v0, 0x5555\ns_endpgm"
  code = amdpcode.engine("rdna3").assemble(prog)
  mix = bytes.fromhex("000022cc020f0002")  # v_fma_mixhi_f16 v0, v2, s7, 0
  out = amdpcode.run((code[:-4] + mix + code[-4:]).hex(), "rdna3", engine_name=engine, hex=True)
  assert out["vgpr"]["v0"][0] == "0x42005555"


def _remu_program(text, out):
  """A Remu on rdna3 running `text` (argument pointer in s[0:1]) over 32 work-items."""
  from amdpcode.tinygrad import Remu
  code = amdpcode.engine("rdna3").assemble(text)
  buf = (ctypes.c_char * len(code)).from_buffer_copy(code)
  remu = Remu()
  remu.arch = "rdna3"
  remu.rsrc2 = 2 << 1
  remu.user_data = []
  remu.valid_mem_ranges = {(ctypes.addressof(buf), len(code)), (out.ctypes.data, out.nbytes)}
  return remu, buf


def test_tinygrad_remu_starts_waves_with_the_mode_of_rsrc1():
  # 2^-7 * 2^-8 = 2^-15 is an f16 denormal (0x0200): kept when RSRC1's FLOAT_MODE keeps f16
  # denormals (0xc0: LLVM's default), flushed to +0 with FLOAT_MODE 0.
  text = ("v_mov_b32 v1, 0x2000\nv_mov_b32 v2, 0x1c00\nv_mul_f16 v3, v1, v2\n"
          "v_lshlrev_b32 v1, 2, v0\nglobal_store_b32 v1, v3, s[0:1]\ns_endpgm")
  out = np.zeros(32, dtype=np.uint32)
  remu, buf = _remu_program(text, out)
  for rsrc1, want in [(0xc0 << 12, 0x0200), (0, 0)]:
    remu.rsrc1 = rsrc1
    out[:] = 7
    remu.run_asm(ctypes.addressof(buf), len(buf), 1, 1, 1, 32, 1, 1, out.ctypes.data)
    np.testing.assert_array_equal(out, np.full(32, want, dtype=np.uint32))


def test_tinygrad_capture_replays_through_dispatch_batch(tmp_path, monkeypatch):
  import json
  import subprocess
  import amdpcode.tinygrad as plugin
  capture = tmp_path / "launches.jsonl"
  monkeypatch.setattr(plugin, "_CAPTURE", str(capture))
  out = np.zeros(32, dtype=np.uint32)
  out[5] = 0x1234  # input bytes the capture must carry
  remu, buf = _remu_program("v_lshlrev_b32 v1, 2, v0\nglobal_load_b32 v2, v1, s[0:1]\ns_waitcnt vmcnt(0)\n"
                            "v_add_nc_u32 v2, v2, v0\nglobal_store_b32 v1, v2, s[0:1]\ns_endpgm", out)
  remu.run_asm(ctypes.addressof(buf), len(buf), 1, 1, 1, 32, 1, 1, out.ctypes.data)
  want = np.arange(32, dtype=np.uint32)
  want[5] += 0x1234
  np.testing.assert_array_equal(out, want)
  launch = json.loads(capture.read_text())
  assert launch["arch"] == "rdna3" and launch["grid"] == [1, 1, 1] and launch["block"] == [32, 1, 1]
  binary = ROOT / "target" / "release" / "amdpcode"
  if not binary.exists(): pytest.skip(f"{binary} not built (cargo build --release)")
  r = subprocess.run([str(binary), "dispatch", "--batch", str(capture), "--json"], capture_output=True, text=True)
  assert r.returncode == 0, r.stderr
  result = json.loads(r.stdout.splitlines()[0])
  mem = {int(m["addr"], 16): bytes.fromhex(m["hex"]) for m in result["memory"] if "hex" in m}
  base = out.ctypes.data
  got = b"".join(mem[a] for a in sorted(mem) if base <= a < base + out.nbytes)
  np.testing.assert_array_equal(np.frombuffer(got[:out.nbytes], dtype=np.uint32), want)
