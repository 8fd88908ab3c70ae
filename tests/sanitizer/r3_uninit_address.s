# Uninitialised value: a VGPR nothing wrote (v3) goes into a global address.
# arch: rdna3
# wave: 32 64
# expect: uninit 0x8 0x4
v_lshlrev_b32 v1, 2, v0
v_add_nc_u32 v2, v1, v3 ; @bug
v_add_nc_u32 v2, 4, v1 ; @fix
global_load_b32 v4, v2, s[0:1]
s_waitcnt vmcnt(0)
s_endpgm
