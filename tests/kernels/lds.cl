// LDS with barriers: tree reductions, a tiled transpose, prefix sums and a tiled matmul.
#pragma OPENCL FP_CONTRACT OFF

// A workgroup barrier with the release/acquire fences OpenCL's barrier(CLK_LOCAL_MEM_FENCE) has.
static inline void wg_barrier(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

static inline uint packet_u16(int byte) {
  return ((constant ushort *)__builtin_amdgcn_dispatch_ptr())[byte / 2];
}

// Tree reduction of u32 in LDS; one partial sum per workgroup. block is a power of two <= 256.
kernel void reduce_u32(global const uint *in, global uint *partial, uint n, uint block) {
  local uint buf[256];
  uint lid = __builtin_amdgcn_workitem_id_x();
  uint i = __builtin_amdgcn_workgroup_id_x() * block + lid;
  buf[lid] = i < n ? in[i] : 0;
  wg_barrier();
  for (uint s = block / 2; s > 0; s >>= 1) {
    if (lid < s)
      buf[lid] += buf[lid + s];
    wg_barrier();
  }
  if (lid == 0)
    partial[__builtin_amdgcn_workgroup_id_x()] = buf[0];
}

// The same tree on f32 (the order of the additions is fixed by the tree); the block size comes
// from the dispatch packet.
kernel void reduce_f32(global const float *in, global float *partial, uint n) {
  local float buf[256];
  uint block = packet_u16(4);
  uint lid = __builtin_amdgcn_workitem_id_x();
  uint i = __builtin_amdgcn_workgroup_id_x() * block + lid;
  buf[lid] = i < n ? in[i] : 0.0f;
  wg_barrier();
  for (uint s = block / 2; s > 0; s >>= 1) {
    if (lid < s)
      buf[lid] = buf[lid] + buf[lid + s];
    wg_barrier();
  }
  if (lid == 0)
    partial[__builtin_amdgcn_workgroup_id_x()] = buf[0];
}

// out (width x height) = transpose of in (height x width), through a padded 16x16 LDS tile.
// Launched with 16x16 groups; edges are partial tiles.
kernel void transpose(global const uint *in, global uint *out, uint width, uint height) {
  local uint tile[16][17];
  uint tx = __builtin_amdgcn_workitem_id_x(), ty = __builtin_amdgcn_workitem_id_y();
  uint bx = __builtin_amdgcn_workgroup_id_x() * 16, by = __builtin_amdgcn_workgroup_id_y() * 16;
  if (bx + tx < width && by + ty < height)
    tile[ty][tx] = in[(by + ty) * width + bx + tx];
  wg_barrier();
  // Write row (bx + ty) of the output, columns by + tx.
  if (by + tx < height && bx + ty < width)
    out[(bx + ty) * height + by + tx] = tile[tx][ty];
}

// Per-block inclusive scan (Hillis-Steele, double-buffered in LDS) and the block totals.
kernel void scan_block(global const uint *in, global uint *out, global uint *totals, uint n) {
  local uint buf[2][256];
  uint block = __builtin_amdgcn_workgroup_size_x();
  uint lid = __builtin_amdgcn_workitem_id_x();
  uint i = __builtin_amdgcn_workgroup_id_x() * block + lid;
  uint cur = 0;
  buf[0][lid] = i < n ? in[i] : 0;
  wg_barrier();
  for (uint d = 1; d < block; d <<= 1) {
    uint v = buf[cur][lid];
    if (lid >= d)
      v += buf[cur][lid - d];
    buf[cur ^ 1][lid] = v;
    cur ^= 1;
    wg_barrier();
  }
  if (i < n)
    out[i] = buf[cur][lid];
  if (lid == block - 1)
    totals[__builtin_amdgcn_workgroup_id_x()] = buf[cur][lid];
}

// Exclusive scan of the whole array by one workgroup of 128: a work-efficient (Blelloch) scan of
// each 256-element chunk in LDS, with the running carry between chunks.
kernel void scan_single(global const uint *in, global uint *out, uint n) {
  local uint buf[256];
  local uint carry;
  uint lid = __builtin_amdgcn_workitem_id_x();
  if (lid == 0)
    carry = 0;
  for (uint base = 0; base < n; base += 256) {
    buf[2 * lid] = base + 2 * lid < n ? in[base + 2 * lid] : 0;
    buf[2 * lid + 1] = base + 2 * lid + 1 < n ? in[base + 2 * lid + 1] : 0;
    uint offset = 1;
    for (uint d = 128; d > 0; d >>= 1) {
      wg_barrier();
      if (lid < d) {
        uint ai = offset * (2 * lid + 1) - 1, bi = offset * (2 * lid + 2) - 1;
        buf[bi] += buf[ai];
      }
      offset <<= 1;
    }
    wg_barrier();
    uint total = buf[255];
    wg_barrier();
    if (lid == 0)
      buf[255] = 0;
    for (uint d = 1; d < 256; d <<= 1) {
      offset >>= 1;
      wg_barrier();
      if (lid < d) {
        uint ai = offset * (2 * lid + 1) - 1, bi = offset * (2 * lid + 2) - 1;
        uint t = buf[ai];
        buf[ai] = buf[bi];
        buf[bi] += t;
      }
    }
    wg_barrier();
    uint c = carry;
    if (base + 2 * lid < n)
      out[base + 2 * lid] = buf[2 * lid] + c;
    if (base + 2 * lid + 1 < n)
      out[base + 2 * lid + 1] = buf[2 * lid + 1] + c;
    wg_barrier();
    if (lid == 0)
      carry = c + total;
  }
}

// C (m x p) = A (m x k) * B (k x p), f32, 16x16 tiles in LDS, accumulated with fma in k order
// (zero padding past the edges). Launched with 16x16 groups.
kernel void matmul_tiled(global const float *a, global const float *b, global float *c, uint m,
                         uint k, uint p) {
  local float ta[16][16];
  local float tb[16][16];
  uint tx = __builtin_amdgcn_workitem_id_x(), ty = __builtin_amdgcn_workitem_id_y();
  uint col = __builtin_amdgcn_workgroup_id_x() * 16 + tx;
  uint row = __builtin_amdgcn_workgroup_id_y() * 16 + ty;
  float acc = 0.0f;
  for (uint t = 0; t < k; t += 16) {
    ta[ty][tx] = row < m && t + tx < k ? a[row * k + t + tx] : 0.0f;
    tb[ty][tx] = t + ty < k && col < p ? b[(t + ty) * p + col] : 0.0f;
    wg_barrier();
    for (uint j = 0; j < 16; j++)
      acc = __builtin_fmaf(ta[ty][j], tb[j][tx], acc);
    wg_barrier();
  }
  if (row < m && col < p)
    c[row * p + col] = acc;
}
