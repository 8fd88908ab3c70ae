# s_waitcnt_vscnt waits for stores only; the load is still outstanding.
# arch: rdna3
# wave: 32 64
# expect: missing-wait 0x10 0x4
v_mov_b32 v1, 0
global_load_b32 v2, v1, s[0:1]
s_waitcnt_vscnt null, 0x0 ; @bug
s_waitcnt_vmcnt null, 0x0 ; @fix
v_add_nc_u32 v3, v2, 1
s_endpgm
