# Uninitialised value through a scratch buffer (GFX10's -O0 spills): `buffer_store_dword
# v1, off, s[4:7], s33 offset:24` defines the slot's bytes and `buffer_load_dword` of the
# same slot returns them defined; a slot nothing stored (offset:28) loads undefined bits,
# which then form a global address. s[4:7] is the loader's scratch V# (swizzled, add_tid,
# index stride 32, OOB_SELECT 2).
# arch: rdna2
# wave: 32
# expect: uninit 0x34 0x28
s_mov_b32 s4, 0
s_mov_b32 s5, 0x80007e00
s_mov_b32 s6, -1
s_mov_b32 s7, 0x20c00000
s_mov_b32 s33, 0
v_lshlrev_b32 v1, 2, v0
buffer_store_dword v1, off, s[4:7], s33 offset:24
buffer_load_dword v6, off, s[4:7], s33 offset:28 ; @bug
buffer_load_dword v6, off, s[4:7], s33 offset:24 ; @fix
s_waitcnt vmcnt(0)
global_load_dword v3, v6, s[0:1]
s_waitcnt vmcnt(0)
s_endpgm
