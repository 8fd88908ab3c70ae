# CDNA: a DPP instruction follows v_cmpx, a VALU that writes EXEC; 5 wait states are
# required (CDNA 3 ISA 4.5).
# arch: cdna
# expect: hazard 0xc 0x8
v_mov_b32 v1, v0
s_nop 1
v_cmpx_gt_u32_e32 vcc, 32, v0
s_nop 4 ; @fix
v_mov_b32_dpp v2, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
s_endpgm
