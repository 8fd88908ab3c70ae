# CDNA: with an immediate offset (imm = 1) the SMEM offset field names no SGPR; reading s0
# after the load is fine, reading the loaded s2 is not.
# arch: cdna
# expect: missing-wait 0x8 0x0
s_load_dword s2, s[0:1], 0x8
s_add_u32 s3, s2, 1 ; @bug
s_add_u32 s3, s0, 1 ; @fix
s_waitcnt lgkmcnt(0)
s_endpgm
