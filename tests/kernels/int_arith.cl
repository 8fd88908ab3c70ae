// Integer arithmetic: 32-bit operations, bit manipulation, division and 64-bit math. Each kernel
// reads a and b (n elements each) and writes several results per element, element-major.

// There is no device library: the OpenCL built-ins used here are written out.
static inline int mul_hi_i32(int x, int y) { return (int)(((long)x * (long)y) >> 32); }
static inline uint mul_hi_u32(uint x, uint y) { return (uint)(((ulong)x * (ulong)y) >> 32); }
static inline uint rotl32(uint x, uint s) { return (x << (s & 31)) | (x >> ((32 - s) & 31)); }
static inline ulong mul_hi_u64(ulong x, ulong y) {
  ulong xl = x & 0xffffffff, xh = x >> 32, yl = y & 0xffffffff, yh = y >> 32;
  ulong ll = xl * yl, lh = xl * yh, hl = xh * yl, hh = xh * yh;
  ulong mid = (ll >> 32) + (lh & 0xffffffff) + (hl & 0xffffffff);
  return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

static inline uint gid_1d(uint block) {
  return __builtin_amdgcn_workgroup_id_x() * block + __builtin_amdgcn_workitem_id_x();
}

// 8 results per element.
kernel void int_ops(global const int *a, global const int *b, global int *out, uint n) {
  uint i = gid_1d(__builtin_amdgcn_workgroup_size_x());
  if (i >= n)
    return;
  int x = a[i], y = b[i];
  global int *o = out + 8 * i;
  o[0] = x + y;
  o[1] = x - y;
  o[2] = x * y;
  o[3] = mul_hi_i32(x, y);
  o[4] = (int)mul_hi_u32((uint)x, (uint)y);
  o[5] = (x >> (y & 31)) ^ (int)((uint)x >> ((uint)y >> 27));
  o[6] = (x < y ? x : y) + (x > y ? x : y) * 3;
  o[7] = (x > y ? (uint)x - (uint)y : (uint)y - (uint)x) + (uint)(x < y) + ((uint)x > (uint)y ? 2 : 0);
}

// 8 results per element: bit counts and fields.
kernel void int_bits(global const uint *a, global const uint *b, global uint *out, uint n) {
  uint i = gid_1d(__builtin_amdgcn_workgroup_size_x());
  if (i >= n)
    return;
  uint x = a[i], y = b[i];
  global uint *o = out + 8 * i;
  o[0] = __builtin_popcount(x);
  o[1] = x ? __builtin_clz(x) : 32;
  o[2] = x ? __builtin_ctz(x) : 32;
  o[3] = __builtin_bitreverse32(x);
  o[4] = (x >> (y & 15)) & ((1u << ((y >> 8) & 15)) - 1); // bitfield extract
  o[5] = rotl32(x, y);
  o[6] = __builtin_bswap32(x) ^ y;
  o[7] = (uint)((int)(x << (y & 31)) >> (y & 31)); // sign-extend a low field
}

// Signed and unsigned 32-bit division and remainder (b is never zero; never INT_MIN / -1).
kernel void int_div32(global const int *a, global const int *b, global int *out, uint n) {
  uint i = gid_1d(__builtin_amdgcn_workgroup_size_x());
  if (i >= n)
    return;
  int x = a[i], y = b[i];
  global int *o = out + 4 * i;
  o[0] = x / y;
  o[1] = x % y;
  o[2] = (int)((uint)x / (uint)y);
  o[3] = (int)((uint)x % (uint)y);
}

// 64-bit add/sub/mul/shift/compare and the 128-bit high product, 6 results per element.
kernel void int64_ops(global const long *a, global const long *b, global long *out, uint n) {
  uint i = gid_1d(__builtin_amdgcn_workgroup_size_x());
  if (i >= n)
    return;
  long x = a[i], y = b[i];
  global long *o = out + 6 * i;
  o[0] = x + y;
  o[1] = x - y * 3;
  o[2] = x * y;
  o[3] = (x << (y & 63)) ^ (long)((ulong)x >> ((ulong)y >> 58));
  o[4] = (long)mul_hi_u64((ulong)x, (ulong)y);
  o[5] = (x < y ? x : y) + (long)((ulong)x > (ulong)y);
}

// 64-bit signed and unsigned division and remainder (b nonzero, not LONG_MIN / -1).
kernel void int64_div(global const long *a, global const long *b, global long *out, uint n) {
  uint i = gid_1d(__builtin_amdgcn_workgroup_size_x());
  if (i >= n)
    return;
  long x = a[i], y = b[i];
  global long *o = out + 4 * i;
  o[0] = x / y;
  o[1] = x % y;
  o[2] = (long)((ulong)x / (ulong)y);
  o[3] = (long)((ulong)x % (ulong)y);
}

// Widening multiplies and 24-bit multiply-add (mad24, mul24 use the hardware 24-bit multiplier).
kernel void mul_wide(global const uint *a, global const uint *b, global ulong *out, uint n) {
  uint i = gid_1d(__builtin_amdgcn_workgroup_size_x());
  if (i >= n)
    return;
  uint x = a[i], y = b[i];
  global ulong *o = out + 4 * i;
  o[0] = (ulong)x * (ulong)y;
  o[1] = (ulong)(long)(int)x * (ulong)(long)(int)y;
  o[2] = (ulong)((x & 0xffffff) * (y & 0xffffff) + x);
  // (ulong)(x & 0xffffff) * (y & 0xffffff) + ((ulong)x << 32) is miscompiled by this clang-22
  // at -O2 (v_mad_u64_u32 on the unmasked words); the 24-bit operands come from shifts here.
  o[3] = (ulong)(x >> 8) * (y >> 8) + ((ulong)x << 32);
}
