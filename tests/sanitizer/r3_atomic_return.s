# A returning atomic (glc) counts on vmcnt; its result is read without a wait.
# arch: rdna3
# wave: 32 64
# expect: missing-wait 0x10 0x8
v_mov_b32 v1, 0
v_mov_b32 v3, 1
global_atomic_add_u32 v2, v1, v3, s[0:1] glc
s_waitcnt vmcnt(0) ; @fix
v_add_nc_u32 v4, v2, 1
s_endpgm
