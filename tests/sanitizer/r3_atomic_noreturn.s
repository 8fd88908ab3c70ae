# An atomic without return writes no VGPR (its unused vdst field is 0 here, naming v0); the
# returning form does, and its result is read without a wait. The fixed twin reads v0 after
# the no-return atomic: clean.
# arch: rdna3
# wave: 32 64
# expect: missing-wait 0x10 0x8
v_mov_b32 v1, 0
v_mov_b32 v3, 1
global_atomic_add_u32 v0, v1, v3, s[0:1] glc ; @bug
global_atomic_add_u32 v1, v3, s[0:1] ; @fix
v_add_nc_u32 v4, v0, 1
buffer_gl0_inv
s_endpgm
