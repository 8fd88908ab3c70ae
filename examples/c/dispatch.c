/* Dispatches the kernels of kernels.cl through the C ABI on this process's own memory.
 *
 *   dispatch CODE_OBJECT vadd   adds two 1000-element float arrays, checks every element
 *   dispatch CODE_OBJECT poke   a kernel writes 4 MiB past the declared array: the dispatch
 *                               fails with a memory fault naming the address, the arrays
 *                               are unchanged, and this process goes on to run vadd.
 * Exit status 0 when every check holds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amdpcode.h"

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *bytes = malloc(n > 0 ? (size_t)n : 1);
  *len = fread(bytes, 1, (size_t)n, f);
  fclose(f);
  return bytes;
}

static int vadd(amdpcode_engine *engine, const uint8_t *co, size_t co_len) {
  enum { N = 1000 };
  float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float)), *c = malloc(N * sizeof(float));
  for (int i = 0; i < N; i++) {
    a[i] = (float)i * 0.5f - 17.25f;
    b[i] = 1.0f / (float)(i + 1);
    c[i] = -1.0f;
  }
  uint8_t kernarg[28];
  uint64_t pa = (uint64_t)(uintptr_t)a, pb = (uint64_t)(uintptr_t)b, pc = (uint64_t)(uintptr_t)c;
  uint32_t n = N;
  memcpy(kernarg, &pa, 8);
  memcpy(kernarg + 8, &pb, 8);
  memcpy(kernarg + 16, &pc, 8);
  memcpy(kernarg + 24, &n, 4);
  amdpcode_launch *l = amdpcode_launch_code_object(co, co_len, "vadd", kernarg, sizeof kernarg);
  if (!l) {
    printf("launch: %s\n", amdpcode_last_error());
    return 1;
  }
  uint32_t grid[3] = {(N + 63) / 64, 1, 1}, block[3] = {64, 1, 1};
  amdpcode_launch_set_grid(l, grid, block);
  amdpcode_launch_add_range(l, a, N * sizeof(float));
  amdpcode_launch_add_range(l, b, N * sizeof(float));
  amdpcode_launch_add_range(l, c, N * sizeof(float));
  amdpcode_status s = amdpcode_dispatch(engine, l);
  amdpcode_launch_free(l);
  if (s != AMDPCODE_OK) {
    printf("dispatch failed (%d): %s\n", (int)s, amdpcode_last_error());
    return 1;
  }
  int bad = 0;
  for (int i = 0; i < N; i++) {
    if (c[i] != a[i] + b[i]) {
      if (bad++ < 5) printf("c[%d] = %g, expected %g\n", i, c[i], a[i] + b[i]);
    }
  }
  printf("vadd: %d of %d elements wrong, %llu wave instructions\n", bad, N,
         (unsigned long long)amdpcode_engine_instructions(engine));
  free(a);
  free(b);
  free(c);
  return bad != 0;
}

static int poke(amdpcode_engine *engine, const uint8_t *co, size_t co_len) {
  enum { N = 64 };
  int32_t *p = calloc(N, sizeof(int32_t));
  uint64_t off = (4u << 20) / sizeof(int32_t);
  uint64_t target = (uint64_t)(uintptr_t)p + off * sizeof(int32_t);
  uint8_t kernarg[16];
  uint64_t pp = (uint64_t)(uintptr_t)p;
  memcpy(kernarg, &pp, 8);
  memcpy(kernarg + 8, &off, 8);
  amdpcode_launch *l = amdpcode_launch_code_object(co, co_len, "poke", kernarg, sizeof kernarg);
  if (!l) {
    printf("launch: %s\n", amdpcode_last_error());
    return 1;
  }
  uint32_t grid[3] = {1, 1, 1}, block[3] = {64, 1, 1};
  amdpcode_launch_set_grid(l, grid, block);
  amdpcode_launch_add_range(l, p, N * sizeof(int32_t));
  amdpcode_status s = amdpcode_dispatch(engine, l);
  amdpcode_launch_free(l);
  printf("poke: status %d, target 0x%llx\n", (int)s, (unsigned long long)target);
  printf("error: %s\n", amdpcode_last_error());
  char want[32];
  snprintf(want, sizeof want, "0x%llx", (unsigned long long)target);
  int ok = s == AMDPCODE_ERROR_FAULT && strstr(amdpcode_last_error(), want) != NULL;
  for (int i = 0; i < N; i++) ok &= p[i] == 0;
  free(p);
  printf("poke: %s\n", ok ? "fault reported, memory unchanged" : "UNEXPECTED");
  return !ok;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CODE_OBJECT vadd|poke\n", argv[0]);
    return 2;
  }
  size_t co_len = 0;
  uint8_t *co = read_file(argv[1], &co_len);
  if (!co) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }
  /* Errors first: an unknown arch is reported, not a crash. */
  if (amdpcode_engine_new("gfx0", NULL, 1) != NULL || strstr(amdpcode_last_error(), "gfx0") == NULL) {
    printf("unknown arch was not refused\n");
    return 1;
  }
  amdpcode_engine *engine = amdpcode_engine_new("rdna3", NULL, 1);
  if (!engine) {
    printf("engine: %s\n", amdpcode_last_error());
    return 1;
  }
  int rc = 0;
  if (strcmp(argv[2], "poke") == 0) {
    rc = poke(engine, co, co_len);
    /* The process is unharmed: the same engine runs a correct kernel afterwards. */
    rc |= vadd(engine, co, co_len);
  } else {
    rc = vadd(engine, co, co_len);
  }
  amdpcode_engine_free(engine);
  free(co);
  return rc;
}
