# RDNA 3: lds_direct_load overwrites v1 while ds_store_b32 may not have read it (its address)
# yet. LLVM (fixLdsDirectVMEMHazard; llc-22 -mcpu=gfx1100 -run-pass=post-RA-hazard-rec)
# puts s_waitcnt_depctr depctr_vm_vsrc(0) (0xff83) before the load.
# arch: rdna3
# wave: 32 64
# expect: hazard 0x14 0xc
s_mov_b32 m0, 0x20010
v_mov_b32 v1, 0
ds_store_b32 v1, v0
s_waitcnt_depctr depctr_vm_vsrc(0) ; @fix
lds_direct_load v1 wait_vdst:0
s_waitcnt expcnt(0) lgkmcnt(0)
v_add_nc_u32 v2, v1, 1
s_endpgm
