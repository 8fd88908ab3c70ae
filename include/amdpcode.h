/* amdpcode C ABI: dispatch AMD GPU kernels (RDNA 3, RDNA 4, CDNA 4) on host memory.
 *
 * Written by hand to match src/embed/capi.rs; tests/capi.rs compiles examples/c/dispatch.c
 * against it and runs it. Every function catches failures: a status code (or a null handle)
 * and amdpcode_last_error() for the calling thread's message. Handles are opaque and are
 * used by one thread at a time. */
#ifndef AMDPCODE_H
#define AMDPCODE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum amdpcode_status {
  AMDPCODE_OK = 0,
  /* A null pointer, non-UTF-8 text, an unknown arch or another bad argument. */
  AMDPCODE_ERROR_ARGUMENT = 1,
  /* The spec wheel could not be found or loaded. */
  AMDPCODE_ERROR_SPEC = 2,
  /* The launch or code object is malformed. */
  AMDPCODE_ERROR_LAUNCH = 3,
  /* A wave faulted (memory fault, unsupported instruction, step budget) or deadlocked. */
  AMDPCODE_ERROR_FAULT = 4,
  /* A bug in amdpcode (a caught panic). */
  AMDPCODE_ERROR_INTERNAL = 5,
} amdpcode_status;

typedef struct amdpcode_engine amdpcode_engine;
typedef struct amdpcode_launch amdpcode_launch;

/* The calling thread's last error message ("" after a success); valid until its next call. */
const char *amdpcode_last_error(void);

/* An engine for arch "rdna3", "rdna4" or "cdna"; spec_path is the spec wheel or NULL for the
 * default lookup ($AMDPCODE_SPEC, the user cache); jit != 0 selects the JIT. NULL on failure. */
amdpcode_engine *amdpcode_engine_new(const char *arch, const char *spec_path, int jit);
void amdpcode_engine_free(amdpcode_engine *engine);
/* Dynamic wave instructions of the engine's last successful dispatch. */
uint64_t amdpcode_engine_instructions(const amdpcode_engine *engine);
/* Workgroups of the engine's dispatches on up to `threads` threads (0: every core, the
 * default; 1: the calling thread only). Results are those of one thread for race-free
 * kernels; launches with global atomics run on one thread. */
amdpcode_status amdpcode_engine_set_threads(amdpcode_engine *engine, uint32_t threads);
/* Threads the last dispatch ran its workgroups on (1: the calling thread only). */
uint32_t amdpcode_engine_last_threads(const amdpcode_engine *engine);

/* A launch of `kernel` in a code object (bytes copied) with its explicit kernel arguments
 * (copied; the loader adds the hidden ones). NULL on failure. */
amdpcode_launch *amdpcode_launch_code_object(const uint8_t *bytes, size_t len, const char *kernel,
                                             const uint8_t *kernarg, size_t kernarg_len);
/* A raw launch: `code` (copied) runs from its first byte, mapped at `addr`; the registers a
 * command processor sets; user_sgprs are loaded into s0, s1, ... NULL on failure. */
amdpcode_launch *amdpcode_launch_raw(const char *arch, const uint8_t *code, size_t len, uint64_t addr,
                                     uint32_t rsrc1, uint32_t rsrc2, uint32_t rsrc3,
                                     const uint32_t *user_sgprs, size_t n_user_sgprs);
/* Workgroups in x, y, z and work-items per workgroup (3 values each). */
amdpcode_status amdpcode_launch_set_grid(amdpcode_launch *launch, const uint32_t *grid,
                                         const uint32_t *block);
/* Wave size, LDS bytes per workgroup, scratch bytes per lane; 0 keeps each default. */
amdpcode_status amdpcode_launch_set_sizes(amdpcode_launch *launch, uint32_t wave, uint64_t lds_bytes,
                                          uint64_t scratch_bytes);
/* Declares len bytes at addr (this process's memory) as global memory the kernel may read and
 * write at the same addresses. No other byte of the process is read or written: a store
 * outside the declared ranges is a fault; a load reads zero for the bytes outside them, and
 * faults when it touches no declared byte and reaches a 4 KiB page that holds none (see
 * docs/dispatch.md, "Host memory"). The memory must stay valid and untouched by other threads
 * during each dispatch. */
amdpcode_status amdpcode_launch_add_range(amdpcode_launch *launch, void *addr, size_t len);
void amdpcode_launch_free(amdpcode_launch *launch);

/* Runs the launch. On failure the declared memory is unchanged and amdpcode_last_error() says
 * what happened (a memory fault names the workgroup, wave, PC, instruction and address). */
amdpcode_status amdpcode_dispatch(amdpcode_engine *engine, const amdpcode_launch *launch);

#ifdef __cplusplus
}
#endif

#endif
