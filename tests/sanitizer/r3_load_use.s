# A VALU reads the VGPR a global load writes before waiting on vmcnt.
# arch: rdna3
# wave: 32 64
# expect: missing-wait 0xc 0x4
v_mov_b32 v1, 0
global_load_b32 v2, v1, s[0:1]
s_waitcnt vmcnt(0) ; @fix
v_add_nc_u32 v3, v2, v2
global_store_b32 v1, v3, s[0:1] offset:4
s_endpgm
