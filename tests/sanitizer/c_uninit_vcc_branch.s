# Uninitialised value: a compare of a VGPR nothing wrote (v7) sets VCC, which decides a
# branch.
# arch: cdna
# expect: uninit 0x4 0x0
v_cmp_gt_u32 vcc, 8, v7 ; @bug
v_cmp_gt_u32 vcc, 8, v0 ; @fix
s_cbranch_vccz 1
v_mov_b32 v1, 1
s_endpgm
