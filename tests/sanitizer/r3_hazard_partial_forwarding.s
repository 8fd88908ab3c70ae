# RDNA 3 wave64: a VALU reads v1 (written before a SALU write of EXEC) and v2 (written
# after it) within the forwarding window without s_waitcnt_depctr depctr_va_vdst(0)
# (RDNA 3 ISA, "Data Dependency Resolution"; LLVM fixVALUPartialForwardingHazard).
# arch: rdna3
# wave: 64
# expect: hazard 0x10 0x0
v_mov_b32 v1, v0
s_mov_b64 s[4:5], exec
s_mov_b32 exec_hi, 0
v_mov_b32 v2, 1
s_waitcnt_depctr depctr_va_vdst(0) ; @fix
v_add_nc_u32 v3, v1, v2
s_mov_b64 exec, s[4:5]
s_endpgm
