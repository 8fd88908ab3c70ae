# An LDS load's result is read before lgkmcnt is waited.
# arch: rdna3
# wave: 32 64
# expect: missing-wait 0xc 0x4
v_lshlrev_b32 v1, 2, v0
ds_load_b32 v2, v1
s_waitcnt lgkmcnt(0) ; @fix
v_mul_lo_u32 v3, v2, v2
s_endpgm
