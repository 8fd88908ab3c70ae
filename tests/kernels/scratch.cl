// Private arrays indexed by run-time values (scratch memory, or VGPR indexing for small ones).

static inline uint gid_1d(void) {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
         __builtin_amdgcn_workitem_id_x();
}

// A 48-word private table filled per work-item, read at two data-dependent indices, and updated
// at a third.
kernel void private_lookup(global const uint *in, global const uint *idx, global uint *out, uint n) {
  uint i = gid_1d();
  if (i >= n)
    return;
  uint table[48];
  uint x = in[i];
  for (uint k = 0; k < 48; k++)
    table[k] = x * (k + 1) ^ (k << 20);
  uint j = idx[i];
  table[(j >> 16) % 48] += j;
  out[2 * i] = table[j % 48] + table[(j >> 8) % 48];
  out[2 * i + 1] = table[(j >> 16) % 48] ^ table[(j >> 24) % 48];
}

// Insertion sort of 32 signed values per work-item in a private array.
kernel void private_sort(global const int *in, global int *out, uint n) {
  uint i = gid_1d();
  if (i >= n)
    return;
  int v[32];
  for (int k = 0; k < 32; k++)
    v[k] = in[32 * i + k];
  for (int k = 1; k < 32; k++) {
    int x = v[k];
    int j = k - 1;
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = x;
  }
  for (int k = 0; k < 32; k++)
    out[32 * i + k] = v[k];
}

// An 8-element private array with a per-lane index (small enough for register indexing at -O2).
kernel void private_small(global const float *in, global const uint *idx, global float *out, uint n) {
  uint i = gid_1d();
  if (i >= n)
    return;
  float v[8];
  for (int k = 0; k < 8; k++)
    v[k] = in[8 * i + k];
  uint j = idx[i];
  v[j & 7] = v[(j >> 3) & 7] * 2.0f;
  out[2 * i] = v[(j >> 6) & 7];
  out[2 * i + 1] = v[(j >> 9) & 7] - v[j & 7];
}
