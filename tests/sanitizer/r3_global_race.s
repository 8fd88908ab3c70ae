# Every work-item of every wave stores to the same word (a reduction written as a store);
# the atomic is the fix.
# arch: rdna3
# wave: 32 64
# items: 128
# check: global-races
# expect: global-race 0x4 0x4
v_mov_b32 v1, 0
global_store_b32 v1, v0, s[0:1] ; @bug
global_atomic_add_u32 v1, v0, s[0:1] ; @fix
s_endpgm
