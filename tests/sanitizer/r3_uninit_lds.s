# Uninitialised value: an LDS word nothing stored is loaded and used as an address.
# arch: rdna3
# wave: 32 64
# expect: uninit 0x10 0x4
v_lshlrev_b32 v1, 2, v0
ds_store_b32 v1, v1 ; @fix
ds_load_b32 v2, v1
s_waitcnt lgkmcnt(0)
global_load_b32 v3, v2, s[0:1]
s_waitcnt vmcnt(0)
s_endpgm
