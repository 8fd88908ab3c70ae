# CDNA: v_readlane's lane select is an SGPR the previous VALU wrote; 4 wait states are
# required (CDNA 3 ISA 4.5).
# arch: cdna
# expect: hazard 0x4 0x0
v_readfirstlane_b32 s4, v0
s_nop 3 ; @fix
v_readlane_b32 s5, v0, s4
s_endpgm
