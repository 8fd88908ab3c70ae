# RDNA 4: an LDS load's result is read without s_wait_dscnt.
# arch: rdna4
# wave: 32 64
# expect: missing-wait 0xc 0x4
v_lshlrev_b32 v1, 2, v0
ds_load_b32 v2, v1
s_wait_dscnt 0x0 ; @fix
v_add_nc_u32 v3, v2, 1
s_endpgm
