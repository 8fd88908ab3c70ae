# Two loads in order; vmcnt(1) only guarantees the first, the second is read.
# arch: rdna3
# wave: 32 64
# expect: missing-wait 0x18 0xc
v_mov_b32 v1, 0
global_load_b32 v2, v1, s[0:1]
global_load_b32 v3, v1, s[0:1] offset:16
s_waitcnt vmcnt(1) ; @bug
s_waitcnt vmcnt(0) ; @fix
v_add_nc_u32 v4, v2, v3
s_endpgm
