# Each work-item writes its LDS slot and reads the mirror slot of another wave: the
# barrier between is missing.
# arch: rdna3
# wave: 32 64
# items: 128
# expect: lds-race 0x4 0x18
# expect: lds-race 0x18 0x4
v_lshlrev_b32 v1, 2, v0
ds_store_b32 v1, v0
s_waitcnt lgkmcnt(0) ; @fix
s_barrier ; @fix
v_sub_nc_u32 v2, 127, v0
v_lshlrev_b32 v2, 2, v2
ds_load_b32 v3, v2
s_waitcnt lgkmcnt(0)
s_endpgm
