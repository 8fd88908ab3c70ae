# Implicit operands in the wait model: v_cndmask_b32 (VOP2) reads VCC, which a scalar load
# has not yet written.
# arch: rdna3
# expect: missing-wait 0x8 0x0
s_load_b32 vcc_lo, s[0:1], 0x0
s_waitcnt lgkmcnt(0) ; @fix
v_cndmask_b32 v1, 0, v0, vcc_lo
s_endpgm
