# RDNA 4: scalar loads return out of order; kmcnt 1 does not cover the first.
# arch: rdna4
# wave: 32
# expect: missing-wait 0x14 0x0
# expect: missing-wait 0x14 0x8
s_load_b32 s4, s[0:1], 0x0
s_load_b32 s5, s[0:1], 0x4
s_wait_kmcnt 0x1 ; @bug
s_wait_kmcnt 0x0 ; @fix
s_add_co_u32 s6, s4, s5
s_endpgm
