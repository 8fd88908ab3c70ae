# CDNA: v_div_fmas reads VCC that v_div_scale (a VALU) wrote one instruction earlier; 4
# wait states are required (CDNA 3 ISA 4.5).
# arch: cdna
# expect: hazard 0xc 0x4
v_cvt_f32_u32 v1, v0
v_div_scale_f32 v2, vcc, v1, v1, v1
s_nop 3 ; @fix
v_div_fmas_f32 v3, v2, v2, v2
s_endpgm
