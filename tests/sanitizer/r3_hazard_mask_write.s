# RDNA 3 wave64: v_cndmask reads VCC as a lane mask, a SALU overwrites VCC and a SALU
# reads it without s_waitcnt_depctr depctr_sa_sdst(0) between (RDNA 3 ISA, "Data
# Dependency Resolution"; LLVM fixVALUMaskWriteHazard). Not a hazard in wave32.
# arch: rdna3
# wave: 64
# expect: hazard 0xc 0x8
v_cmp_gt_u32_e32 vcc_lo, 32, v0
v_cndmask_b32_e32 v1, 0, v0, vcc_lo
s_mov_b64 vcc, 0
s_waitcnt_depctr depctr_sa_sdst(0) ; @fix
s_cmp_eq_u64 vcc, 0
s_endpgm
