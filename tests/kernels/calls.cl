// Calls that are not inlined: arguments in registers and on the stack, private pointers into the
// caller's frame, nested calls.

static inline uint gid_1d(void) {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
         __builtin_amdgcn_workitem_id_x();
}

__attribute__((noinline)) int poly(int x, int a, int b, int c) { return (a * x + b) * x + c; }

__attribute__((noinline)) long mix64(long x, long y) { return (x ^ (y << 7)) * 0x9e3779b97f4a7c15l; }

__attribute__((noinline)) int nested(int x, int y) { return poly(x, y, 3, -5) + (int)mix64(x, y); }

// poly, mix64 and a call that calls them.
kernel void call_basic(global const int *a, global const int *b, global long *out, uint n) {
  uint i = gid_1d();
  if (i >= n)
    return;
  int x = a[i], y = b[i];
  out[3 * i] = poly(x, y, 17, 4);
  out[3 * i + 1] = mix64(x, y);
  out[3 * i + 2] = nested(y, x);
}

__attribute__((noinline)) void fill(private uint *buf, uint count, uint seed) {
  for (uint k = 0; k < count; k++) {
    seed = seed * 1664525u + 1013904223u;
    buf[k] = seed >> 8;
  }
}

__attribute__((noinline)) uint pick(private const uint *buf, uint count, uint mask) {
  uint s = 0;
  for (uint k = 0; k < count; k++)
    if (mask & (1u << k))
      s += buf[k];
  return s;
}

// A private array in the kernel's frame filled and read by callees through pointers.
kernel void call_private(global const uint *seeds, global uint *out, uint n) {
  uint i = gid_1d();
  if (i >= n)
    return;
  uint buf[24];
  uint seed = seeds[i];
  fill(buf, 24, seed);
  out[2 * i] = pick(buf, 24, seed);
  out[2 * i + 1] = buf[seed % 24];
}

#define ARGS8(p) int p##0, int p##1, int p##2, int p##3, int p##4, int p##5, int p##6, int p##7
#define SUM8(p, w) (p##0 * (w) + p##1 * (w + 1) + p##2 * (w + 2) + p##3 * (w + 3) + \
                    p##4 * (w + 4) + p##5 * (w + 5) + p##6 * (w + 6) + p##7 * (w + 7))
// 40 int arguments: more than the 32 argument VGPRs, so the rest go on the stack.
__attribute__((noinline)) int many_args(ARGS8(a), ARGS8(b), ARGS8(c), ARGS8(d), ARGS8(e)) {
  return SUM8(a, 1) ^ SUM8(b, 11) ^ SUM8(c, 21) ^ SUM8(d, 31) ^ SUM8(e, 41);
}
#define VALS8(x, k) x + k, x * (k + 1), x ^ k, x - k, x + 2 * k, x * 3 + k, x >> (k & 7), k - x

kernel void call_stack_args(global const int *a, global int *out, uint n) {
  uint i = gid_1d();
  if (i >= n)
    return;
  int x = a[i];
  out[i] = many_args(VALS8(x, 1), VALS8(x, 2), VALS8(x, 3), VALS8(x, 4), VALS8(x, 5));
}
