# The barrier orders the waves, but the LDS write before it has not been waited for
# (lgkmcnt(0)), so another wave's read after the barrier may miss it.
# arch: rdna3
# wave: 32 64
# items: 128
# expect: missing-wait 0xc 0x4
v_lshlrev_b32 v1, 2, v0
ds_store_b32 v1, v0
s_waitcnt lgkmcnt(0) ; @fix
s_barrier
v_sub_nc_u32 v2, 127, v0
v_lshlrev_b32 v2, 2, v2
ds_load_b32 v3, v2
s_waitcnt lgkmcnt(0)
s_endpgm
