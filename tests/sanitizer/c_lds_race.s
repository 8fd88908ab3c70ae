# CDNA: two waves exchange LDS slots without a barrier.
# arch: cdna
# items: 128
# expect: lds-race 0x4 0x18
# expect: lds-race 0x18 0x4
v_lshlrev_b32 v1, 2, v0
ds_write_b32 v1, v0
s_waitcnt lgkmcnt(0) ; @fix
s_barrier ; @fix
v_sub_u32 v2, 127, v0
v_lshlrev_b32 v2, 2, v2
ds_read_b32 v3, v2
s_waitcnt lgkmcnt(0)
s_endpgm
