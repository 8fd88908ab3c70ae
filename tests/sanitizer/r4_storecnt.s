# RDNA 4: s_wait_storecnt waits for stores, not for the load.
# arch: rdna4
# wave: 32
# expect: missing-wait 0x20 0x10
v_mov_b32 v1, 0
global_store_b32 v1, v1, s[0:1] offset:64
global_load_b32 v2, v1, s[0:1]
s_wait_storecnt 0x0 ; @bug
s_wait_loadcnt 0x0 ; @fix
v_add_nc_u32 v3, v2, 1
s_endpgm
