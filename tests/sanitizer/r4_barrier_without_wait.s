# RDNA 4: the LDS write is not waited (dscnt) before the barrier signal.
# arch: rdna4
# wave: 32
# items: 128
# expect: missing-wait 0xc 0x4
v_lshlrev_b32 v1, 2, v0
ds_store_b32 v1, v0
s_wait_dscnt 0x0 ; @fix
s_barrier_signal -1
s_barrier_wait -1
v_sub_nc_u32 v2, 127, v0
v_lshlrev_b32 v2, 2, v2
ds_load_b32 v3, v2
s_wait_dscnt 0x0
s_endpgm
