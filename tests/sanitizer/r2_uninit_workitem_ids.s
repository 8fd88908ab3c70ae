# Uninitialised value: on GFX10 (and gfx908) the loader writes the y and z work-item ids to
# v1 and v2 when RSRC2 enables them (here x and y), so v1 is defined and v2 is not.
# arch: rdna2
# wave: 32 64
# block: 16 2
# rsrc2: 0x804
# expect: uninit 0x4 0x0
v_lshlrev_b32 v3, 2, v2 ; @bug
v_lshlrev_b32 v3, 2, v1 ; @fix
global_load_dword v4, v3, s[0:1]
s_waitcnt vmcnt(0)
s_endpgm
