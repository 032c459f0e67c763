/* Working memory of a compiled seqc model.
 *
 * The compiled code allocates through _mlir_memref_to_llvm_alloc (see
 * lib/Target/CPU/Pipeline.cpp); those calls land in seqc_arena_alloc, which
 * bumps a pointer in the arena of the call running on this thread. The arena
 * is reset when a call begins and never freed in between, so a call makes
 * no system allocation once the arena is big enough. A call that needs more
 * than the arena holds is still served (from malloc, freed when the call
 * ends) and records how much it needed, so that the owner can grow the arena
 * once (the JIT) or size it up front (the AOT library's create, which runs
 * the model once at the largest shape it accepts). Plain C, no MLIR: it is
 * compiled into seqc and into every generated shared library. */
#ifndef SEQC_ARENA_H
#define SEQC_ARENA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct seqc_arena {
  unsigned char *base;
  size_t capacity;
  size_t used;
  /* Bytes the current call has asked for so far, overflow included. */
  size_t needed;
  /* Blocks malloc'ed because the arena was full; freed by seqc_arena_end. */
  void **overflow;
  size_t overflow_count, overflow_capacity;
  /* First runtime error of the call: site number (-1: none) and count. */
  int32_t error_site;
  int64_t error_count;
} seqc_arena;

/* Makes `arena` hold at least `capacity` bytes (it is reset anyway).
 * Returns 0, or -1 when out of memory. */
int seqc_arena_reserve(seqc_arena *arena, size_t capacity);
void seqc_arena_release(seqc_arena *arena);

/* Brackets one call of the compiled model on the calling thread. */
void seqc_arena_begin(seqc_arena *arena);
void seqc_arena_end(seqc_arena *arena);

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
