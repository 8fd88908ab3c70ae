# RDNA 4: a VALU reads s4, v_readfirstlane (a VALU) rewrites it, and a VALU reads it before
# the write has committed; the SALU between reads another pair and does not help. LLVM
# (AMDGPUWaitSGPRHazards; llc-22 -mcpu=gfx1200 -run-pass=amdgpu-wait-sgpr-hazards) puts
# s_wait_alu depctr_va_sdst(0) (0xf19f) before the read. Writing an SGPR no VALU has read
# (s6 here) needs no wait.
# arch: rdna4
# wave: 32 64
# expect: hazard 0x10 0x4
v_add_nc_u32 v1, s4, v0
v_readfirstlane_b32 s4, v1
s_add_co_u32 s5, s6, 1
v_readfirstlane_b32 s6, v1
s_wait_alu depctr_va_sdst(0) ; @fix
v_add_nc_u32 v2, s4, v0
s_endpgm
