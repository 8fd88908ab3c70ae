# Uninitialised value through an AGPR: `v_accvgpr_write_b32` gives an AGPR the definedness
# of its source and `v_accvgpr_read_b32` gives it back (clang's -O0 code for gfx90a spills
# SGPR lanes to AGPRs this way); an AGPR nothing wrote (a3) reads undefined bits, which
# then form a global address.
# arch: cdna2
# expect: uninit 0x18 0xc
v_lshlrev_b32 v1, 2, v0
v_accvgpr_write_b32 a2, v1
v_accvgpr_read_b32 v3, a3 ; @bug
v_accvgpr_read_b32 v3, a2 ; @fix
s_nop 1
global_load_dword v4, v3, s[0:1]
s_waitcnt vmcnt(0)
s_endpgm
