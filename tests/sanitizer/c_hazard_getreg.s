# CDNA: s_getreg reads the MODE register the previous s_setreg wrote; 2 wait states are
# required (CDNA 3 ISA 4.5).
# arch: cdna
# expect: hazard 0x8 0x0
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0
s_nop 1 ; @fix
s_getreg_b32 s4, hwreg(HW_REG_MODE, 0, 4)
s_endpgm
