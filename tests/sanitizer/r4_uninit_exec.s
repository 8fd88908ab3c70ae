# Uninitialised value: v_cmpx on a VGPR nothing wrote (v5) switches lanes (EXEC).
# arch: rdna4
# wave: 32 64
# expect: uninit 0x0 0x0
v_cmpx_gt_u32_e32 8, v5 ; @bug
v_cmpx_gt_u32_e32 8, v0 ; @fix
v_mov_b32 v1, 1
s_endpgm
