// Wave intrinsics: ballot, readfirstlane, DPP, ds_swizzle, ds_bpermute, permlane, readlane.
// WAVE (32 or 64) is defined by the test for the target's wave size. Groups are whole waves.

static inline uint lane_id(void) {
#if WAVE == 64
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
#else
  return __builtin_amdgcn_mbcnt_lo(~0u, 0u);
#endif
}

static inline uint gid_1d(void) {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
         __builtin_amdgcn_workitem_id_x();
}

static inline ulong ballot(bool p) {
#if WAVE == 64
  return __builtin_amdgcn_ballot_w64(p);
#else
  return __builtin_amdgcn_ballot_w32(p);
#endif
}

// Per lane: the ballot of bit 0 over the wave (low, high word), the count of set lanes below this
// one, and the ballot of bit 0 among the lanes that have bit 1 set (others write ~0).
kernel void ballot_bits(global const uint *data, global uint *out) {
  uint i = gid_1d();
  uint v = data[i];
  ulong all = ballot(v & 1);
  ulong below = all & ((1ul << lane_id()) - 1);
  uint sub = ~0u;
  if (v & 2)
    sub = (uint)ballot((v & 1) != 0) ^ (uint)(ballot((v & 1) != 0) >> 32);
  out[4 * i] = (uint)all;
  out[4 * i + 1] = (uint)(all >> 32);
  out[4 * i + 2] = __builtin_popcountl(below);
  out[4 * i + 3] = sub;
}

// readfirstlane of the whole wave and of the lanes with bit 2 set; readlane of lane 5 and of the
// last lane.
kernel void first_lane(global const uint *data, global uint *out) {
  uint i = gid_1d();
  uint v = data[i];
  out[4 * i] = __builtin_amdgcn_readfirstlane(v * 3 + 1);
  uint f = 0xdeadbeef;
  if (v & 4)
    f = __builtin_amdgcn_readfirstlane(v);
  out[4 * i + 1] = f;
  out[4 * i + 2] = __builtin_amdgcn_readlane(v, 5);
  out[4 * i + 3] = __builtin_amdgcn_readlane(v ^ 0x55, WAVE - 1);
}

// DPP: row_shr:3 (bound_ctrl off keeps old; on writes 0), quad_perm [3,2,1,0], row_ror:5,
// row_mirror, and a DPP add of row_shr:1.
kernel void dpp_moves(global const int *data, global int *out) {
  uint i = gid_1d();
  int v = data[i];
  int old = (int)i * 7;
  global int *o = out + 6 * i;
  o[0] = __builtin_amdgcn_update_dpp(old, v, 0x113, 0xf, 0xf, false);
  o[1] = __builtin_amdgcn_update_dpp(old, v, 0x113, 0xf, 0xf, true);
  o[2] = __builtin_amdgcn_update_dpp(old, v, 0x1b, 0xf, 0xf, false);
  o[3] = __builtin_amdgcn_update_dpp(old, v, 0x125, 0xf, 0xf, false);
  o[4] = __builtin_amdgcn_mov_dpp(v, 0x140, 0xf, 0xf, false);
  o[5] = v + __builtin_amdgcn_update_dpp(0, v, 0x111, 0xf, 0xf, true);
}

// ds_swizzle: xor 1 (bitmask mode), broadcast lane 2 of each group of 8 (and/or masks), quad
// permute [3,2,1,0] (quad mode), and a butterfly sum over each 32 lanes (xor 1..16).
kernel void swizzle(global const int *data, global int *out) {
  uint i = gid_1d();
  int v = data[i];
  global int *o = out + 4 * i;
  o[0] = __builtin_amdgcn_ds_swizzle(v, 0x041f);
  o[1] = __builtin_amdgcn_ds_swizzle(v, 0x0058);
  o[2] = __builtin_amdgcn_ds_swizzle(v, 0x801b);
  int s = v;
  s += __builtin_amdgcn_ds_swizzle(s, 0x041f);
  s += __builtin_amdgcn_ds_swizzle(s, 0x081f);
  s += __builtin_amdgcn_ds_swizzle(s, 0x101f);
  s += __builtin_amdgcn_ds_swizzle(s, 0x201f);
  s += __builtin_amdgcn_ds_swizzle(s, 0x401f);
  o[3] = s;
}

// ds_bpermute: reverse the wave, a strided gather, and the lane named by the data itself.
kernel void bpermute(global const int *data, global int *out) {
  uint i = gid_1d();
  uint l = lane_id();
  int v = data[i];
  global int *o = out + 3 * i;
  o[0] = __builtin_amdgcn_ds_bpermute((int)((WAVE - 1 - l) * 4), v);
  o[1] = __builtin_amdgcn_ds_bpermute((int)(((l * 7 + 3) % WAVE) * 4), v);
  o[2] = __builtin_amdgcn_ds_bpermute(v & 0xfc, v ^ (int)l);
}

// Lane permutes: on RDNA, v_permlane16 and v_permlanex16 with selects from the arguments; on
// gfx950, v_permlane32_swap and v_permlane16_swap.
kernel void permlane(global const uint *data, global uint *out, uint sel_lo, uint sel_hi) {
  uint i = gid_1d();
  uint v = data[i];
  uint old = i * 5;
  global uint *o = out + 4 * i;
#if defined(__gfx950__)
  __attribute__((ext_vector_type(2))) uint r = __builtin_amdgcn_permlane32_swap(old, v, false, false);
  o[0] = r.x;
  o[1] = r.y;
  r = __builtin_amdgcn_permlane16_swap(old, v, false, false);
  o[2] = r.x;
  o[3] = r.y;
#elif defined(__GFX9__)
  // gfx908, gfx90a, gfx942: no permlane instruction; the suite runs no case of this kernel.
#else
  o[0] = __builtin_amdgcn_permlane16(old, v, sel_lo, sel_hi, false, false);
  o[1] = __builtin_amdgcn_permlanex16(old, v, sel_lo, sel_hi, false, false);
  o[2] = __builtin_amdgcn_permlane16(old, v, sel_hi, sel_lo, false, false) + v;
  o[3] = __builtin_amdgcn_permlanex16(old, v ^ sel_lo, sel_hi, sel_lo, false, false);
#endif
}

// A wave-wide sum from DPP row shifts and readlane, written by the first lane of each wave.
kernel void wave_sum(global const uint *data, global uint *sums) {
  uint i = gid_1d();
  uint v = data[i];
  // Sum within rows of 16: row_shr 1, 2, 4, 8 with zero fill; lane 15 of each row holds the sum.
  v += __builtin_amdgcn_update_dpp(0, v, 0x111, 0xf, 0xf, true);
  v += __builtin_amdgcn_update_dpp(0, v, 0x112, 0xf, 0xf, true);
  v += __builtin_amdgcn_update_dpp(0, v, 0x114, 0xf, 0xf, true);
  v += __builtin_amdgcn_update_dpp(0, v, 0x118, 0xf, 0xf, true);
  uint total = 0;
  for (int r = 0; r < WAVE / 16; r++)
    total += __builtin_amdgcn_readlane(v, 16 * r + 15);
  if (lane_id() == 0)
    sums[i / WAVE] = total;
}
