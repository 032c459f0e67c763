/* Working memory of a compiled seqc model.
 *
 * The compiled code allocates through _mlir_memref_to_llvm_alloc and frees
 * each buffer after its last use (see lib/Target/CPU/Pipeline.cpp); those
 * calls land in seqc_arena_alloc / seqc_arena_free, which place buffers at
 * offsets of the arena of the call running on this thread: first fit in the
 * holes that freed buffers left, else at the top. The placement depends only
 * on the sequence of requests, never on the arena's capacity, so a call that
 * finds the arena too small still records how many bytes the same call needs
 * (`needed`, the highest top) while its buffers beyond the capacity are
 * served from malloc (freed when the call ends); the owner then grows the
 * arena once (the JIT) or sizes it up front (the AOT library's create, which
 * runs the model once at the largest shape it accepts). The arena is reset
 * when a call begins, so a call makes no system allocation once the arena
 * (and its bookkeeping) is big enough.
 *
 * Compiled code never sees a failed allocation: when malloc fails (or a size
 * overflows), the allocation jumps back (longjmp) to seqc_arena_run, which
 * returns SEQC_ARENA_OUT_OF_MEMORY; the compiled code keeps no state outside
 * the arena, so nothing is left behind. Plain C, no MLIR: it is compiled into
 * seqc and, once at build time, into the support object of every generated
 * library. */
#ifndef SEQC_ARENA_H
#define SEQC_ARENA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most rows of a batch one run of a model's compiled code (one arena)
 * takes: the AOT library (seqc_model_api.c) and the jit engine
 * (JitEngine.cpp) run a larger call of a model whose rows are independent
 * (stateless, batch-major) in tiles of this many rows at most, each thread's
 * share in turn. Every intermediate result (a recurrence's input projection
 * is steps x gates x units floats per row) grows with the rows, and beyond a
 * few dozen rows they no longer stay in the core's L2 cache, while 64 rows
 * still fill the GEMM's register blocks: the seed model takes 3.8 us per row
 * up to batch 128 in one run, 4.7 us at batch 1024. Rows do not depend on
 * each other, so tiles change no result. */
#define SEQC_TILE_ROWS 64

/* A buffer of the running call at [offset, offset + size) of the arena
 * (served from ptr, which is outside the arena when it did not fit). */
typedef struct seqc_arena_buffer {
  void *ptr;
  size_t offset, size;
} seqc_arena_buffer;

/* Free bytes below the top: [offset, offset + size). */
typedef struct seqc_arena_hole {
  size_t offset, size;
} seqc_arena_hole;

typedef struct seqc_arena {
  unsigned char *base;
  size_t capacity;
  /* End of the highest live buffer of the current call. */
  size_t used;
  /* The highest `used` of the current call: the bytes it needs. */
  size_t needed;
  /* The live buffers, and the holes below `used` in offset order. */
  seqc_arena_buffer *live;
  size_t live_count, live_capacity;
  seqc_arena_hole *holes;
  size_t hole_count, hole_capacity;
  /* Blocks malloc'ed because the arena was full; freed by seqc_arena_end. */
  void **overflow;
  size_t overflow_count, overflow_capacity;
  /* First runtime error of the call: site number (-1: none) and count. */
  int32_t error_site;
  int64_t error_count;
  /* The size of the allocation that failed (set with SEQC_ARENA_OUT_OF_MEMORY). */
  size_t failed_size;
  /* The jmp_buf of the seqc_arena_run in progress, or NULL. */
  void *jump;
} seqc_arena;

enum { SEQC_ARENA_OUT_OF_MEMORY = -1 };

/* Makes `arena` hold at least `capacity` bytes (it is reset anyway).
 * Returns 0, or -1 when out of memory. */
int seqc_arena_reserve(seqc_arena *arena, size_t capacity);
void seqc_arena_release(seqc_arena *arena);

/* Brackets one call of the compiled model on the calling thread. */
void seqc_arena_begin(seqc_arena *arena);
void seqc_arena_end(seqc_arena *arena);

/* Calls fn(result, input) (a compiled model's _mlir_ciface_ function) inside
 * seqc_arena_begin/end's bracket. Returns 0, or SEQC_ARENA_OUT_OF_MEMORY when
 * an allocation of the call failed (arena->failed_size says how large); the
 * call was abandoned there and `result` is unspecified. */
int seqc_arena_run(seqc_arena *arena, void (*fn)(void *, void *), void *result,
                   void *input);

void *seqc_arena_alloc(size_t size);
void *seqc_arena_aligned_alloc(size_t alignment, size_t size);
void seqc_arena_free(void *ptr);
/* Called by compiled code for a data-dependent error (e.g. an embedding id
 * out of range): `site` indexes the module's seq.error_sites. */
void seqc_arena_report_error(int32_t site, int64_t count);

#ifdef __cplusplus
}
#endif

#endif
