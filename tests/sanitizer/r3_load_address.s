# A loaded index is used as an address before it arrived.
# arch: rdna3
# wave: 32 64
# expect: missing-wait 0xc 0x4
v_mov_b32 v1, 0
global_load_b32 v2, v1, s[0:1]
s_waitcnt vmcnt(0) ; @fix
global_load_b32 v3, v2, s[0:1]
s_waitcnt vmcnt(0)
s_endpgm
