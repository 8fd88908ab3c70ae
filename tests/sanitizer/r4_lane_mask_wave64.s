# In wave64 a lane mask is an SGPR pair: v_cndmask_b32_e64's select s7 reads s[7:8], and s8
# is still being loaded.
# arch: rdna4
# wave: 64
# expect: missing-wait 0x8 0x0
s_load_b64 s[8:9], s[0:1], 0x0
s_wait_kmcnt 0 ; @fix
v_cndmask_b32_e64 v1, 0, 0x36d8a566, s7
s_endpgm
