# RDNA 3: lds_direct_load counts on expcnt (LLVM SIInsertWaitcnts: EXP_LDS_ACCESS), and a
# VINTERP instruction's wait_exp field is that wait: v_interp_p10_f32 reads v1 with
# wait_exp:1 while the load is the only one outstanding, then a VALU reads v4 before any
# wait. The fixed twin waits with wait_exp:0 and s_waitcnt expcnt(0).
# arch: rdna3
# wave: 32 64
# expect: missing-wait 0xc 0x8
# expect: missing-wait 0x18 0x14
s_mov_b32 m0, 0x20000
lds_direct_load v1 wait_vdst:0
v_interp_p10_f32 v0, v1, v2, v3 wait_exp:1 ; @bug
v_interp_p10_f32 v0, v1, v2, v3 wait_exp:0 ; @fix
lds_direct_load v4 wait_vdst:0
s_waitcnt expcnt(0) ; @fix
v_add_nc_u32 v5, v4, 1
s_endpgm
