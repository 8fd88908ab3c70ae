# RDNA 4: ds_direct_load counts on expcnt; v_interp_p10_f32's wait_exp:1 does not wait for
# the one load outstanding, and a VALU reads the second load's v4 with no s_wait_expcnt.
# arch: rdna4
# wave: 32 64
# expect: missing-wait 0xc 0x8
# expect: missing-wait 0x18 0x14
s_mov_b32 m0, 0x20000
ds_direct_load v1 wait_va_vdst:0 wait_vm_vsrc:0
v_interp_p10_f32 v0, v1, v2, v3 wait_exp:1 ; @bug
v_interp_p10_f32 v0, v1, v2, v3 wait_exp:0 ; @fix
ds_direct_load v4 wait_va_vdst:0 wait_vm_vsrc:0
s_wait_expcnt 0 ; @fix
v_add_nc_u32 v5, v4, 1
s_endpgm
