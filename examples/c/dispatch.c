/* Dispatches the kernels of kernels.cl through the C ABI on this process's own memory.
 *
 *   dispatch CODE_OBJECT vadd      adds two 1000-element float arrays, checks every element
 *   dispatch CODE_OBJECT poke      a kernel writes 4 MiB past the declared array: the dispatch
 *                                  fails with a memory fault naming the address, the arrays
 *                                  are unchanged, and this process goes on to run vadd.
 *   dispatch CODE_OBJECT overread  vadd reads 4 elements past 16-element buffers placed in
 *                                  pages full of 7.0: it sees zeros there, not the host's bytes.
 *   dispatch CODE_OBJECT pastend   vadd runs 64 work-items on 16-element buffers placed at
 *                                  page starts and at a page end: the fault is the first store
 *                                  past c (or the first load past a), memory unchanged.
 *   dispatch CODE_OBJECT threads   vadd of 65536 elements (1024 workgroups) on one thread and
 *                                  on two: both correct, bit-identical, the second on two.
 * A third argument `interp` selects the interpreter (default: the JIT).
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

/* Runs vadd on N elements into a fresh c; returns c (NULL on failure) after checking it. */
static float *vadd_n(amdpcode_engine *engine, const uint8_t *co, size_t co_len, uint32_t N, int *bad_out) {
  float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float)), *c = malloc(N * sizeof(float));
  for (uint32_t i = 0; i < N; i++) {
    a[i] = (float)i * 0.5f - 17.25f;
    b[i] = 1.0f / (float)(i + 1);
    c[i] = -1.0f;
  }
  uint8_t kernarg[28];
  uint64_t pa = (uint64_t)(uintptr_t)a, pb = (uint64_t)(uintptr_t)b, pc = (uint64_t)(uintptr_t)c;
  uint32_t n = N;
  *bad_out = 0;
  memcpy(kernarg, &pa, 8);
  memcpy(kernarg + 8, &pb, 8);
  memcpy(kernarg + 16, &pc, 8);
  memcpy(kernarg + 24, &n, 4);
  amdpcode_launch *l = amdpcode_launch_code_object(co, co_len, "vadd", kernarg, sizeof kernarg);
  if (!l) {
    printf("launch: %s\n", amdpcode_last_error());
    *bad_out = -1;
    free(a);
    free(b);
    free(c);
    return NULL;
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
    *bad_out = -1;
    free(a);
    free(b);
    free(c);
    return NULL;
  }
  int bad = 0;
  for (uint32_t i = 0; i < N; i++) {
    if (c[i] != a[i] + b[i]) {
      if (bad++ < 5) printf("c[%u] = %g, expected %g\n", i, c[i], a[i] + b[i]);
    }
  }
  *bad_out = bad;
  free(a);
  free(b);
  return c;
}

static int vadd(amdpcode_engine *engine, const uint8_t *co, size_t co_len) {
  enum { N = 1000 };
  int bad = 0;
  float *c = vadd_n(engine, co, co_len, N, &bad);
  if (!c) return 1;
  printf("vadd: %d of %d elements wrong, %llu wave instructions\n", bad, N,
         (unsigned long long)amdpcode_engine_instructions(engine));
  free(c);
  return bad != 0;
}

/* vadd of 65536 elements on one thread, then on two: the same bits, the second on two. */
static int threads(amdpcode_engine *engine, const uint8_t *co, size_t co_len) {
  enum { N = 65536 };
  int bad1 = 0, bad2 = 0;
  if (amdpcode_engine_set_threads(engine, 1) != AMDPCODE_OK) return 1;
  float *one = vadd_n(engine, co, co_len, N, &bad1);
  uint32_t ran1 = amdpcode_engine_last_threads(engine);
  if (amdpcode_engine_set_threads(engine, 2) != AMDPCODE_OK) return 1;
  float *two = vadd_n(engine, co, co_len, N, &bad2);
  uint32_t ran2 = amdpcode_engine_last_threads(engine);
  if (!one || !two) return 1;
  int same = memcmp(one, two, N * sizeof(float)) == 0;
  printf("threads: %d and %d elements wrong, ran on %u then %u threads, %s\n", bad1, bad2, ran1, ran2,
         same ? "identical" : "different");
  free(one);
  free(two);
  return bad1 != 0 || bad2 != 0 || !same || ran1 != 1 || ran2 != 2;
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

/* Launches vadd(a, b, c, n) over one 64-wide workgroup with a, b, c declared as `len`
 * floats each (c_len for c). */
static amdpcode_status run_vadd(amdpcode_engine *engine, const uint8_t *co, size_t co_len, float *a, float *b,
                                float *c, size_t len, size_t c_len, uint32_t n) {
  uint8_t kernarg[28];
  uint64_t pa = (uint64_t)(uintptr_t)a, pb = (uint64_t)(uintptr_t)b, pc = (uint64_t)(uintptr_t)c;
  memcpy(kernarg, &pa, 8);
  memcpy(kernarg + 8, &pb, 8);
  memcpy(kernarg + 16, &pc, 8);
  memcpy(kernarg + 24, &n, 4);
  amdpcode_launch *l = amdpcode_launch_code_object(co, co_len, "vadd", kernarg, sizeof kernarg);
  if (!l) return AMDPCODE_ERROR_LAUNCH;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {64, 1, 1};
  amdpcode_launch_set_grid(l, grid, block);
  amdpcode_launch_add_range(l, a, len * sizeof(float));
  amdpcode_launch_add_range(l, b, len * sizeof(float));
  amdpcode_launch_add_range(l, c, c_len * sizeof(float));
  amdpcode_status s = amdpcode_dispatch(engine, l);
  amdpcode_launch_free(l);
  return s;
}

enum { PAGE = 4096, PAGES = 6 };

/* PAGES page-aligned pages of floats, all 7.0: host bytes a kernel is never handed. */
static float *pages_new(void) {
  float *p = aligned_alloc(PAGE, PAGES * PAGE);
  if (!p) exit(2);
  for (size_t i = 0; i < PAGES * PAGE / sizeof(float); i++) p[i] = 7.0f;
  return p;
}

static int overread(amdpcode_engine *engine, const uint8_t *co, size_t co_len) {
  static const size_t at[] = {0, PAGE / 2, PAGE - 128};
  int ok = 1;
  for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
    float *pages = pages_new(), *copy = malloc(PAGES * PAGE);
    float *a = pages + at[k] / sizeof(float), *b = pages + (PAGE + at[k]) / sizeof(float);
    float c[20];
    for (int i = 0; i < 16; i++) {
      a[i] = (float)i;
      b[i] = 0.5f;
    }
    for (int i = 0; i < 20; i++) c[i] = -1.0f;
    memcpy(copy, pages, PAGES * PAGE);
    amdpcode_status s = run_vadd(engine, co, co_len, a, b, c, 16, 20, 20);
    if (s != AMDPCODE_OK) {
      printf("overread at %zu: dispatch failed (%d): %s\n", at[k], (int)s, amdpcode_last_error());
      ok = 0;
    }
    for (int i = 0; i < 20; i++) {
      float want = i < 16 ? (float)i + 0.5f : 0.0f;
      if (c[i] != want) {
        printf("overread at %zu: c[%d] = %g, expected %g\n", at[k], i, c[i], want);
        ok = 0;
      }
    }
    if (memcmp(copy, pages, PAGES * PAGE) != 0) {
      printf("overread at %zu: the pages changed\n", at[k]);
      ok = 0;
    }
    free(copy);
    free(pages);
  }
  printf("overread: %s\n", ok ? "zeros past the buffers, pages unchanged" : "UNEXPECTED");
  return !ok;
}

static int pastend(amdpcode_engine *engine, const uint8_t *co, size_t co_len) {
  /* Byte offsets of a, b, c in the pages; which buffer's element 16 the fault names. */
  static const struct {
    size_t a, b, c;
    const char *inst;
    int which;
  } layouts[] = {
      {0, 2 * PAGE, 4 * PAGE, "GLOBAL_STORE_B32", 2},
      {PAGE - 64, 2 * PAGE, 4 * PAGE, "GLOBAL_LOAD_B32", 0},
      {0, 64, 128, "GLOBAL_STORE_B32", 2},
  };
  int ok = 1;
  for (size_t k = 0; k < sizeof layouts / sizeof layouts[0]; k++) {
    float *pages = pages_new(), *copy = malloc(PAGES * PAGE);
    float *buf[3] = {pages + layouts[k].a / sizeof(float), pages + layouts[k].b / sizeof(float),
                     pages + layouts[k].c / sizeof(float)};
    for (int i = 0; i < 16; i++) {
      buf[0][i] = 1.0f;
      buf[1][i] = 2.0f;
      buf[2][i] = 0.0f;
    }
    memcpy(copy, pages, PAGES * PAGE);
    amdpcode_status s = run_vadd(engine, co, co_len, buf[0], buf[1], buf[2], 16, 16, 64);
    char want[96];
    snprintf(want, sizeof want, "%s: memory fault: lane 16 accesses 4 global byte(s) at 0x%llx,", layouts[k].inst,
             (unsigned long long)(uintptr_t)(buf[layouts[k].which] + 16));
    if (s != AMDPCODE_ERROR_FAULT || strstr(amdpcode_last_error(), want) == NULL) {
      printf("pastend layout %zu: status %d, error: %s\nexpected: %s\n", k, (int)s, amdpcode_last_error(), want);
      ok = 0;
    }
    if (memcmp(copy, pages, PAGES * PAGE) != 0) {
      printf("pastend layout %zu: the pages changed\n", k);
      ok = 0;
    }
    free(copy);
    free(pages);
  }
  printf("pastend: %s\n", ok ? "faults at the first access past the buffers, memory unchanged" : "UNEXPECTED");
  return !ok;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CODE_OBJECT vadd|poke|overread|pastend|threads [interp]\n", argv[0]);
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
  int jit = !(argc > 3 && strcmp(argv[3], "interp") == 0);
  amdpcode_engine *engine = amdpcode_engine_new("rdna3", NULL, jit);
  if (!engine) {
    printf("engine: %s\n", amdpcode_last_error());
    return 1;
  }
  int rc = 0;
  if (strcmp(argv[2], "poke") == 0) {
    rc = poke(engine, co, co_len);
    /* The process is unharmed: the same engine runs a correct kernel afterwards. */
    rc |= vadd(engine, co, co_len);
  } else if (strcmp(argv[2], "overread") == 0) {
    rc = overread(engine, co, co_len);
  } else if (strcmp(argv[2], "threads") == 0) {
    rc = threads(engine, co, co_len);
  } else if (strcmp(argv[2], "pastend") == 0) {
    rc = pastend(engine, co, co_len);
    rc |= vadd(engine, co, co_len);
  } else {
    rc = vadd(engine, co, co_len);
  }
  amdpcode_engine_free(engine);
  free(co);
  return rc;
}
