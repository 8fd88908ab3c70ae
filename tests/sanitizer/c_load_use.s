# CDNA: a global load's result is read without s_waitcnt vmcnt.
# arch: cdna
# expect: missing-wait 0xc 0x4
v_mov_b32 v1, 0
global_load_dword v2, v1, s[0:1]
s_waitcnt vmcnt(0) ; @fix
v_add_u32 v3, v2, v2
s_endpgm
