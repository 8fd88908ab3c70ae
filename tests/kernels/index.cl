// Indexing: 1-D, 2-D and 3-D grids with partial last workgroups. The group sizes come from three
// places so that each path of the launch is exercised: the dispatch packet, the implicit (hidden)
// kernel arguments, and explicit kernel arguments.

// Dispatch packet (hsa_kernel_dispatch_packet_t): workgroup_size_x/y/z are u16 at bytes 4/6/8,
// grid_size_x/y/z are u32 at bytes 12/16/20.
static inline uint packet_u16(int byte) {
  return ((constant ushort *)__builtin_amdgcn_dispatch_ptr())[byte / 2];
}
static inline uint packet_u32(int byte) {
  return ((constant uint *)__builtin_amdgcn_dispatch_ptr())[byte / 4];
}
// Implicit arguments (code object v5): block_count_x/y/z are u32 at 0/4/8, group_size_x/y/z u16 at
// 12/14/16, remainder_x/y/z u16 at 18/20/22.
static inline uint implicit_u32(int byte) {
  return ((constant uint *)__builtin_amdgcn_implicitarg_ptr())[byte / 4];
}
static inline uint implicit_u16(int byte) {
  return ((constant ushort *)__builtin_amdgcn_implicitarg_ptr())[byte / 2];
}

// c[i] = a[i] + b[i]; the group size from the dispatch packet.
kernel void vadd_1d(global const int *a, global const int *b, global int *c, uint n) {
  uint i = __builtin_amdgcn_workgroup_id_x() * packet_u16(4) + __builtin_amdgcn_workitem_id_x();
  if (i < n)
    c[i] = a[i] + b[i];
}

// y[i] = a * x[i] + y[i] on floats with an explicit fma; the group size is an argument.
kernel void saxpy_arg(float a, global const float *x, global float *y, uint n, uint block) {
  uint i = __builtin_amdgcn_workgroup_id_x() * block + __builtin_amdgcn_workitem_id_x();
  if (i < n)
    y[i] = __builtin_fmaf(a, x[i], y[i]);
}

// Every work-item of a 2-D grid inside width x height writes its coordinates; the sizes come from
// the dispatch packet, which the first work-item also copies out.
kernel void index_2d(global uint *out, global uint *info, uint width, uint height) {
  uint x = __builtin_amdgcn_workgroup_id_x() * packet_u16(4) + __builtin_amdgcn_workitem_id_x();
  uint y = __builtin_amdgcn_workgroup_id_y() * packet_u16(6) + __builtin_amdgcn_workitem_id_y();
  if (x < width && y < height)
    out[y * width + x] = (x << 16) | y;
  if (x == 0 && y == 0) {
    info[0] = packet_u16(4);
    info[1] = packet_u16(6);
    info[2] = packet_u16(8);
    info[3] = packet_u32(12);
    info[4] = packet_u32(16);
    info[5] = packet_u32(20);
  }
}

// A 3-D grid; group sizes and block counts from the implicit arguments. The value records the
// group, the local id and whether the group is the partial (remainder) one.
kernel void index_3d(global uint *out, global uint *info, uint nx, uint ny, uint nz) {
  uint lx = __builtin_amdgcn_workitem_id_x(), ly = __builtin_amdgcn_workitem_id_y(),
       lz = __builtin_amdgcn_workitem_id_z();
  uint gx = __builtin_amdgcn_workgroup_id_x(), gy = __builtin_amdgcn_workgroup_id_y(),
       gz = __builtin_amdgcn_workgroup_id_z();
  uint x = gx * implicit_u16(12) + lx;
  uint y = gy * implicit_u16(14) + ly;
  uint z = gz * implicit_u16(16) + lz;
  if (x < nx && y < ny && z < nz) {
    uint last = (gx + 1 == implicit_u32(0)) | ((gy + 1 == implicit_u32(4)) << 1) |
                ((gz + 1 == implicit_u32(8)) << 2);
    out[(z * ny + y) * nx + x] = (gx << 24) | (gy << 20) | (gz << 16) | (lx << 10) | (ly << 6) | (lz << 3) | last;
  }
  if (x == 0 && y == 0 && z == 0)
    for (int k = 0; k < 6; k++)
      info[k] = k < 3 ? implicit_u32(4 * k) : implicit_u16(12 + 2 * (k - 3));
}

// A grid-stride loop: few groups cover a long array; the stride from __builtin_amdgcn_workgroup_size_x
// and the packet's grid size.
kernel void grid_stride(global const uint *in, global uint *out, uint n) {
  uint stride = packet_u32(12);
  for (uint i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
                __builtin_amdgcn_workitem_id_x();
       i < n; i += stride)
    out[i] = in[i] * 2654435761u + i;
}
