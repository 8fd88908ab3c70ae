// The kernels of benches/native.py: the same OpenCL C source runs natively on this CPU under
// PoCL and, compiled by clang-22 for gfx1100 and gfx950, on amdpcode. For amdgcn, which has no
// device library here (-nogpulib), the work-item functions and the barrier come from clang's
// builtins; PoCL gets OpenCL's own.
#pragma OPENCL FP_CONTRACT OFF

#ifdef __AMDGCN__
#define AMDGCN_DIM(x, y, z) (d == 0 ? (x) : d == 1 ? (y) : (z))
static inline uint lid(uint d) {
  return AMDGCN_DIM(__builtin_amdgcn_workitem_id_x(), __builtin_amdgcn_workitem_id_y(),
                    __builtin_amdgcn_workitem_id_z());
}
static inline uint gid(uint d) {
  return AMDGCN_DIM(__builtin_amdgcn_workgroup_id_x(), __builtin_amdgcn_workgroup_id_y(),
                    __builtin_amdgcn_workgroup_id_z());
}
static inline uint lsize(uint d) {
  return AMDGCN_DIM(__builtin_amdgcn_workgroup_size_x(), __builtin_amdgcn_workgroup_size_y(),
                    __builtin_amdgcn_workgroup_size_z());
}
static inline uint glid(uint d) { return gid(d) * lsize(d) + lid(d); }
static inline void wg_barrier(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
static inline int iclamp(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }
#else
#define lid(d) get_local_id(d)
#define gid(d) get_group_id(d)
#define glid(d) get_global_id(d)
#define wg_barrier() barrier(CLK_LOCAL_MEM_FENCE)
#define iclamp(x, lo, hi) clamp(x, lo, hi)
#endif

__kernel void vadd(__global const float *a, __global const float *b, __global float *c, uint n) {
  uint i = glid(0);
  if (i < n) c[i] = a[i] + b[i];
}

// Sums 256 elements per workgroup through LDS (a tree of halving steps with barriers).
__kernel void lds_sum(__global const float *in, __global float *out) {
  __local float t[256];
  uint l = lid(0);
  t[l] = in[glid(0)];
  wg_barrier();
  for (uint s = 128; s > 0; s >>= 1) {
    if (l < s) t[l] += t[l + s];
    wg_barrier();
  }
  if (l == 0) out[gid(0)] = t[0];
}

// C = A * B for n x n row-major matrices, n a multiple of 16, in 16 x 16 tiles held in LDS.
__kernel void matmul(__global const float *a, __global const float *b, __global float *c, uint n) {
  __local float ta[16][16];
  __local float tb[16][16];
  uint lx = lid(0), ly = lid(1);
  uint col = glid(0), row = glid(1);
  float acc = 0.0f;
  for (uint k0 = 0; k0 < n; k0 += 16) {
    ta[ly][lx] = a[row * n + k0 + lx];
    tb[ly][lx] = b[(k0 + ly) * n + col];
    wg_barrier();
    for (uint k = 0; k < 16; k++) acc += ta[ly][k] * tb[k][lx];
    wg_barrier();
  }
  c[row * n + col] = acc;
}

// out = a 5 x 5 filter over a w x h image (edges clamped).
__kernel void conv2d(__global const float *img, __constant float *filt, __global float *out, uint w,
                     uint h) {
  int x = glid(0), y = glid(1);
  if (x >= (int)w || y >= (int)h) return;
  float acc = 0.0f;
  for (int dy = -2; dy <= 2; dy++) {
    int yy = iclamp(y + dy, 0, (int)h - 1);
    for (int dx = -2; dx <= 2; dx++) {
      int xx = iclamp(x + dx, 0, (int)w - 1);
      acc += img[yy * w + xx] * filt[(dy + 2) * 5 + dx + 2];
    }
  }
  out[y * w + x] = acc;
}
