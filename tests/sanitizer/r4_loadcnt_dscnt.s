# RDNA 4: s_wait_loadcnt_dscnt 0x100 waits for LDS (dscnt 0) but leaves one load (loadcnt 1).
# arch: rdna4
# wave: 32
# expect: missing-wait 0x24 0x4
v_lshlrev_b32 v1, 2, v0
global_load_b32 v2, v1, s[0:1]
ds_load_b32 v3, v1
s_wait_loadcnt_dscnt 0x100 ; @bug
s_wait_loadcnt_dscnt 0x0 ; @fix
v_add_nc_u32 v4, v3, 1
v_add_nc_u32 v5, v2, 1
s_endpgm
