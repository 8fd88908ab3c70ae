"""amdpcode: execute AMD GPU ISA pseudocode (RDNA 3, RDNA 4, CDNA 4) as AMD wrote it.

- ``eval(inst, arch=..., **inputs)``: one instruction's pseudocode on named inputs.
- ``run(program, arch=..., state=None)``: a wave program (assembly) from an initial state.
- ``dispatch(code_object, kernel, args, grid, block)``: a kernel of a code object over a grid
  of workgroups, on the caller's own buffers (NumPy arrays, bytearrays, bytes); returns the
  buffers after the run.
- ``amdpcode.tinygrad``: an engine for tinygrad's mock GPU, and a pytest plugin
  (``pytest -p amdpcode.tinygrad``).

Errors raise ``amdpcode.Error`` (``amdpcode.FaultError`` when a wave faulted) with the message.
"""
import ctypes
import json
import struct

from ._amdpcode import Engine, Error, FaultError, code_object_arch

__all__ = ["Engine", "Error", "FaultError", "engine", "eval", "run", "dispatch"]

_engines = {}


def engine(arch, engine="jit", spec=None):
  """The cached ``Engine`` for (arch, engine, spec): its JIT kernels are kept across calls."""
  key = (arch, engine, spec)
  if key not in _engines: _engines[key] = Engine(arch, engine, spec)
  return _engines[key]


def eval(inst, arch, wave=32, engine_name="jit", **inputs):  # noqa: A001 (the CLI's verb)
  """Evaluates instruction ``inst``'s pseudocode; inputs are name=value (ints, floats, lists per
  lane, as ``amdpcode eval --batch`` takes them). Returns {output name: value}."""
  return json.loads(engine(arch, engine_name).eval(inst, json.dumps(inputs), wave))


def run(program, arch, state=None, wave=None, engine_name="jit", hex=False):  # noqa: A002
  """Runs a wave program (assembly text, or hex bytes with hex=True) from ``state`` (a dict in
  the ``amdpcode run --state`` format) and returns the final state as a dict."""
  text = None if state is None else json.dumps(state)
  return json.loads(engine(arch, engine_name).run(program, text, wave, hex))


def _host_buffer(obj):
  """(address, length, object to return) of a buffer the kernel may write: writable
  C-contiguous buffers are used in place, read-only ones (bytes) are copied."""
  mv = memoryview(obj)
  if mv.readonly or not mv.c_contiguous:
    obj = bytearray(mv.tobytes())
    mv = memoryview(obj)
  n = mv.nbytes
  if n == 0: return 0, 0, obj
  addr = ctypes.addressof((ctypes.c_char * n).from_buffer(mv.cast("B")))
  return addr, n, obj


def _by_value(value, size, name):
  if isinstance(value, (bytes, bytearray)) and len(value) == size: return bytes(value)
  if hasattr(value, "tobytes") and getattr(value, "nbytes", None) == size: return value.tobytes()
  if isinstance(value, float):
    if size == 4: return struct.pack("<f", value)
    if size == 8: return struct.pack("<d", value)
  if isinstance(value, int):
    try: return value.to_bytes(size, "little", signed=value < 0)
    except OverflowError: raise Error(f"argument {name}: {value} does not fit in {size} bytes") from None
  raise Error(f"argument {name}: cannot pass {type(value).__name__} as {size} bytes")


def dispatch(code_object, kernel, args, grid, block, arch=None, engine_name="jit", step_budget=None, threads=None):
  """Dispatches ``kernel`` of ``code_object`` (bytes) over ``grid`` workgroups of ``block``
  work-items. ``args`` follow the kernel's explicit arguments: a buffer (NumPy array,
  bytearray, bytes) for each global pointer — the kernel sees its address, and may access only
  the buffers passed — and an int, float or NumPy scalar for each value. Returns the buffers
  after the run, in argument order (writable ones are updated in place).

  No other byte of the process is read or written: a store past a buffer raises ``FaultError``
  (nothing is written back then); a load past a buffer reads zero there, and raises only when
  it touches no buffer and reaches a 4 KiB page that holds none (docs/dispatch.md, "Exactly the
  declared bytes").

  ``threads``: the most threads the workgroups run on (None or 0: every core, the engine's
  default; 1: this thread only); results are those of one thread for race-free kernels."""
  if arch is None: arch = code_object_arch(bytes(code_object))
  eng = engine(arch, engine_name)
  eng.threads = threads
  spec = [a for a in eng.kernel_args(bytes(code_object), kernel) if not a[1].startswith("hidden_")]
  if len(args) != len(spec):
    raise Error(f"kernel {kernel} takes {len(spec)} arguments ({', '.join(a[0] for a in spec)}), not {len(args)}")
  kernarg = bytearray(max((o + s for _, _, o, s in spec), default=0))
  ranges, buffers = [], []
  for value, (name, kind, offset, size) in zip(args, spec):
    if kind == "global_buffer":
      addr, n, obj = _host_buffer(value)
      if n: ranges.append((addr, n))
      buffers.append(obj)
      kernarg[offset:offset + 8] = addr.to_bytes(8, "little")
    else:
      kernarg[offset:offset + size] = _by_value(value, size, name)
  g = list(grid) if isinstance(grid, (list, tuple)) else [grid]
  b = list(block) if isinstance(block, (list, tuple)) else [block]
  eng.dispatch_code_object(bytes(code_object), kernel, bytes(kernarg), g, b, ranges, step_budget)
  return buffers
