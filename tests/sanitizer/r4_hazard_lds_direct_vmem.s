# RDNA 4: ds_direct_load overwrites v1 while ds_store_b32 may not have read it yet; on RDNA 4
# the load's own wait_vm_vsrc:0 waits for that (LLVM fixLdsDirectVMEMHazard; llc-22
# -mcpu=gfx1200 -run-pass=post-RA-hazard-rec sets it to 0 here).
# arch: rdna4
# wave: 32 64
# expect: hazard 0x14 0xc
s_mov_b32 m0, 0x20010
v_mov_b32 v1, 0
ds_store_b32 v1, v0
ds_direct_load v1 wait_va_vdst:0 wait_vm_vsrc:1 ; @bug
ds_direct_load v1 wait_va_vdst:0 wait_vm_vsrc:0 ; @fix
s_wait_expcnt 0
s_wait_dscnt 0
v_add_nc_u32 v2, v1, 1
s_endpgm
