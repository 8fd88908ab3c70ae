# Uninitialised value through DPP: a DPP source reads other lanes, and each lane's result
# takes the definedness of the lane it reads (the operand is bound by the wave layer's own
# DPP lane selection). Only lane 0 of v1 is written; `quad_perm:[1,1,1,1]` gives lanes 0-3
# lane 1's undefined bits, which then form an address. The fixed twin reads lane 0 in each
# quad: lanes 0-3 are defined, and only they load (lanes 4-31, which read undefined lanes,
# are off).
# arch: rdna3
# wave: 32
# expect: uninit 0x18 0xc
s_mov_b32 exec_lo, 1
v_mov_b32 v1, 0
s_mov_b32 exec_lo, -1
v_mov_b32_dpp v2, v1 quad_perm:[1,1,1,1] row_mask:0xf bank_mask:0xf ; @bug
v_mov_b32_dpp v2, v1 quad_perm:[0,0,0,0] row_mask:0xf bank_mask:0xf ; @fix
s_mov_b32 exec_lo, 15
global_load_b32 v3, v2, s[0:1]
s_waitcnt vmcnt(0)
s_endpgm
