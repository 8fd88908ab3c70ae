# Scalar loads return out of order: lgkmcnt(1) does not guarantee the first one.
# arch: rdna3
# wave: 32 64
# expect: missing-wait 0x14 0x0
s_load_b32 s4, s[0:1], 0x0
s_load_b32 s5, s[0:1], 0x4
s_waitcnt lgkmcnt(1) ; @bug
s_waitcnt lgkmcnt(0) ; @fix
s_add_u32 s6, s4, 1
s_endpgm
