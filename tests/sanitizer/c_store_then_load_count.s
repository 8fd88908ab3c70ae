# CDNA: stores count on vmcnt too, in order with loads: after a load and a store,
# vmcnt(1) covers the load; vmcnt(2) covers nothing.
# arch: cdna
# expect: missing-wait 0x18 0x4
v_mov_b32 v1, 0
global_load_dword v2, v1, s[0:1]
global_store_dword v1, v1, s[0:1] offset:64
s_waitcnt vmcnt(2) ; @bug
s_waitcnt vmcnt(1) ; @fix
v_add_u32 v3, v2, 1
s_waitcnt vmcnt(0)
s_endpgm
