# A kernel argument loaded by s_load is used before lgkmcnt(0).
# arch: rdna3
# wave: 32 64
# expect: missing-wait 0x8 0x0
s_load_b64 s[4:5], s[0:1], 0x0
s_waitcnt lgkmcnt(0) ; @fix
s_add_u32 s6, s4, s5
s_endpgm
