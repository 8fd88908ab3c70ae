# RDNA 4: an SWMMAC reads the previous WMMA's result v16 as its sparsity index (src2) with
# no VALU between; LLVM (fixWMMAHazards, GFX12) puts a v_nop between. Its C matrix may
# overlap the previous result (the hardware stalls for that); the index may not.
# arch: rdna4
# expect: hazard 0x14 0x8
v_mov_b32 v16, 0
v_mov_b32 v24, 0
v_wmma_f32_16x16x16_f16 v[16:23], v[0:3], v[4:7], v[16:23]
s_nop 0
v_mov_b32 v32, 0 ; @fix
v_swmmac_f32_16x16x32_f16 v[24:31], v[0:3], v[4:11], v16
s_endpgm
