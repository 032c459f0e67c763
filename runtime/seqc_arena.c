#include "seqc_arena.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Every buffer starts on a cache line; the arena itself on a page, so that
 * an offset aligned to up to a page is an address aligned so. */
enum { kAlignment = 64, kBaseAlignment = 4096 };

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
  size_t page_rounded = round_up(rounded, kBaseAlignment);
  void *base = page_rounded ? aligned_alloc(kBaseAlignment, page_rounded) : 0;
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
  free(arena->live);
  free(arena->holes);
  memset(arena, 0, sizeof *arena);
}

void seqc_arena_begin(seqc_arena *arena) {
  arena->used = 0;
  arena->needed = 0;
  arena->live_count = 0;
  arena->hole_count = 0;
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

/* Grows a bookkeeping array to hold at least `count` elements; 0 or -1. */
static int reserve(void **list, size_t count, size_t *capacity, size_t element) {
  if (count <= *capacity)
    return 0;
  size_t grown = *capacity ? *capacity : 64, bytes;
  while (grown < count)
    if (__builtin_mul_overflow(grown, 2, &grown))
      return -1;
  if (__builtin_mul_overflow(grown, element, &bytes))
    return -1;
  void *bigger = realloc(*list, bytes);
  if (!bigger)
    return -1;
  *list = bigger;
  *capacity = grown;
  return 0;
}

/* Room for one more live buffer. Every hole lies just below a live buffer
 * (one that reached the top would have lowered it), so there are never more
 * holes than live buffers; placing a buffer adds at most one hole, and
 * freeing one inserts one before merging: room for one more hole than live
 * buffers means neither placing nor freeing ever has to grow the array. */
static int reserve_bookkeeping(seqc_arena *arena) {
  size_t count = arena->live_count + 1;
  return reserve((void **)&arena->live, count, &arena->live_capacity, sizeof *arena->live) ||
         reserve((void **)&arena->holes, count + 1, &arena->hole_capacity,
                 sizeof *arena->holes);
}

/* The offset of a new buffer of `padded` bytes aligned to `alignment`: the
 * first hole it fits in, else the top. Returns 0 when the offsets overflow. */
static int place(seqc_arena *arena, size_t alignment, size_t padded, size_t *offset) {
  for (size_t i = 0; i < arena->hole_count; ++i) {
    seqc_arena_hole *hole = &arena->holes[i];
    size_t start = round_up(hole->offset, alignment), hole_end = hole->offset + hole->size;
    if (start < hole->offset || start > hole_end || hole_end - start < padded)
      continue; /* (start < offset: the rounding overflowed) */
    size_t before = start - hole->offset, after = hole_end - start - padded;
    if (before && after) { /* an over-aligned buffer inside the hole: split it */
      memmove(hole + 1, hole, (arena->hole_count - i) * sizeof *hole);
      ++arena->hole_count;
      hole[0].size = before;
      hole[1].offset = start + padded;
      hole[1].size = after;
    } else if (before) {
      hole->size = before;
    } else if (after) {
      hole->offset = start + padded;
      hole->size = after;
    } else {
      memmove(hole, hole + 1, (arena->hole_count - i - 1) * sizeof *hole);
      --arena->hole_count;
    }
    *offset = start;
    return 1;
  }
  size_t start = round_up(arena->used, alignment), end;
  if ((arena->used && !start) || __builtin_add_overflow(start, padded, &end))
    return 0;
  if (start > arena->used) /* the alignment gap below an over-aligned buffer */
    arena->holes[arena->hole_count++] = (seqc_arena_hole){arena->used, start - arena->used};
  arena->used = end;
  if (end > arena->needed)
    arena->needed = end;
  *offset = start;
  return 1;
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
  if (alignment > kBaseAlignment) /* beyond what an offset can promise */
    return overflow_alloc(arena, alignment, size);
  /* Every buffer takes at least one line, so that each has its own address. */
  size_t padded = round_up(size ? size : 1, kAlignment), offset;
  if (!padded || reserve_bookkeeping(arena) || !place(arena, alignment, padded, &offset))
    return out_of_memory(arena, size);
  void *ptr = offset <= arena->capacity && padded <= arena->capacity - offset
                  ? arena->base + offset
                  : overflow_alloc(arena, alignment, size);
  arena->live[arena->live_count++] = (seqc_arena_buffer){ptr, offset, padded};
  return ptr;
}

void *seqc_arena_alloc(size_t size) {
  return seqc_arena_aligned_alloc(kAlignment, size);
}

/* Returns [offset, offset + size) to the holes, merged with its neighbours;
 * a hole that reaches the top lowers the top instead. */
static void release(seqc_arena *arena, size_t offset, size_t size) {
  size_t i = 0;
  while (i < arena->hole_count && arena->holes[i].offset < offset)
    ++i;
  seqc_arena_hole *holes = arena->holes;
  int merges_before = i > 0 && holes[i - 1].offset + holes[i - 1].size == offset;
  int merges_after = i < arena->hole_count && offset + size == holes[i].offset;
  if (merges_before && merges_after) {
    holes[i - 1].size += size + holes[i].size;
    memmove(holes + i, holes + i + 1, (arena->hole_count - i - 1) * sizeof *holes);
    --arena->hole_count;
    --i;
  } else if (merges_before) {
    holes[--i].size += size;
  } else if (merges_after) {
    holes[i].offset = offset;
    holes[i].size += size;
  } else {
    /* Room for it was reserved (reserve_bookkeeping). */
    memmove(holes + i + 1, holes + i, (arena->hole_count - i) * sizeof *holes);
    holes[i] = (seqc_arena_hole){offset, size};
    ++arena->hole_count;
  }
  if (holes[i].offset + holes[i].size == arena->used) {
    arena->used = holes[i].offset;
    --arena->hole_count; /* the last hole */
  }
}

void seqc_arena_free(void *ptr) {
  seqc_arena *arena = current_arena;
  if (!arena || !ptr)
    return;
  /* Buffers die mostly in the reverse order of their birth. */
  for (size_t i = arena->live_count; i-- > 0;) {
    if (arena->live[i].ptr != ptr)
      continue;
    seqc_arena_buffer buffer = arena->live[i];
    arena->live[i] = arena->live[--arena->live_count];
    /* A buffer served from malloc stays until the call ends; its place in
     * the arena's layout is freed all the same. */
    release(arena, buffer.offset, buffer.size);
    return;
  }
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
