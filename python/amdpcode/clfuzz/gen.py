"""A generator of random OpenCL C kernels free of undefined behaviour.

``generate(seed, knobs)`` returns a :class:`Case`: the kernel source (prelude included), the
launch shape and the initial buffers, all a pure function of (seed, knobs, GENERATOR_VERSION):
kernel ``seed`` is the same on every machine.

How the kernels avoid undefined and unspecified behaviour:
- Signed arithmetic never overflows: ``+ - *`` and left shifts are computed in ``uint``/``ulong``
  and converted back (integer conversions are modular in every clang, the compiler on both
  sides). Narrow types use ``+ - & | ^`` directly only where the int promotion cannot overflow.
- Shift counts are masked to the operand's width; division and remainder go through helpers
  that return a defined value for a zero divisor and for MIN / -1.
- Loops have trip counts bounded by a mask; nothing reads an uninitialized value.
- Barriers sit only at the kernel's top level, where every work-item reaches them.
- Each work-item stores only into its own slice of the scratch buffers; ``in`` is read-only.
- Atomics only fetch-and-op without using the fetched value, so the final memory is the same
  in every order.
- Floats: ``+ - *`` only (correctly rounded on both sides), ``#pragma OPENCL FP_CONTRACT OFF``
  (and -ffp-contract=off on the command line), float-to-int conversions clamped, and the
  checksum maps every NaN to one pattern (NaN payloads and signs differ between x86 and AMD).
"""
import random
from dataclasses import dataclass, field

GENERATOR_VERSION = 1

# name: (bits, signed)
INT_TYPES = {
    "uchar": (8, False), "char": (8, True), "ushort": (16, False), "short": (16, True),
    "uint": (32, False), "int": (32, True), "ulong": (64, False), "long": (64, True),
}
# vector name: (element type, lanes)
VEC_TYPES = {
    "uint2": ("uint", 2), "int2": ("int", 2), "uint4": ("uint", 4), "int4": ("int", 4),
    "ushort2": ("ushort", 2), "short2": ("short", 2), "ushort4": ("ushort", 4), "short4": ("short", 4),
    "uchar4": ("uchar", 4), "char4": ("char", 4), "ulong2": ("ulong", 2), "long2": ("long", 2),
}
LANE_NAMES = "0123456789abcdef"

# Per-work-item scratch: bytes of each of the four typed buffers a work-item owns.
SLICE = 64
N_IN = 256          # uints in the read-only input (power of two)
# Atomic words: two per kind of operation (32-bit), one per kind (64-bit).
ATOM_OPS = [("GATOM_U32", "add"), ("GATOM_U32", "xor"), ("GATOM_U32", "or"), ("GATOM_U32", "and"),
            ("GATOM_U32", "min"), ("GATOM_U32", "max"), ("GATOM_I32", "min"), ("GATOM_I32", "max")]
ATOM64_OPS = ["add", "xor", "or", "and", "min", "max"]
N_ATOM = 2 * len(ATOM_OPS)
N_ATOM64 = len(ATOM64_OPS)
LDS_WORDS = 256     # the largest block

PRELUDE = r"""
#pragma OPENCL FP_CONTRACT OFF
#ifdef __AMDGCN__
/* clang's amdgcn target: no device library, so only __builtin_amdgcn_* and __atomic_*. */
#define GID() (__builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x())
#define LID() __builtin_amdgcn_workitem_id_x()
#define LSIZE() ((uint)__builtin_amdgcn_workgroup_size_x())
#define BARRIER() do { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); __builtin_amdgcn_s_barrier(); __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); } while (0)
#define ATOM_U32(op, p, v) ((void)__atomic_fetch_##op((p), (uint)(v), __ATOMIC_RELAXED))
#define ATOM_I32(op, p, v) ((void)__atomic_fetch_##op((global int *)(p), (int)(v), __ATOMIC_RELAXED))
#define ATOM_U64(op, p, v) ((void)__atomic_fetch_##op((p), (ulong)(v), __ATOMIC_RELAXED))
#define GATOM_U32 ATOM_U32
#define GATOM_I32 ATOM_I32
#define LATOM_U32 ATOM_U32
#define GATOM_U64 ATOM_U64
#else
/* OpenCL builtins (PoCL on the host CPU). */
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#define GID() ((uint)get_global_id(0))
#define LID() ((uint)get_local_id(0))
#define LSIZE() ((uint)get_local_size(0))
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define GATOM_U32(op, p, v) ((void)atomic_##op((volatile global uint *)(p), (uint)(v)))
#define GATOM_I32(op, p, v) ((void)atomic_##op((volatile global int *)(p), (int)(v)))
#define LATOM_U32(op, p, v) ((void)atomic_##op((volatile local uint *)(p), (uint)(v)))
#define GATOM_U64(op, p, v) ((void)atom_##op((volatile global ulong *)(p), (ulong)(v)))
#endif

static inline int sdiv32(int a, int b) { return (b == 0 || (a == (int)0x80000000 && b == -1)) ? a : a / b; }
static inline int srem32(int a, int b) { return (b == 0 || (a == (int)0x80000000 && b == -1)) ? 0 : a % b; }
static inline uint udiv32(uint a, uint b) { return b == 0 ? a : a / b; }
static inline uint urem32(uint a, uint b) { return b == 0 ? a : a % b; }
static inline long sdiv64(long a, long b) { return (b == 0 || (a == (long)0x8000000000000000UL && b == -1)) ? a : a / b; }
static inline long srem64(long a, long b) { return (b == 0 || (a == (long)0x8000000000000000UL && b == -1)) ? 0 : a % b; }
static inline ulong udiv64(ulong a, ulong b) { return b == 0 ? a : a / b; }
static inline ulong urem64(ulong a, ulong b) { return b == 0 ? a : a % b; }
static inline uint clz32(uint a) { return a ? (uint)__builtin_clz(a) : 32u; }
static inline uint ctz32(uint a) { return a ? (uint)__builtin_ctz(a) : 32u; }
static inline uint clz64(ulong a) { return a ? (uint)__builtin_clzl(a) : 64u; }
static inline uint ctz64(ulong a) { return a ? (uint)__builtin_ctzl(a) : 64u; }
static inline uint rotl32(uint a, uint s) { s &= 31u; return (a << s) | (a >> ((32u - s) & 31u)); }
static inline ulong rotl64(ulong a, uint s) { s &= 63u; return (a << s) | (a >> ((64u - s) & 63u)); }
static inline uint addsat_u32(uint a, uint b) { uint s = a + b; return s < a ? 0xffffffffu : s; }
static inline int addsat_i32(int a, int b) { long s = (long)a + (long)b; return s > 0x7fffffffL ? 0x7fffffff : (s < -0x80000000L ? (int)0x80000000 : (int)s); }
static inline uint mulhi_u32(uint a, uint b) { return (uint)(((ulong)a * (ulong)b) >> 32); }
static inline int mulhi_i32(int a, int b) { return (int)(((long)a * (long)b) >> 32); }
static inline int f2i(float f) { return f != f ? 0 : (f <= -2147483648.0f ? (int)0x80000000 : (f >= 2147483648.0f ? 0x7fffffff : (int)f)); }
static inline uint f2u(float f) { return f != f ? 0u : (f <= 0.0f ? 0u : (f >= 4294967296.0f ? 0xffffffffu : (uint)f)); }
static inline uint fbits(float f) { return f != f ? 0x7fc00000u : as_uint(f); }
static inline ulong mix(ulong h, ulong v) { h ^= v; h *= 0x100000001b3UL; return h ^ (h >> 29); }
"""

INTERESTING = [0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 100, 127, 128, 255, 256,
               0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000,
               0x7fffffffffffffff, 0x8000000000000000, 0xffffffffffffffff, 0xdeadbeef,
               0x0123456789abcdef]
FLOATS = ["0.0f", "-0.0f", "1.0f", "-1.0f", "0.5f", "1.5f", "3.0f", "-2.25f", "1e-40f", "1e-38f",
          "3.0e38f", "-3.0e38f", "16777216.0f", "16777217.0f", "0.1f", "2147483648.0f", "7.0e-3f"]


@dataclass
class Knobs:
  """What the generator may emit; every knob is part of a case's identity."""
  statements: int = 14       # top-level statements
  max_depth: int = 3         # nesting of blocks
  expr_depth: int = 3        # nesting of expressions
  n_vars: int = 8           # at least 3 (a vector, a scalar integer, a float)
  vectors: bool = True
  floats: bool = True
  loops: bool = True
  switches: bool = True
  lds: bool = True
  atomics: bool = True
  atomics64: bool = True
  memory: bool = True        # sub-dword and 64-bit loads/stores, private arrays
  division: bool = True

  def key(self):
    return ",".join(f"{k}={v}" for k, v in sorted(self.__dict__.items()))


@dataclass
class Case:
  seed: int
  source: str
  block: int
  groups: int
  knobs: Knobs
  input_words: list = field(default_factory=list)

  @property
  def items(self):
    return self.block * self.groups


def _uw(t):
  return "uint" if INT_TYPES[t][0] <= 32 else "ulong"


def _sw(t):
  return "int" if INT_TYPES[t][0] <= 32 else "long"


def _lit(value, t):
  bits = INT_TYPES[t][0]
  value &= (1 << 64) - 1
  return f"(({t})0x{value:x}UL)" if bits == 64 or value > 0xffffffff else f"(({t})0x{value:x}u)"


class _Gen:
  def __init__(self, seed, knobs):
    self.r = random.Random(seed)
    self.k = knobs
    self.vars = {}        # name -> type
    self.loop_vars = []   # uint loop counters in scope
    self.n_tmp = 0
    self.out = []
    self.uses_latom = False
    self.uses_arr = False

  # ---- helpers
  def pick(self, seq):
    return self.r.choice(list(seq))

  def chance(self, p):
    return self.r.random() < p

  def const(self, t):
    if self.chance(0.7):
      v = self.pick(INTERESTING)
      if self.chance(0.3): v = (-v) & ((1 << 64) - 1)
    else:
      v = self.r.getrandbits(self.pick([8, 16, 32, 64]))
    return _lit(v, t)

  def int_types(self):
    return list(INT_TYPES)

  def vars_of(self, pred):
    return [n for n, t in self.vars.items() if pred(t)]

  # ---- scalar integer expressions: every result has exactly type t
  def iexpr(self, t, d):
    if d <= 0 or self.chance(0.2):
      return self.ileaf(t)
    kind = self.r.choices(
        ["arith", "narrow", "bit", "shl", "shr", "cmp", "select", "minmax", "unary", "div", "bitcount",
         "mulhi", "rot", "sat", "vec", "float", "load"],
        [10, 4, 6, 4, 4, 4, 5, 4, 3, 3, 2, 2, 2, 2, 3, 3, 4])[0]
    uw, sw = _uw(t), _sw(t)
    a_t, b_t = self.pick(INT_TYPES), self.pick(INT_TYPES)
    a, b = self.iexpr(a_t, d - 1), self.iexpr(b_t, d - 1)
    if kind == "arith":
      op = self.pick("+-*")
      return f"(({t})(({uw}){a} {op} ({uw}){b}))"
    if kind == "narrow":
      if INT_TYPES[t][0] >= 32: return f"(({t})(({uw}){a} ^ ({uw}){b}))"
      a, b = self.iexpr(t, d - 1), self.iexpr(t, d - 1)
      return f"(({t})({a} {self.pick(['+', '-', '&', '|', '^'])} {b}))"
    if kind == "bit":
      return f"(({t})(({uw}){a} {self.pick('&|^')} ({uw}){b}))"
    if kind == "shl":
      w = 32 if uw == "uint" else 64
      return f"(({t})(({uw}){a} << (({uw}){b} & {w - 1}u)))"
    if kind == "shr":
      w = 32 if uw == "uint" else 64
      ty = self.pick([uw, sw])
      return f"(({t})(({ty}){a} >> (({uw}){b} & {w - 1}u)))"
    if kind == "cmp":
      ty = self.pick([uw, sw, a_t])
      op = self.pick(["<", "<=", ">", ">=", "==", "!="])
      return f"(({t})(({ty}){a} {op} ({ty}){b}))"
    if kind == "select":
      c = self.cond(d - 1)
      return f"({c} ? {self.iexpr(t, d - 1)} : {self.iexpr(t, d - 1)})"
    if kind == "minmax":
      ty = self.pick([uw, sw, a_t])
      op = self.pick("<>")
      return f"(({t})((({ty}){a} {op} ({ty}){b}) ? ({ty}){a} : ({ty}){b}))"
    if kind == "unary":
      u = self.pick(["~", "-", "!"])
      if u == "-": return f"(({t})(({uw})0 - ({uw}){a}))"
      return f"(({t})({u}({uw}){a}))"
    if kind == "div":
      if not self.k.division: return f"(({t})(({uw}){a} | ({uw}){b}))"
      if self.chance(0.4): b = self.const(b_t)
      bits = 32 if uw == "uint" else 64
      f = self.pick(["sdiv", "srem", "udiv", "urem"])
      ty = sw if f[0] == "s" else uw
      return f"(({t}){f}{bits}(({ty}){a}, ({ty}){b}))"
    if kind == "bitcount":
      if INT_TYPES[a_t][0] == 64:
        f = self.pick(["clz64", "ctz64", "(uint)__builtin_popcountl"])
        return f"(({t}){f}((ulong){a}))"
      f = self.pick(["clz32", "ctz32", "(uint)__builtin_popcount", "__builtin_bitreverse32"])
      return f"(({t}){f}((uint){a}))"
    if kind == "mulhi":
      f = self.pick(["mulhi_u32", "mulhi_i32"])
      ty = "uint" if f.endswith("u32") else "int"
      return f"(({t}){f}(({ty}){a}, ({ty}){b}))"
    if kind == "rot":
      if uw == "ulong": return f"(({t})rotl64((ulong){a}, (uint){b}))"
      return f"(({t})rotl32((uint){a}, (uint){b}))"
    if kind == "sat":
      f = self.pick(["addsat_u32", "addsat_i32"])
      ty = "uint" if f.endswith("u32") else "int"
      return f"(({t}){f}(({ty}){a}, ({ty}){b}))"
    if kind == "vec" and self.k.vectors:
      vt = self.pick(VEC_TYPES)
      et, n = VEC_TYPES[vt]
      v = self.vexpr(vt, d - 1)
      return f"(({t})({v}).s{LANE_NAMES[self.r.randrange(n)]})"
    if kind == "float" and self.k.floats:
      return f"(({t}){self.pick(['f2i', 'f2u'])}({self.fexpr(d - 1)}))"
    if kind == "load" and self.k.memory:
      return f"(({t}){self.load(d - 1)})"
    return f"(({t})(({uw}){a} + ({uw}){b}))"

  def ileaf(self, t):
    r = self.r.random()
    names = list(self.vars_of(lambda ty: ty in INT_TYPES))
    if r < 0.6 and names:
      return f"(({t}){self.pick(names)})"
    if r < 0.7 and self.loop_vars:
      return f"(({t}){self.pick(self.loop_vars)})"
    if r < 0.75:
      return f"(({t})gid)"
    return self.const(t)

  def cond(self, d):
    t = self.pick(INT_TYPES)
    r = self.r.random()
    if r < 0.6 or not self.k.floats:
      op = self.pick(["<", "<=", ">", ">=", "==", "!="])
      return f"({self.iexpr(t, d)} {op} {self.iexpr(t, d)})"
    if r < 0.85:
      return f"(({self.iexpr(t, d)} & {self.const(t)}) != 0)"
    return f"({self.fexpr(d)} {self.pick(['<', '<=', '==', '!=', '>'])} {self.fexpr(d)})"

  # ---- memory
  def load(self, d):
    """A load of a value (an expression of some integer type)."""
    idx = f"((ulong){self.iexpr(self.pick(INT_TYPES), d)})"
    r = self.r.random()
    if r < 0.5:
      # the read-only input through views of every width, sign-extending ones too
      t = self.pick(["uchar", "char", "ushort", "short", "uint", "int", "ulong"])
      n = N_IN * 4 // (INT_TYPES[t][0] // 8)
      return f"((global const {t} *)in)[{idx} & {n - 1}UL]"
    if r < 0.8 and self.k.memory:
      t, buf = self.pick([("uchar", "m8"), ("ushort", "m16"), ("uint", "m32"), ("ulong", "m64")])
      n = SLICE // (INT_TYPES[t][0] // 8)
      return f"{buf}[base{INT_TYPES[t][0]} + ({idx} & {n - 1}UL)]"
    self.uses_arr = True
    return f"arr[{idx} & 7UL]"

  def store(self, d):
    t, buf = self.pick([("uchar", "m8"), ("ushort", "m16"), ("uint", "m32"), ("ulong", "m64")])
    n = SLICE // (INT_TYPES[t][0] // 8)
    idx = f"((ulong){self.iexpr(self.pick(INT_TYPES), d)})"
    if self.chance(0.2):
      self.uses_arr = True
      return f"arr[{idx} & 7UL] = {self.iexpr('uint', d)};"
    return f"{buf}[base{INT_TYPES[t][0]} + ({idx} & {n - 1}UL)] = {self.iexpr(t, d)};"

  # ---- vectors: only unsigned vectors do arithmetic; signed ones compare, shift right, min/max
  def vexpr(self, vt, d):
    et, n = VEC_TYPES[vt]
    bits, signed = INT_TYPES[et]
    uvt = "u" + vt if signed else vt
    svt = vt if signed else vt[1:]
    names = self.vars_of(lambda ty: ty == vt)
    if d <= 0 or self.chance(0.2):
      if names and self.chance(0.7): return self.pick(names)
      if self.chance(0.5): return f"(({vt})({self.iexpr(et, 0)}))"
      return f"(({vt})({', '.join(self.iexpr(et, 0) for _ in range(n))}))"
    kind = self.r.choices(["arith", "shift", "cmp", "select", "minmax", "swizzle", "convert",
                           "astype", "build"], [8, 4, 3, 3, 3, 3, 3, 2, 3])[0]
    if kind == "arith":
      a, b = self.vexpr(uvt, d - 1), self.vexpr(uvt, d - 1)
      return f"as_{vt}({a} {self.pick('+-*&|^')} {b})"
    if kind == "shift":
      ty = self.pick([uvt, svt])
      a, b = self.vexpr(ty, d - 1), self.vexpr(uvt, d - 1)
      op = self.pick(["<<", ">>"]) if ty == uvt else ">>"
      return f"as_{vt}({a} {op} as_{ty}({b} & ({uvt})({bits - 1})))"
    if kind == "cmp":
      ty = self.pick([uvt, svt])
      a, b = self.vexpr(ty, d - 1), self.vexpr(ty, d - 1)
      return f"as_{vt}({a} {self.pick(['<', '>', '==', '!=', '<=', '>='])} {b})"
    if kind in ("select", "minmax"):
      ty = self.pick([uvt, svt])
      a, b = self.vexpr(ty, d - 1), self.vexpr(ty, d - 1)
      if kind == "minmax":
        return f"as_{vt}(({a} {self.pick('<>')} {b}) ? {a} : {b})"
      c1, c2 = self.vexpr(svt, d - 1), self.vexpr(svt, d - 1)
      return f"as_{vt}(({c1} {self.pick('<>')} {c2}) ? {a} : {b})"
    if kind == "swizzle":
      src = self.pick([v for v in VEC_TYPES if VEC_TYPES[v][0] == et])
      sn = VEC_TYPES[src][1]
      lanes = "".join(LANE_NAMES[self.r.randrange(sn)] for _ in range(n))
      return f"(({vt})(({self.vexpr(src, d - 1)}).s{lanes}))"
    if kind == "convert":
      src = self.pick([v for v in VEC_TYPES if VEC_TYPES[v][1] == n])
      return f"__builtin_convertvector({self.vexpr(src, d - 1)}, {vt})"
    if kind == "astype":
      size = bits * n
      src = self.pick([v for v in VEC_TYPES if INT_TYPES[VEC_TYPES[v][0]][0] * VEC_TYPES[v][1] == size]
                      + [s for s in ("uint", "ulong") if INT_TYPES[s][0] == size])
      inner = self.vexpr(src, d - 1) if src in VEC_TYPES else self.iexpr(src, d - 1)
      return f"as_{vt}({inner})"
    return f"(({vt})({', '.join(self.iexpr(et, d - 1) for _ in range(n))}))"

  # ---- floats
  def fexpr(self, d):
    names = self.vars_of(lambda ty: ty == "float")
    if d <= 0 or self.chance(0.25):
      if names and self.chance(0.6): return self.pick(names)
      if self.chance(0.5): return f"({self.pick(FLOATS)})"
      return f"((float){self.iexpr(self.pick(['int', 'uint', 'long', 'ulong', 'short']), 0)})"
    kind = self.r.choices(["arith", "neg", "conv", "select", "minmax"], [8, 1, 3, 2, 2])[0]
    if kind == "arith":
      return f"({self.fexpr(d - 1)} {self.pick('+-*')} {self.fexpr(d - 1)})"
    if kind == "neg":
      return f"(-{self.fexpr(d - 1)})"
    if kind == "conv":
      return f"((float){self.iexpr(self.pick(['int', 'uint', 'long', 'ulong', 'short', 'uchar']), d - 1)})"
    if kind == "select":
      return f"({self.cond(d - 1)} ? {self.fexpr(d - 1)} : {self.fexpr(d - 1)})"
    a, b = self.fexpr(d - 1), self.fexpr(d - 1)
    return f"(({a} {self.pick('<>')} {b}) ? {a} : {b})"

  # ---- statements
  def expr_of(self, t, d):
    if t in INT_TYPES: return self.iexpr(t, d)
    if t in VEC_TYPES: return self.vexpr(t, d)
    return self.fexpr(d)

  def emit(self, line, ind):
    self.out.append("  " * ind + line)

  def stmt(self, ind, depth, top):
    kinds = ["assign", "assign", "assign", "compound", "if"]
    if depth < self.k.max_depth:
      kinds += ["if"]
      if self.k.loops: kinds += ["for", "while"]
      if self.k.switches: kinds += ["switch"]
    if self.k.memory: kinds += ["store", "store"]
    if self.k.atomics: kinds += ["atomic"]
    if top and self.k.lds: kinds += ["lds", "lds"]
    if top and self.k.lds and self.k.atomics: kinds += ["latomic"]
    if self.loop_vars and depth > 0: kinds += ["break"]
    kind = self.pick(kinds)
    d = self.k.expr_depth
    if kind == "assign":
      v = self.pick(self.vars)
      self.emit(f"{v} = {self.expr_of(self.vars[v], d)};", ind)
    elif kind == "compound":
      cands = self.vars_of(lambda ty: ty in ("uint", "ulong") or (ty in VEC_TYPES and not INT_TYPES[VEC_TYPES[ty][0]][1]))
      if not cands:
        return self.stmt(ind, depth, top)
      v = self.pick(cands)
      self.emit(f"{v} {self.pick(['+=', '-=', '*=', '^=', '|=', '&='])} {self.expr_of(self.vars[v], d)};", ind)
    elif kind == "if":
      self.emit(f"if ({self.cond(d - 1)}) {{", ind)
      self.block(ind + 1, depth + 1)
      if self.chance(0.6):
        self.emit("} else {", ind)
        self.block(ind + 1, depth + 1)
      self.emit("}", ind)
    elif kind == "for":
      i = f"i{self.n_tmp}"
      self.n_tmp += 1
      bound = self.pick([3, 7, 7, 15]) if depth == 0 else 3
      self.emit(f"for (uint {i} = 0; {i} < ({self.iexpr('uint', 1)} & {bound}u); {i}++) {{", ind)
      self.loop_vars.append(i)
      self.block(ind + 1, depth + 1)
      self.loop_vars.pop()
      self.emit("}", ind)
    elif kind == "while":
      w = f"w{self.n_tmp}"
      self.n_tmp += 1
      self.emit(f"uint {w} = 0;", ind)
      self.emit(f"while ({w}++ < {self.pick([2, 4, 8])}u && {self.cond(1)}) {{", ind)
      self.loop_vars.append(w)
      self.block(ind + 1, depth + 1)
      self.loop_vars.pop()
      self.emit("}", ind)
    elif kind == "switch":
      self.emit(f"switch ({self.iexpr('uint', 2)} & 7u) {{", ind)
      for c in sorted(self.r.sample(range(8), self.r.randint(1, 4))):
        self.emit(f"case {c}: {{", ind)
        self.block(ind + 1, depth + 1, n=self.r.randint(1, 2))
        self.emit("}", ind)
        if self.chance(0.8): self.emit("  break;", ind)
      self.emit("default: {", ind)
      self.block(ind + 1, depth + 1, n=1)
      self.emit("}", ind)
      self.emit("}", ind)
    elif kind == "store":
      self.emit(self.store(d), ind)
    elif kind == "atomic":
      # Each word takes one kind of operation only (add and sub commute), so the final value
      # does not depend on the order the work-items reach it.
      if self.k.atomics64 and self.chance(0.25):
        k = self.r.randrange(len(ATOM64_OPS))
        self.emit(f"GATOM_U64({ATOM64_OPS[k]}, &atom64[{k}u], {self.iexpr('ulong', d - 1)});", ind)
      else:
        k = self.r.randrange(len(ATOM_OPS))
        m, op = ATOM_OPS[k]
        if op == "add" and self.chance(0.3): op = "sub"
        self.emit(f"{m}({op}, &atom[{2 * k}u + ({self.iexpr('uint', 1)} & 1u)], {self.iexpr('uint', d - 1)});", ind)
    elif kind == "break":
      self.emit(f"if ({self.cond(1)}) {self.pick(['break', 'continue'])};", ind)
    elif kind == "lds":
      v = self.pick(self.vars)
      t = self.vars[v]
      if t in INT_TYPES and INT_TYPES[t][0] == 16 and self.chance(0.5):
        buf = "lds16"
        val = f"(ushort){v}"
      elif t in INT_TYPES and INT_TYPES[t][0] == 64:
        buf = "lds64"
        val = f"(ulong){v}"
      else:
        buf = "lds"
        val = f"(uint){self.iexpr('uint', 1)}"
      partner = self.pick([f"lid ^ {self.r.randint(1, 127)}u", f"lid + {self.r.randint(1, 200)}u",
                           f"lsize - 1u - lid", f"(uint){self.iexpr('uint', 1)}"])
      self.emit(f"{buf}[lid] = {val};", ind)
      self.emit("BARRIER();", ind)
      got = f"{buf}[({partner}) % lsize]"
      if t in VEC_TYPES:
        et = VEC_TYPES[t][0]
        uvt = t if not INT_TYPES[et][1] else "u" + t
        uet = et if not INT_TYPES[et][1] else "u" + et
        self.emit(f"{v} = as_{t}(as_{uvt}({v}) ^ (({uvt})(({uet}){got})));", ind)
      else:
        self.emit(f"{v} = ({t}){got};", ind)
      self.emit("BARRIER();", ind)
    elif kind == "latomic":
      self.uses_latom = True
      # one statement, one operation, on every work-item: any order gives the same words
      op = self.pick(["add", "xor", "or", "and", "min", "max"])
      v = self.pick(self.vars_of(lambda ty: ty in INT_TYPES))
      t = self.vars[v]
      self.emit(f"LATOM_U32({op}, &latom[{self.iexpr('uint', 1)} & 3u], {self.iexpr('uint', 2)});", ind)
      self.emit("BARRIER();", ind)
      self.emit(f"{v} = ({t})(({_uw(t)}){v} ^ latom[{self.iexpr('uint', 1)} & 3u]);", ind)
      self.emit("BARRIER();", ind)

  def block(self, ind, depth, n=None):
    for _ in range(n if n is not None else self.r.randint(1, 3)):
      self.stmt(ind, depth, top=False)

  # ---- whole kernel
  def kernel(self):
    types = list(INT_TYPES)
    if self.k.vectors: types += list(VEC_TYPES) * 1
    if self.k.floats: types += ["float"]
    for i in range(self.k.n_vars):
      self.vars[f"v{i}"] = self.pick(types)
    # make sure every class is present once when enabled
    if self.k.vectors and not any(t in VEC_TYPES for t in self.vars.values()):
      self.vars["v0"] = self.pick(VEC_TYPES)
    if self.k.floats and "float" not in self.vars.values():
      self.vars[f"v{self.k.n_vars - 1}"] = "float"
    if not any(t in INT_TYPES for t in self.vars.values()):
      self.vars["v1"] = self.pick(INT_TYPES)
    body = []
    self.out = body
    for _ in range(self.k.statements):
      self.stmt(1, 0, top=True)
    head = []
    for v, t in self.vars.items():
      head.append(f"  {t} {v} = {self.init(t)};")
    lines = [PRELUDE,
             "kernel void fuzz(global const uint *in, global ulong *out, global uchar *m8, global ushort *m16,",
             "                 global uint *m32, global ulong *m64, global uint *atom, global ulong *atom64) {",
             "  local uint lds[%d];" % LDS_WORDS,
             "  local ushort lds16[%d];" % LDS_WORDS,
             "  local ulong lds64[%d];" % LDS_WORDS,
             "  local uint latom[4];",
             "  uint gid = GID();",
             "  uint lid = LID();",
             "  uint lsize = LSIZE();",
             f"  ulong base8 = (ulong)gid * {SLICE}UL;",
             f"  ulong base16 = (ulong)gid * {SLICE // 2}UL;",
             f"  ulong base32 = (ulong)gid * {SLICE // 4}UL;",
             f"  ulong base64 = (ulong)gid * {SLICE // 8}UL;",
             "  uint arr[8];",
             "  for (uint i = 0; i < 8u; i++) arr[i] = in[(gid * 8u + i) & %du] ^ i;" % (N_IN - 1),
             "  if (lid < 4u) latom[lid] = lid * 0x01010101u;",
             "  BARRIER();"]
    lines += head + body
    lines.append("  ulong h = 0xcbf29ce484222325UL;")
    for v, t in self.vars.items():
      if t in INT_TYPES:
        lines.append(f"  h = mix(h, (ulong){v});")
      elif t == "float":
        lines.append(f"  h = mix(h, (ulong)fbits({v}));")
      else:
        for i in range(VEC_TYPES[t][1]):
          lines.append(f"  h = mix(h, (ulong){v}.s{LANE_NAMES[i]});")
    lines.append("  for (uint i = 0; i < 8u; i++) h = mix(h, arr[i]);")
    lines.append("  out[gid] = h;")
    lines.append("}")
    return "\n".join(lines) + "\n"

  def init(self, t):
    def word(): return f"in[(gid * {self.r.randrange(1, 64, 2)}u + {self.r.randrange(N_IN)}u) & {N_IN - 1}u]"
    if t in INT_TYPES:
      if INT_TYPES[t][0] == 64:
        return f"({t})(((ulong){word()} << 32) | (ulong){word()})"
      return f"({t})({word()} {self.pick(['+', '^'])} gid)"
    if t == "float":
      return f"((float)(int){word()} * {self.pick(['1.0f', '0.25f', '1e-30f', '3.0e-39f', '1e20f'])})"
    et, n = VEC_TYPES[t]
    parts = []
    for _ in range(n):
      if INT_TYPES[et][0] == 64:
        parts.append(f"({et})(((ulong){word()} << 32) | (ulong)gid)")
      else:
        parts.append(f"({et}){word()}")
    return f"(({t})({', '.join(parts)}))"


def generate(seed, knobs=None):
  """Kernel number ``seed``: the source, launch shape and input words."""
  knobs = knobs or Knobs()
  g = _Gen(seed, knobs)
  src = f"/* amdpcode clfuzz generator {GENERATOR_VERSION}, seed {seed}, knobs {knobs.key()} */\n" + g.kernel()
  block = g.pick([16, 32, 64, 64, 128])
  groups = g.pick([1, 2, 2, 3])
  words = [_input_word(g.r) for _ in range(N_IN)]
  return Case(seed=seed, source=src, block=block, groups=groups, knobs=knobs, input_words=words)


def unit_source(cases):
  """One OpenCL C translation unit holding every kernel of `cases`: the prelude once, then
  each kernel renamed `fuzz_<seed>` (`unit_kernel`), its text otherwise unchanged. A campaign
  compiles and builds the unit once per (target, level) instead of once per kernel; each
  kernel stays reproducible alone from its seed (`generate(seed).source`)."""
  head = None
  parts = []
  for c in cases:
    i = c.source.index("kernel void fuzz(")
    first_line_end = c.source.index("\n") + 1
    prelude = c.source[first_line_end:i]
    if head is None: head = prelude
    elif prelude != head: raise ValueError(f"seed {c.seed}: a prelude unlike the unit's (different generator knobs?)")
    parts.append(c.source[:first_line_end] + c.source[i:].replace("kernel void fuzz(", f"kernel void {unit_kernel(c)}(", 1))
  seeds = ", ".join(str(c.seed) for c in cases)
  return f"/* amdpcode clfuzz unit: seeds {seeds} */\n" + (head or "") + "\n".join(parts)


def unit_kernel(case):
  """The name of `case`'s kernel in a translation unit of several (`unit_source`)."""
  return f"fuzz_{case.seed}"


def _input_word(r):
  x = r.random()
  if x < 0.3: return r.choice([0, 1, 2, 0xffffffff, 0x80000000, 0x7fffffff, 0xffff, 0x8000, 0xff, 0x80, 0x3f800000, 0x00800000, 0x7f800000])
  if x < 0.5: return r.getrandbits(8)
  return r.getrandbits(32)
