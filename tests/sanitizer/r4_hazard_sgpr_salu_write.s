# RDNA 4: a VALU reads s4 (so the hardware tracks s[4:5]), a SALU rewrites s4, and a VALU
# reads it again before the SALU write has committed: LLVM's AMDGPUWaitSGPRHazards puts
# s_wait_alu depctr_sa_sdst(0) before the second read (llc-22 -mcpu=gfx1200
# -run-pass=amdgpu-wait-sgpr-hazards on the same three instructions inserts 0xff9e there).
# arch: rdna4
# wave: 32 64
# expect: hazard 0x8 0x4
v_add_nc_u32 v1, s4, v0
s_mov_b32 s4, 7
s_wait_alu depctr_sa_sdst(0) ; @fix
v_add_nc_u32 v2, s4, v0
s_endpgm
