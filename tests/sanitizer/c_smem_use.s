# CDNA: a scalar load is used before lgkmcnt(0).
# arch: cdna
# expect: missing-wait 0x8 0x0
s_load_dwordx2 s[4:5], s[0:1], 0x0
s_waitcnt lgkmcnt(0) ; @fix
s_add_u32 s6, s4, s5
s_endpgm
