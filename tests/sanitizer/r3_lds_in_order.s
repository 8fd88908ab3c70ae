# LDS loads return in order: lgkmcnt(1) covers the first, not the second.
# arch: rdna3
# wave: 32 64
# expect: missing-wait 0x20 0xc
v_lshlrev_b32 v1, 2, v0
ds_load_b32 v2, v1
ds_load_b32 v3, v1 offset:256
s_waitcnt lgkmcnt(1)
v_add_nc_u32 v4, v2, 1
v_add_nc_u32 v5, v3, 1 ; @bug
s_waitcnt lgkmcnt(0)
s_endpgm
