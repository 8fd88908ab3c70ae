// Matrix cores through their builtins: WMMA on gfx1100 (wave32 and wave64) and gfx1200, MFMA on
// gfx908, gfx90a, gfx942 and gfx950. RDNA 1/2 (GFX10) have no matrix cores: the kernels are
// empty there and the suite runs no case of them. One 16x16 tile per workgroup of one wave: D = A * B + C with A, B row-major f16 (or i8)
// and C, D row-major f32 (or i32). The register layouts follow the ISA guides.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

typedef half half4 __attribute__((ext_vector_type(4)));
typedef half half8v __attribute__((ext_vector_type(8)));
typedef half half16v __attribute__((ext_vector_type(16)));
typedef float float4v __attribute__((ext_vector_type(4)));
typedef float float8v __attribute__((ext_vector_type(8)));
typedef int int2v __attribute__((ext_vector_type(2)));
typedef int int4v __attribute__((ext_vector_type(4)));
typedef int int8v __attribute__((ext_vector_type(8)));

kernel void mma_f16(global const half *a, global const half *b, global const float *c,
                    global float *d) {
  uint l = __builtin_amdgcn_workitem_id_x();
  uint t = __builtin_amdgcn_workgroup_id_x();
  a += 256 * t;
  b += 256 * t;
  c += 256 * t;
  d += 256 * t;
  uint r = l % 16, h = l / 16;
#if defined(__GFX10__)
  // No matrix cores.
#elif defined(__gfx950__) || defined(__gfx942__) || defined(__gfx90a__) || defined(__gfx908__)
  // v_mfma_f32_16x16x16_f16: lane holds A[r][4h..4h+3], B[4h..4h+3][r], C/D[4h+j][r].
  half4 va, vb;
  float4v vc;
  for (int j = 0; j < 4; j++) {
    va[j] = a[r * 16 + 4 * h + j];
    vb[j] = b[(4 * h + j) * 16 + r];
    vc[j] = c[(4 * h + j) * 16 + r];
  }
  float4v vd = __builtin_amdgcn_mfma_f32_16x16x16f16(va, vb, vc, 0, 0, 0);
  for (int j = 0; j < 4; j++)
    d[(4 * h + j) * 16 + r] = vd[j];
#elif defined(__gfx1200__)
  // v_wmma_f32_16x16x16_f16 (gfx12): A[r][8h..8h+7], B[8h..8h+7][r], C/D[8h+j][r].
  half8v va, vb;
  float8v vc;
  for (int j = 0; j < 8; j++) {
    va[j] = a[r * 16 + 8 * h + j];
    vb[j] = b[(8 * h + j) * 16 + r];
    vc[j] = c[(8 * h + j) * 16 + r];
  }
  float8v vd = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(va, vb, vc);
  for (int j = 0; j < 8; j++)
    d[(8 * h + j) * 16 + r] = vd[j];
#elif WAVE == 64
  // v_wmma_f32_16x16x16_f16 (gfx11, wave64): A[r][0..15], B[0..15][r], C/D[4j+h][r].
  half16v va, vb;
  float4v vc;
  for (int k = 0; k < 16; k++) {
    va[k] = a[r * 16 + k];
    vb[k] = b[k * 16 + r];
  }
  for (int j = 0; j < 4; j++)
    vc[j] = c[(4 * j + h) * 16 + r];
  float4v vd = __builtin_amdgcn_wmma_f32_16x16x16_f16_w64(va, vb, vc);
  for (int j = 0; j < 4; j++)
    d[(4 * j + h) * 16 + r] = vd[j];
#else
  // v_wmma_f32_16x16x16_f16 (gfx11, wave32): A[r][0..15], B[0..15][r], C/D[2j+h][r].
  half16v va, vb;
  float8v vc;
  for (int k = 0; k < 16; k++) {
    va[k] = a[r * 16 + k];
    vb[k] = b[k * 16 + r];
  }
  for (int j = 0; j < 8; j++)
    vc[j] = c[(2 * j + h) * 16 + r];
  float8v vd = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(va, vb, vc);
  for (int j = 0; j < 8; j++)
    d[(2 * j + h) * 16 + r] = vd[j];
#endif
}

// Signed 8-bit products, i32 accumulate. K = 16 on RDNA (iu8), K = 32 on gfx950; A is 16 x K,
// B is K x 16, both row-major bytes.
kernel void mma_i8(global const char *a, global const char *b, global const int *c, global int *d) {
  uint l = __builtin_amdgcn_workitem_id_x();
  uint t = __builtin_amdgcn_workgroup_id_x();
  a += 512 * t;
  b += 512 * t;
  c += 256 * t;
  d += 256 * t;
  uint r = l % 16, h = l / 16;
#if defined(__GFX10__)
  // No matrix cores.
#elif defined(__gfx908__) || defined(__gfx90a__)
  // v_mfma_i32_16x16x16_i8: A[r][4h..4h+3], B[4h..4h+3][r], C/D[4h+j][r]; K = 16.
  int va = 0, vb = 0;
  for (int j = 0; j < 4; j++) {
    va |= (int)(uchar)a[r * 16 + 4 * h + j] << (8 * j);
    vb |= (int)(uchar)b[(4 * h + j) * 16 + r] << (8 * j);
  }
  int4v vc;
  for (int j = 0; j < 4; j++)
    vc[j] = c[(4 * h + j) * 16 + r];
  int4v vd = __builtin_amdgcn_mfma_i32_16x16x16i8(va, vb, vc, 0, 0, 0);
  for (int j = 0; j < 4; j++)
    d[(4 * h + j) * 16 + r] = vd[j];
#elif defined(__gfx950__) || defined(__gfx942__)
  // v_mfma_i32_16x16x32_i8: A[r][8h..8h+7], B[8h..8h+7][r], C/D[4h+j][r]; K = 32.
  long va = 0, vb = 0;
  for (int j = 0; j < 8; j++) {
    va |= (long)(uchar)a[r * 32 + 8 * h + j] << (8 * j);
    vb |= (long)(uchar)b[(8 * h + j) * 16 + r] << (8 * j);
  }
  int4v vc;
  for (int j = 0; j < 4; j++)
    vc[j] = c[(4 * h + j) * 16 + r];
  int4v vd = __builtin_amdgcn_mfma_i32_16x16x32_i8(va, vb, vc, 0, 0, 0);
  for (int j = 0; j < 4; j++)
    d[(4 * h + j) * 16 + r] = vd[j];
#elif defined(__gfx1200__)
  // v_wmma_i32_16x16x16_iu8 (gfx12): A[r][8h..8h+7], B[8h..8h+7][r], C/D[8h+j][r].
  int2v va, vb;
  int8v vc;
  for (int w = 0; w < 2; w++) {
    uint xa = 0, xb = 0;
    for (int j = 0; j < 4; j++) {
      xa |= (uint)(uchar)a[r * 16 + 8 * h + 4 * w + j] << (8 * j);
      xb |= (uint)(uchar)b[(8 * h + 4 * w + j) * 16 + r] << (8 * j);
    }
    va[w] = (int)xa;
    vb[w] = (int)xb;
  }
  for (int j = 0; j < 8; j++)
    vc[j] = c[(8 * h + j) * 16 + r];
  int8v vd = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(true, va, true, vb, vc, false);
  for (int j = 0; j < 8; j++)
    d[(8 * h + j) * 16 + r] = vd[j];
#else
  // v_wmma_i32_16x16x16_iu8 (gfx11): A[r][0..15], B[0..15][r]; C/D as for f32.
  int4v va, vb;
  for (int w = 0; w < 4; w++) {
    uint xa = 0, xb = 0;
    for (int j = 0; j < 4; j++) {
      xa |= (uint)(uchar)a[r * 16 + 4 * w + j] << (8 * j);
      xb |= (uint)(uchar)b[(4 * w + j) * 16 + r] << (8 * j);
    }
    va[w] = (int)xa;
    vb[w] = (int)xb;
  }
#if WAVE == 64
  int4v vc;
  for (int j = 0; j < 4; j++)
    vc[j] = c[(4 * j + h) * 16 + r];
  int4v vd = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w64(true, va, true, vb, vc, false);
  for (int j = 0; j < 4; j++)
    d[(4 * j + h) * 16 + r] = vd[j];
#else
  int8v vc;
  for (int j = 0; j < 8; j++)
    vc[j] = c[(2 * j + h) * 16 + r];
  int8v vd = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(true, va, true, vb, vc, false);
  for (int j = 0; j < 8; j++)
    d[(2 * j + h) * 16 + r] = vd[j];
#endif
#endif
}
