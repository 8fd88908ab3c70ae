# Uninitialised value: a d16_hi load defines only the high half of v2; the whole register
# then forms an address. The fixed twin defines the low half first (the merge is exact).
# arch: rdna3
# wave: 32 64
# expect: uninit 0x10 0x0
v_lshlrev_b32 v1, 2, v0
v_mov_b32 v2, 0 ; @fix
global_load_d16_hi_b16 v2, v1, s[0:1]
s_waitcnt vmcnt(0)
global_load_b32 v3, v2, s[0:1]
s_waitcnt vmcnt(0)
s_endpgm
