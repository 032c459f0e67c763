#include "seqc_arena.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { kAlignment = 64 };

static _Thread_local seqc_arena *current_arena;

/* `size` rounded up to a multiple of `alignment` (a power of two), or 0 when
 * that does not fit in a size_t. */
static size_t round_up(size_t size, size_t alignment) {
  size_t sum;
  if (__builtin_add_overflow(size, alignment - 1, &sum))
    return 0;
  return sum & ~(alignment - 1);
}

int seqc_arena_reserve(seqc_arena *arena, size_t capacity) {
  size_t rounded = round_up(capacity, kAlignment);
  if (capacity && !rounded)
    return -1;
  if (rounded <= arena->capacity)
    return 0;
  void *base = aligned_alloc(kAlignment, rounded);
  if (!base)
    return -1;
  free(arena->base);
  arena->base = (unsigned char *)base;
  arena->capacity = rounded;
  return 0;
}

void seqc_arena_release(seqc_arena *arena) {
  free(arena->base);
  free(arena->overflow);
  memset(arena, 0, sizeof *arena);
}

void seqc_arena_begin(seqc_arena *arena) {
  arena->used = 0;
  arena->needed = 0;
  arena->error_site = -1;
  arena->error_count = 0;
  arena->failed_size = 0;
  current_arena = arena;
}

void seqc_arena_end(seqc_arena *arena) {
  for (size_t i = 0; i < arena->overflow_count; ++i)
    free(arena->overflow[i]);
  arena->overflow_count = 0;
  arena->jump = 0;
  current_arena = 0;
}

int seqc_arena_run(seqc_arena *arena, void (*fn)(void *, void *), void *result,
                   void *input) {
  jmp_buf env;
  seqc_arena_begin(arena);
  arena->jump = &env;
  if (setjmp(env)) {
    arena->jump = 0;
    return SEQC_ARENA_OUT_OF_MEMORY;
  }
  fn(result, input);
  arena->jump = 0;
  return 0;
}

/* An allocation of the running call failed: abandon the call. */
static void *out_of_memory(seqc_arena *arena, size_t size) {
  arena->failed_size = size;
  if (arena->jump)
    longjmp(*(jmp_buf *)arena->jump, 1);
  return 0;
}

static void *overflow_alloc(seqc_arena *arena, size_t alignment, size_t size) {
  if (arena->overflow_count == arena->overflow_capacity) {
    size_t grown = arena->overflow_capacity ? 2 * arena->overflow_capacity : 16;
    size_t bytes;
    if (__builtin_mul_overflow(grown, sizeof(void *), &bytes))
      return out_of_memory(arena, size);
    void **list = (void **)realloc(arena->overflow, bytes);
    if (!list)
      return out_of_memory(arena, size);
    arena->overflow = list;
    arena->overflow_capacity = grown;
  }
  size_t rounded = round_up(size ? size : 1, alignment);
  void *block = rounded ? aligned_alloc(alignment, rounded) : 0;
  if (!block)
    return out_of_memory(arena, size);
  arena->overflow[arena->overflow_count++] = block;
  return block;
}

void *seqc_arena_aligned_alloc(size_t alignment, size_t size) {
  seqc_arena *arena = current_arena;
  if (alignment < kAlignment)
    alignment = kAlignment;
  if (alignment & (alignment - 1)) /* not a power of two */
    return arena ? out_of_memory(arena, size) : 0;
  if (!arena) { /* Not inside a call (cannot happen from seqc's runtimes). */
    size_t rounded = round_up(size ? size : 1, alignment);
    return rounded ? aligned_alloc(alignment, rounded) : 0;
  }
  size_t padded = round_up(size, kAlignment);
  if (size && !padded)
    return out_of_memory(arena, size);
  /* What the call needs in all; saturates (and then cannot be reserved). */
  size_t needed = round_up(arena->needed, alignment);
  if ((arena->needed && !needed) ||
      __builtin_add_overflow(needed, padded, &arena->needed))
    arena->needed = SIZE_MAX;
  size_t start = round_up(arena->used, alignment), end;
  if ((start || !arena->used) && !__builtin_add_overflow(start, padded, &end) &&
      end <= arena->capacity) {
    arena->used = end;
    return arena->base + start;
  }
  return overflow_alloc(arena, alignment, size);
}

void *seqc_arena_alloc(size_t size) {
  return seqc_arena_aligned_alloc(kAlignment, size);
}

void seqc_arena_free(void *ptr) {
  /* Memory returns to the arena when the next call begins. */
  (void)ptr;
}

void seqc_arena_report_error(int32_t site, int64_t count) {
  seqc_arena *arena = current_arena;
  if (arena && arena->error_site >= 0)
    return;
  if (arena) {
    arena->error_site = site;
    arena->error_count = count;
  }
}
