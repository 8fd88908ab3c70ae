# Implicit operands in the wait model: a CDNA LDS instruction reads M0 (its limit), which a
# scalar load has not yet written.
# arch: cdna
# expect: missing-wait 0x8 0x0
s_load_dword m0, s[0:1], 0x0
s_waitcnt lgkmcnt(0) ; @fix
ds_read_b32 v1, v0
s_waitcnt lgkmcnt(0)
s_endpgm
