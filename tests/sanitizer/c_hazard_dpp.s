# CDNA: a DPP instruction reads a VGPR the previous VALU wrote; 2 wait states are required
# (CDNA 3 ISA 4.5).
# arch: cdna
# expect: hazard 0x4 0x0
v_mov_b32 v1, v0
s_nop 1 ; @fix
v_mov_b32_dpp v2, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
s_endpgm
