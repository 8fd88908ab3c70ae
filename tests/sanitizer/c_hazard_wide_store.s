# CDNA (gfx940+): a VALU overwrites the data VGPRs of a store of more than 64 bits in the
# next 2 wait states (CDNA 3 ISA 4.5).
# arch: cdna
# expect: hazard 0x1c 0x14
v_mov_b32 v1, 0
v_mov_b32 v4, 1
v_mov_b32 v5, 2
v_mov_b32 v6, 3
v_mov_b32 v7, 4
global_store_dwordx4 v1, v[4:7], s[0:1]
s_nop 1 ; @fix
v_mov_b32 v5, 0
s_endpgm
