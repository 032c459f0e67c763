#include "seqc_arena.h"

#include <stdlib.h>
#include <string.h>

enum { kAlignment = 64 };

static _Thread_local seqc_arena *current_arena;

static size_t round_up(size_t size, size_t alignment) {
  return (size + alignment - 1) / alignment * alignment;
}

int seqc_arena_reserve(seqc_arena *arena, size_t capacity) {
  capacity = round_up(capacity, kAlignment);
  if (capacity <= arena->capacity)
    return 0;
  void *base = aligned_alloc(kAlignment, capacity);
  if (!base)
    return -1;
  free(arena->base);
  arena->base = (unsigned char *)base;
  arena->capacity = capacity;
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
  current_arena = arena;
}

void seqc_arena_end(seqc_arena *arena) {
  for (size_t i = 0; i < arena->overflow_count; ++i)
    free(arena->overflow[i]);
  arena->overflow_count = 0;
  current_arena = 0;
}

static void *overflow_alloc(seqc_arena *arena, size_t alignment, size_t size) {
  if (arena->overflow_count == arena->overflow_capacity) {
    size_t grown = arena->overflow_capacity ? 2 * arena->overflow_capacity : 16;
    void **list = (void **)realloc(arena->overflow, grown * sizeof(void *));
    if (!list)
      return 0;
    arena->overflow = list;
    arena->overflow_capacity = grown;
  }
  void *block = aligned_alloc(alignment, round_up(size ? size : 1, alignment));
  if (block)
    arena->overflow[arena->overflow_count++] = block;
  return block;
}

void *seqc_arena_aligned_alloc(size_t alignment, size_t size) {
  seqc_arena *arena = current_arena;
  if (alignment < kAlignment)
    alignment = kAlignment;
  if (!arena) /* Not inside a call (cannot happen from seqc's runtimes). */
    return aligned_alloc(alignment, round_up(size ? size : 1, alignment));
  size_t start = round_up(arena->used, alignment);
  size_t end = start + round_up(size, kAlignment);
  arena->needed = round_up(arena->needed, alignment) + round_up(size, kAlignment);
  if (end <= arena->capacity) {
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
  if (arena && arena->error_site < 0) {
    arena->error_site = site;
    arena->error_count = count;
  }
}
