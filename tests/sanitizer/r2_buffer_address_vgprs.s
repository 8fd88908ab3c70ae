# Operand sizes of buffer addresses: a MUBUF address VGPR is read only with `offen`/`idxen`
# (one register each, a pair with both); `off` reads none. The scratch loads below run
# while a global load into v1 is outstanding: with `off` they read no VGPR (before, `off`
# was taken to read v[0:1]); with `offen v1` the load reads v1 too early.
# arch: rdna2
# wave: 32
# expect: missing-wait 0x2c 0x1c
s_mov_b32 s4, 0
s_mov_b32 s5, 0x80007e00
s_mov_b32 s6, -1
s_mov_b32 s7, 0x20c00000
v_mov_b32 v2, 0
global_load_dword v1, v2, s[0:1]
buffer_load_dword v6, off, s[4:7], 0 offset:24
buffer_load_dword v7, v1, s[4:7], 0 offen offset:24 ; @bug
s_waitcnt vmcnt(0)
s_endpgm
