# RDNA 4: the split barrier (signal, wait) between the LDS write and the other waves' read
# is missing.
# arch: rdna4
# wave: 32 64
# items: 128
# expect: lds-race 0x4 0x18
# expect: lds-race 0x18 0x4
v_lshlrev_b32 v1, 2, v0
ds_store_b32 v1, v0
s_wait_dscnt 0x0 ; @fix
s_barrier_signal -1 ; @fix
s_barrier_wait -1 ; @fix
v_sub_nc_u32 v2, 127, v0
v_lshlrev_b32 v2, 2, v2
ds_load_b32 v3, v2
s_wait_dscnt 0x0
s_endpgm
