# RDNA 4: a WMMA reads the previous WMMA's result v[16:19] as its A matrix with no VALU
# between; LLVM (fixWMMAHazards) puts a v_nop between: any VALU will do, an s_nop does not.
# arch: rdna4
# expect: hazard 0x14 0x8
v_mov_b32 v16, 0
v_mov_b32 v24, 0
v_wmma_f32_16x16x16_f16 v[16:23], v[0:3], v[4:7], v[16:23]
s_nop 0
v_mov_b32 v32, 0 ; @fix
v_wmma_f32_16x16x16_f16 v[24:31], v[16:19], v[4:7], v[24:31]
s_endpgm
