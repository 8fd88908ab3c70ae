// The code object fixture of tests/dispatch.rs (compiled once and checked in, so the loader
// tests and the fuzzer run without a compiler): clang-22 -x cl -cl-std=CL2.0
// -target amdgcn-amd-amdhsa -mcpu=gfx1100 -nogpulib -Xclang -finclude-default-header -O2
// -c fixture.cl -o fixture.o && ld.lld-22 -shared fixture.o -o fixture-gfx1100.hsaco
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
