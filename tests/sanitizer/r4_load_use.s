# RDNA 4: a global load's result is read without s_wait_loadcnt.
# arch: rdna4
# wave: 32 64
# expect: missing-wait 0x10 0x4
v_mov_b32 v1, 0
global_load_b32 v2, v1, s[0:1]
s_wait_loadcnt 0x0 ; @fix
v_add_nc_u32 v3, v2, v2
s_endpgm
