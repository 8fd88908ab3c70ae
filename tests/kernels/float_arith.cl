// Floating point: f32, f64 and packed f16 arithmetic. Exact operations are compared bit for bit;
// f32 division and sqrt use the hardware approximations (OpenCL allows 2.5 and 3 ulp) and are
// compared with that tolerance. Multiply-adds are written as fma so no contraction choice of the
// compiler changes the rounding.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL FP_CONTRACT OFF

static inline uint gid_1d(uint block) {
  return __builtin_amdgcn_workgroup_id_x() * block + __builtin_amdgcn_workitem_id_x();
}

// 8 exact f32 results per element.
kernel void f32_ops(global const float *a, global const float *b, global const float *c,
                    global float *out, uint n) {
  uint i = gid_1d(__builtin_amdgcn_workgroup_size_x());
  if (i >= n)
    return;
  float x = a[i], y = b[i], z = c[i];
  global float *o = out + 8 * i;
  o[0] = x + y;
  o[1] = x * y;
  o[2] = __builtin_fmaf(x, y, z);
  o[3] = x - z;
  o[4] = __builtin_fminf(x, y);
  o[5] = __builtin_fmaxf(x, z);
  o[6] = __builtin_fabsf(x) * -y;
  o[7] = __builtin_ldexpf(x, (int)(as_uint(y) & 15) - 7);
}

// Rounding and conversions, 8 results per element (as bits).
kernel void f32_convert(global const float *a, global uint *out, uint n) {
  uint i = gid_1d(__builtin_amdgcn_workgroup_size_x());
  if (i >= n)
    return;
  float x = a[i];
  global uint *o = out + 8 * i;
  o[0] = as_uint(__builtin_floorf(x));
  o[1] = as_uint(__builtin_ceilf(x));
  o[2] = as_uint(__builtin_truncf(x));
  o[3] = as_uint(__builtin_rintf(x));
  o[4] = (uint)(int)x; // |x| < 2^31 in the inputs
  o[5] = as_uint((float)(int)as_uint(x));
  o[6] = as_uint((float)as_uint(x));
  o[7] = as_uint(x - __builtin_floorf(x));
}

// Approximate f32 operations: division, sqrt, reciprocal, exp2, log2 (compared within ulps).
kernel void f32_approx(global const float *a, global const float *b, global float *out, uint n) {
  uint i = gid_1d(__builtin_amdgcn_workgroup_size_x());
  if (i >= n)
    return;
  float x = a[i], y = b[i];
  global float *o = out + 5 * i;
  o[0] = x / y;
  o[1] = __builtin_sqrtf(__builtin_fabsf(x));
  o[2] = __builtin_amdgcn_rcpf(y);
  o[3] = __builtin_amdgcn_exp2f(x * 0x1p-24f);
  o[4] = __builtin_amdgcn_logf(__builtin_fabsf(y));
}

// f64: correctly rounded add, mul, fma, division and sqrt; conversions. 8 results per element.
kernel void f64_ops(global const double *a, global const double *b, global const double *c,
                    global double *out, uint n) {
  uint i = gid_1d(__builtin_amdgcn_workgroup_size_x());
  if (i >= n)
    return;
  double x = a[i], y = b[i], z = c[i];
  global double *o = out + 8 * i;
  o[0] = x + y;
  o[1] = x * y;
  o[2] = __builtin_fma(x, y, z);
  o[3] = x / y;
  o[4] = __builtin_sqrt(__builtin_fabs(x));
  o[5] = __builtin_floor(z) + __builtin_fmin(x, y);
  o[6] = (double)(float)x;
  o[7] = (double)(long)(z * 0x1p20);
}

// Packed half: half2 add/mul/fma/min/max and conversions; 6 half2 results per element.
kernel void half_packed(global const half2 *a, global const half2 *b, global const half2 *c,
                        global half2 *out, uint n) {
  uint i = gid_1d(__builtin_amdgcn_workgroup_size_x());
  if (i >= n)
    return;
  half2 x = a[i], y = b[i], z = c[i];
  global half2 *o = out + 6 * i;
  o[0] = x + y;
  o[1] = x * y;
  o[2] = __builtin_elementwise_fma(x, y, z);
  o[3] = x - z;
  o[4] = __builtin_elementwise_min(x, y);
  o[5] = (half2)((half)((float)x.x * 2.0f), (half)((float)y.y + 1.0f));
}
