# RDNA 3: lds_direct_load overwrites v2, the result of a transcendental VALU one VALU
# earlier. Transcendentals complete out of order with other VALUs, so only wait_vdst:0 waits
# for it (LLVM fixLdsDirectVALUHazard; llc-22 -mcpu=gfx1100 -run-pass=post-RA-hazard-rec
# sets 0 here, 1 without the v_sqrt).
# arch: rdna3
# wave: 32 64
# expect: hazard 0x10 0x8
s_mov_b32 m0, 0x20000
v_sqrt_f32 v2, v0
v_mov_b32 v3, 1
lds_direct_load v2 wait_vdst:1 ; @bug
lds_direct_load v2 wait_vdst:0 ; @fix
s_waitcnt expcnt(0)
s_endpgm
