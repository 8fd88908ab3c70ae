# RDNA 4: ds_direct_load overwrites v2, which a VALU wrote with one VALU between, with
# wait_va_vdst:2 (LLVM fixLdsDirectVALUHazard; llc-22 -mcpu=gfx1200
# -run-pass=post-RA-hazard-rec on the same instructions gives wait_va_vdst:1).
# arch: rdna4
# wave: 32 64
# expect: hazard 0x10 0x8
s_mov_b32 m0, 0x20000
v_mov_b32 v2, v0
v_mov_b32 v3, 1
ds_direct_load v2 wait_va_vdst:2 wait_vm_vsrc:0 ; @bug
ds_direct_load v2 wait_va_vdst:1 wait_vm_vsrc:0 ; @fix
s_wait_expcnt 0
v_add_nc_u32 v4, v2, v3
s_endpgm
