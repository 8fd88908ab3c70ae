# Propagation through `v_mad_u64_u32` when only the high word of the 64-bit addend is
# undefined (v1 never written, as in clang's GFX10 address arithmetic): the low word of the
# result is defined (undefined bits only smear leftwards, see docs/sanitizer.md), the high
# word is not.
# arch: rdna2
# wave: 32 64
# expect: uninit 0x8 0x0
v_mad_u64_u32 v[2:3], null, v0, 4, v[0:1]
global_load_dword v4, v3, s[0:1] ; @bug
global_load_dword v4, v2, s[0:1] ; @fix
s_waitcnt vmcnt(0)
s_endpgm
