# RDNA 3: a VALU reads a transcendental's result two VALUs later without
# s_waitcnt_depctr depctr_va_vdst(0) (RDNA 3 ISA, "Data Dependency Resolution"; LLVM
# fixVALUTransUseHazard: within 5 VALUs / 1 transcendental).
# arch: rdna3
# wave: 32 64
# expect: hazard 0x10 0x4
v_cvt_f32_u32 v1, v0
v_sqrt_f32 v2, v1
v_mov_b32 v3, 1.0
v_mul_f32 v4, v3, v1
s_waitcnt_depctr depctr_va_vdst(0) ; @fix
v_add_f32 v5, v2, v4
s_endpgm
