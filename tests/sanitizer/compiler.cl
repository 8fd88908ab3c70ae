// Compiler output the sanitizer must pass clean (tests/sanitizer.rs compiles it with clang-22
// at -O0 and -O2 for gfx1100, gfx1200 and gfx950): the dispatch fixture plus a kernel with
// a private array (scratch at -O0) and an LDS reduction behind a barrier.
__kernel void vadd(__global const float *a, __global const float *b, __global float *c, uint n) {
  uint i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  if (i < n) c[i] = a[i] + b[i];
}

// Sums each workgroup's 64 values in LDS, halving the active threads after each barrier.
__kernel void lds_sum(__global const int *a, __global int *out) {
  __local int tmp[64];
  uint l = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  tmp[l] = a[g * 64 + l];
  for (uint s = 32; s > 0; s >>= 1) {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    __builtin_amdgcn_s_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
    if (l < s) tmp[l] += tmp[l + s];
  }
  if (l == 0) out[g] = tmp[0];
}

// A strided loop with a private array (scratch at -O0) and a reduction through LDS.
__kernel void mix(__global const int *a, __global int *out, uint n) {
  __local int tmp[256];
  uint l = __builtin_amdgcn_workitem_id_x();
  uint g = __builtin_amdgcn_workgroup_id_x();
  int priv[4];
  for (int k = 0; k < 4; k++) priv[k] = a[(g * __builtin_amdgcn_workgroup_size_x() + l + k) % n];
  int s = 0;
  for (int k = 0; k < 4; k++) s += priv[k] * (k + 1);
  tmp[l] = s;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  if (l == 0) {
    int t = 0;
    for (uint k = 0; k < __builtin_amdgcn_workgroup_size_x(); k++) t += tmp[k];
    out[g] = t;
  }
}

// 64-bit floats the way tinygrad's generated code uses them: a select between double
// constants (the high words become `v_cndmask_b32_e64` with a literal and, at -O0, an SGPR
// lane mask) and a conversion, with the kernel arguments' scalar loads in flight.
__kernel void f64_where(__global double *out, __global const double *a, __global const int *m) {
  uint i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  double x = a[i];
  double y = m[i] != 0 ? 1.0e-5 : 3.5;
  out[i] = (x < 0.5 ? x * 2.0 : y) + (double)i;
}
