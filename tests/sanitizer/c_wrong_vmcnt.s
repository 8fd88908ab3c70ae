# CDNA: vmcnt(1) after two loads covers the first only.
# arch: cdna
# expect: missing-wait 0x18 0xc
v_mov_b32 v1, 0
global_load_dword v2, v1, s[0:1]
global_load_dword v3, v1, s[0:1] offset:16
s_waitcnt vmcnt(1) ; @bug
s_waitcnt vmcnt(0) ; @fix
v_add_u32 v4, v2, v3
s_endpgm
