# Uninitialised value: SCC from an SGPR the launch did not set (s5) decides a branch.
# arch: rdna3
# wave: 32 64
# expect: uninit 0x4 0x0
s_cmp_eq_u32 s5, 0 ; @bug
s_cmp_eq_u32 s1, 0 ; @fix
s_cbranch_scc1 1
v_mov_b32 v1, 1
s_endpgm
