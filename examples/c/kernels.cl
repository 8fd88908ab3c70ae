// Kernels of examples/c/dispatch.c, compiled by tests/capi.rs with
// clang-22 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx1100 -nogpulib -O2 and ld.lld-22.
__kernel void vadd(__global const float *a, __global const float *b, __global float *c, uint n) {
  uint i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  if (i < n) c[i] = a[i] + b[i];
}

// Writes p[off] for the first work-item: outside the declared memory when off is large.
__kernel void poke(__global int *p, ulong off) {
  if (__builtin_amdgcn_workitem_id_x() == 0) p[off] = 42;
}
