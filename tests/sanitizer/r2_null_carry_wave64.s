# `null` as a lane-mask destination: in wave64 `v_mad_u64_u32 v[2:3], null, ...` discards
# its carry-out; it writes no register (before, the carry was taken to write the pair
# null, exec_lo and so EXEC, with undefined bits: v1, the addend's high word, was never
# written). Written to s[4:5] instead (the assembler spells the wave64 pair by its first
# register), the undefined carry then switches lanes.
# The low word of the result is defined (undefined bits only smear leftwards).
# arch: rdna2
# wave: 64
# expect: uninit 0x8 0x0
v_mad_u64_u32 v[2:3], null, v0, 4, v[0:1] ; @fix
v_mad_u64_u32 v[2:3], s4, v0, 4, v[0:1] ; @bug
s_and_saveexec_b64 s[6:7], s[4:5] ; @bug
global_load_dword v4, v2, s[0:1]
s_waitcnt vmcnt(0)
s_endpgm
