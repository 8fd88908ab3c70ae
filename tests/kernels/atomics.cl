// Atomics on global memory and LDS: histograms, min/max, compare-exchange loops, compaction.

static inline void wg_barrier(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

static inline uint gid_1d(void) {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
         __builtin_amdgcn_workitem_id_x();
}

// Histogram with global atomic adds (GNU __atomic builtins).
kernel void hist_global(global const uint *data, global uint *bins, uint n, uint nbins) {
  uint i = gid_1d();
  if (i < n)
    __atomic_fetch_add(&bins[data[i] % nbins], 1u, __ATOMIC_RELAXED);
}

// Histogram in LDS (OpenCL atomics, workgroup scope), merged into the global bins at the end.
kernel void hist_lds(global const uint *data, global uint *bins, uint n) {
  local atomic_uint lbins[64];
  uint lid = __builtin_amdgcn_workitem_id_x();
  uint block = __builtin_amdgcn_workgroup_size_x();
  for (uint b = lid; b < 64; b += block)
    __opencl_atomic_store(&lbins[b], 0u, memory_order_relaxed, memory_scope_work_group);
  wg_barrier();
  uint i = gid_1d();
  if (i < n)
    __opencl_atomic_fetch_add(&lbins[data[i] & 63], 1u, memory_order_relaxed,
                              memory_scope_work_group);
  wg_barrier();
  for (uint b = lid; b < 64; b += block) {
    uint v = __opencl_atomic_load(&lbins[b], memory_order_relaxed, memory_scope_work_group);
    if (v)
      __opencl_atomic_fetch_add((volatile global atomic_uint *)&bins[b], v, memory_order_relaxed,
                                memory_scope_device);
  }
}

// Global signed/unsigned min and max; per-group min/max through LDS atomics.
// result: [min i32, max i32, min u32, max u32] (preset by the host); group: 2 per group.
kernel void atomic_minmax(global const int *data, global int *result, global int *group, uint n) {
  local int lmin, lmax;
  uint lid = __builtin_amdgcn_workitem_id_x();
  if (lid == 0) {
    lmin = 0x7fffffff;
    lmax = (int)0x80000000;
  }
  wg_barrier();
  uint i = gid_1d();
  if (i < n) {
    int v = data[i];
    __atomic_fetch_min(&result[0], v, __ATOMIC_RELAXED);
    __atomic_fetch_max(&result[1], v, __ATOMIC_RELAXED);
    __atomic_fetch_min((global uint *)&result[2], (uint)v, __ATOMIC_RELAXED);
    __atomic_fetch_max((global uint *)&result[3], (uint)v, __ATOMIC_RELAXED);
    __atomic_fetch_min(&lmin, v, __ATOMIC_RELAXED);
    __atomic_fetch_max(&lmax, v, __ATOMIC_RELAXED);
  }
  wg_barrier();
  if (lid == 0) {
    group[2 * __builtin_amdgcn_workgroup_id_x()] = lmin;
    group[2 * __builtin_amdgcn_workgroup_id_x() + 1] = lmax;
  }
}

// Compare-exchange loops whose results do not depend on the order of the updates: a 64-bit
// sum, a float max (on the bit pattern of non-negative floats), and a saturating u32 sum in LDS.
// result: [u64 sum, f32 max bits | pad]; group: saturated sum per group.
kernel void cas_loops(global const uint *data, global ulong *sum, global uint *fmax,
                      global uint *group, uint n, uint cap) {
  local uint lsat;
  uint lid = __builtin_amdgcn_workitem_id_x();
  if (lid == 0)
    lsat = 0;
  wg_barrier();
  uint i = gid_1d();
  if (i < n) {
    uint v = data[i];
    ulong old = __atomic_load_n(sum, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(sum, &old, old + (ulong)v * 0x10001ul, false,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      ;
    float f = (float)(v & 0xffffff) * 0.37f;
    uint seen = __atomic_load_n(fmax, __ATOMIC_RELAXED);
    while (as_float(seen) < f &&
           !__atomic_compare_exchange_n(fmax, &seen, as_uint(f), false, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
      ;
    uint s = __atomic_load_n(&lsat, __ATOMIC_RELAXED);
    uint add = v & 0xfff;
    while (!__atomic_compare_exchange_n(&lsat, &s, s + add > cap ? cap : s + add, false,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      ;
  }
  wg_barrier();
  if (lid == 0)
    group[__builtin_amdgcn_workgroup_id_x()] = lsat;
}

// Stream compaction: the elements divisible by 3 appended through an atomic counter (their order
// depends on the schedule; the test compares the sorted set), plus an exchange that leaves the
// last writer's value (checked to be one of the candidates).
kernel void compact(global const uint *data, global uint *out, global uint *count,
                    global uint *last, uint n) {
  uint i = gid_1d();
  if (i < n && data[i] % 3 == 0) {
    uint slot = __atomic_fetch_add(count, 1u, __ATOMIC_RELAXED);
    out[slot] = data[i];
    __atomic_exchange_n(last, data[i], __ATOMIC_RELAXED);
  }
}
