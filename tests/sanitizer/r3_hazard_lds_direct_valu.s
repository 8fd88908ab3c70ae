# RDNA 3: lds_direct_load overwrites v2, which a VALU wrote with one VALU between; its
# wait_vdst may let at most 1 VALU be outstanding (LLVM fixLdsDirectVALUHazard: wait_vdst is
# the VALUs between, at most 15; llc-22 -mcpu=gfx1100 -run-pass=post-RA-hazard-rec on the same
# instructions sets it to 1).
# arch: rdna3
# wave: 32 64
# expect: hazard 0x10 0x8
s_mov_b32 m0, 0x20000
v_mov_b32 v2, v0
v_mov_b32 v3, 1
lds_direct_load v2 wait_vdst:2 ; @bug
lds_direct_load v2 wait_vdst:1 ; @fix
s_waitcnt expcnt(0)
v_add_nc_u32 v4, v2, v3
s_endpgm
