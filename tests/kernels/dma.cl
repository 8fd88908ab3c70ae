// Instructions the wave layer models natively (docs/wave.md, "Native models"): LDS DMA loads
// (gfx950 global_load_lds_dword), transposing loads (gfx950 ds_read_b64_tr_b16, gfx1200
// global_load_tr_b128) and the clocks (s_memtime / s_memrealtime on gfx950, SHADER_CYCLES and
// MSG_RTN_GET_REALTIME on gfx11/gfx12). Targets without an instruction take a plain path
// computing the same result.

// Each group of 256 loads its 256 words into LDS (by DMA on gfx950: each wave's LDS base is
// wave-uniform, lane l's word lands at base + 4 * l), then out[i] = tile[lid ^ 1] * 3 + 1.
kernel void dma_copy(global uint *src, global uint *out) {
  local uint tile[256];
  uint lid = __builtin_amdgcn_workitem_id_x();
  uint gid = __builtin_amdgcn_workgroup_id_x() * 256 + lid;
#if defined(__gfx950__)
  __builtin_amdgcn_global_load_lds(src + gid, tile + lid / 64 * 64, 4, 0, 0);
  __builtin_amdgcn_s_waitcnt(0);
#else
  tile[lid] = src[gid];
#endif
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  out[gid] = tile[lid ^ 1] * 3u + 1u;
}

typedef short short4v __attribute__((ext_vector_type(4)));
typedef short short8v __attribute__((ext_vector_type(8)));

// One wave: lane l holds E halfwords of a row-major block; the transposing load gives lane m
// element k = element m % E of lane (16 / E) * k + m / E (E = 4 on gfx950, 8 on gfx1200).
// Other targets compute the same permutation with plain loads.
kernel void transpose_load(global short *src, global short *out) {
  uint lid = __builtin_amdgcn_workitem_id_x();
#if defined(__gfx950__)
  local short lds[256];
  for (int i = 0; i < 4; i++)
    lds[lid * 4 + i] = src[lid * 4 + i];
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  short4v v = __builtin_amdgcn_ds_read_tr16_b64_v4i16((local short4v *)(lds + lid * 4));
  for (int k = 0; k < 4; k++)
    out[lid * 4 + k] = v[k];
#elif defined(__gfx1200__)
  short8v v = __builtin_amdgcn_global_load_tr_b128_v8i16((global short8v *)(src + lid * 8));
  for (int k = 0; k < 8; k++)
    out[lid * 8 + k] = v[k];
#else
  uint base = lid / 16 * 16, m = lid % 16;
  for (uint k = 0; k < 8; k++)
    out[lid * 8 + k] = src[(base + 2 * k + m / 8) * 8 + m % 8];
#endif
}

// Reads the cycle clock before, between and after loops of n and 4n iterations, and the
// steady clock around all (out[0] and out[4]); the differences are checked on the host.
// (clang-22 fails on a subtraction of two counter reads in the kernel.)
kernel void clocks(global ulong *out, global uint *sink, uint n) {
  out[0] = __builtin_readsteadycounter();
  out[1] = __builtin_readcyclecounter();
  uint s = 0;
  for (uint i = 0; i < n; i++)
    s = s * 3u + i;
  sink[0] = s;
  out[2] = __builtin_readcyclecounter();
  for (uint i = 0; i < 4 * n; i++)
    s = s * 5u + i;
  sink[1] = s;
  out[3] = __builtin_readcyclecounter();
  out[4] = __builtin_readsteadycounter();
}

// Raw buffer accesses through a V# built by clang (`__builtin_amdgcn_make_buffer_rsrc`: the
// record count in bytes, raw OOB_SELECT on GFX10+): out[i] = src[i] + 1 for the words inside
// `n`; the loads past it read 0 and the stores past it write nothing, so out keeps its
// initial value there.
kernel void buffer_copy(global uint *src, global uint *out, uint n) {
  uint gid = __builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x();
  __amdgpu_buffer_rsrc_t s = __builtin_amdgcn_make_buffer_rsrc(src, (short)0, (int)(n * 4u), 0x30000000);
  __amdgpu_buffer_rsrc_t d = __builtin_amdgcn_make_buffer_rsrc(out, (short)0, (int)(n * 4u), 0x30000000);
  uint v = __builtin_amdgcn_raw_buffer_load_b32(s, (int)(gid * 4u), 0, 0);
  __builtin_amdgcn_raw_buffer_store_b32(v + 1u, d, (int)(gid * 4u), 0, 0);
}
