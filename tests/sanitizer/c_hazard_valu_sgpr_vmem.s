# CDNA: a VALU writes an SGPR that the next VMEM instruction uses as its address; the
# manual requires 5 wait states (CDNA 3 ISA 4.5).
# arch: cdna
# expect: hazard 0x18 0x14
v_mov_b32 v1, 0
v_readfirstlane_b32 s4, v1
s_mov_b64 s[6:7], 0
s_add_u32 s4, s4, s0
s_addc_u32 s5, s5, s1
v_readfirstlane_b32 s6, v1
s_nop 4 ; @fix
global_load_dword v2, v1, s[6:7]
s_waitcnt vmcnt(0)
s_endpgm
