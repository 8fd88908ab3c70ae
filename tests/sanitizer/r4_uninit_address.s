# Uninitialised value: the high word of a 64-bit address pair was never written.
# arch: rdna4
# expect: uninit 0xc 0x0
v_lshlrev_b32 v2, 2, v0
v_mov_b32 v3, 0 ; @fix
v_add_co_u32 v2, vcc_lo, s0, v2
global_load_b32 v4, v[2:3], off
s_wait_loadcnt 0
s_endpgm
