# RDNA 4 wave32: v_cndmask reads VCC, a VOPC rewrites it, and the next v_cndmask reads it
# before the VALU write has committed: LLVM (AMDGPUWaitSGPRHazards; llc-22 -mcpu=gfx1200
# -run-pass=amdgpu-wait-sgpr-hazards) puts s_wait_alu depctr_va_vcc(0) (0xff9d) between.
# A scalar load between would also do (it clears every pending SGPR write).
# arch: rdna4
# expect: hazard 0x8 0x4
v_cndmask_b32 v1, 1, v0, vcc_lo
v_cmp_gt_u32 vcc_lo, 4, v0
s_wait_alu depctr_va_vcc(0) ; @fix
v_cndmask_b32 v2, 1, v0, vcc_lo
s_endpgm
