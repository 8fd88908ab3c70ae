# Lane masks are one SGPR in wave32: v_cndmask's select, VOPC/VOP3 compare and carry
# destinations, carry-ins, v_readlane/v_writelane lane selects and s_and_saveexec_b32 name
# s7 alone, and the implicit VCC is vcc_lo alone (LLVM allocates vcc_hi as an ordinary SGPR),
# so none of them touches s8 or vcc_hi while the loads into them are outstanding. The bug
# is only the two reads at the end. The s_wait_alu lines are RDNA 4's SGPR read hazards (a
# VALU reading s7 or VCC that a VALU rewrote since an earlier VALU read them).
# arch: rdna4
# wave: 32
# expect: missing-wait 0x68 0x0
# expect: missing-wait 0x6c 0x8
s_load_b64 s[8:9], s[0:1], 0x0
s_load_b32 vcc_hi, s[0:1], 0x8
v_cndmask_b32_e64 v1, 0, 0x36d8a566, s7
v_cmp_gt_u32_e64 s7, 32, v0
v_cmp_gt_u32_e32 vcc_lo, 16, v0
v_cndmask_b32_e32 v2, 0, v0, vcc_lo
v_add_co_u32 v3, s7, v0, v1
s_wait_alu depctr_va_sdst(0)
v_add_co_ci_u32_e64 v4, s7, v0, v3, s7
v_add_co_ci_u32_e32 v5, vcc_lo, v0, v4, vcc_lo
s_wait_alu depctr_va_vcc(0)
v_cndmask_b32_e64 v6, v1, v2, vcc_lo
s_wait_alu depctr_va_sdst(0)
v_readlane_b32 s10, v6, s7
v_writelane_b32 v7, s7, s7
s_and_saveexec_b32 s7, exec_lo
s_wait_kmcnt 0 ; @fix
s_mov_b32 s11, s8
s_mov_b32 s12, vcc_hi
s_endpgm
