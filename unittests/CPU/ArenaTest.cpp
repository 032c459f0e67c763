// seqc_arena: buffers placed first fit in the holes freed buffers leave, the
// bytes a call needs independent of the arena's size.
#include "seqc_arena.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace {

/// Brackets one call of a model on this thread (seqc_arena_run without the
/// compiled function).
struct Call {
  explicit Call(seqc_arena &arena) : arena(arena) { seqc_arena_begin(&arena); }
  ~Call() { seqc_arena_end(&arena); }
  seqc_arena &arena;
};

struct Arena : seqc_arena {
  Arena() : seqc_arena{} {}
  ~Arena() { seqc_arena_release(this); }
  size_t offset(const void *p) const { return static_cast<const unsigned char *>(p) - base; }
};

TEST(ArenaTest, FreedBytesGoToLaterBuffers) {
  Arena arena;
  ASSERT_EQ(seqc_arena_reserve(&arena, 1 << 16), 0);
  Call call(arena);
  void *a = seqc_arena_alloc(1000), *b = seqc_arena_alloc(1000);
  EXPECT_EQ(arena.offset(a), 0u);
  EXPECT_EQ(arena.offset(b), 1024u);
  seqc_arena_free(a);
  void *c = seqc_arena_alloc(500); // first fit: a's hole
  EXPECT_EQ(c, a);
  void *d = seqc_arena_alloc(600); // too large for what is left of it
  EXPECT_EQ(arena.offset(d), 2048u);
  EXPECT_EQ(arena.needed, 2048u + 640u);
}

TEST(ArenaTest, HolesMergeAndTheTopComesDown) {
  Arena arena;
  ASSERT_EQ(seqc_arena_reserve(&arena, 1 << 16), 0);
  Call call(arena);
  void *a = seqc_arena_alloc(64), *b = seqc_arena_alloc(64), *c = seqc_arena_alloc(64);
  void *d = seqc_arena_alloc(64);
  seqc_arena_free(a);
  seqc_arena_free(c);
  seqc_arena_free(b); // joins a's and c's holes: 192 bytes
  EXPECT_EQ(arena.hole_count, 1u);
  EXPECT_EQ(seqc_arena_alloc(192), a);
  seqc_arena_free(d); // the top buffer: the top comes down
  EXPECT_EQ(arena.used, 192u);
  EXPECT_EQ(arena.hole_count, 0u);
  EXPECT_EQ(arena.needed, 256u);
}

TEST(ArenaTest, OverAlignedBuffers) {
  Arena arena;
  ASSERT_EQ(seqc_arena_reserve(&arena, 1 << 16), 0);
  Call call(arena);
  void *a = seqc_arena_alloc(64);
  void *b = seqc_arena_aligned_alloc(4096, 100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 4096, 0u);
  EXPECT_EQ(arena.hole_count, 1u); // the gap below b
  void *c = seqc_arena_alloc(64);  // fits in the gap
  EXPECT_EQ(arena.offset(c), 64u);
  seqc_arena_free(a);
  seqc_arena_free(c);
  seqc_arena_free(b);
  EXPECT_EQ(arena.used, 0u);
  EXPECT_EQ(arena.hole_count, 0u);
}

/// A random sequence of allocations and frees, the same for every call.
void replay(seqc_arena &arena, std::vector<void *> *placed) {
  std::mt19937 rng(7);
  std::vector<std::pair<void *, size_t>> live;
  Call call(arena);
  for (int i = 0; i < 2000; ++i) {
    if (!live.empty() && rng() % 3 == 0) {
      size_t k = rng() % live.size();
      seqc_arena_free(live[k].first);
      live.erase(live.begin() + k);
      continue;
    }
    size_t size = 1 + rng() % 5000;
    void *p = rng() % 10 == 0 ? seqc_arena_aligned_alloc(256, size) : seqc_arena_alloc(size);
    std::fill_n(static_cast<unsigned char *>(p), size, 0xab); // writable
    placed->push_back(p);
    live.push_back({p, size});
    // No two live buffers overlap.
    auto *begin = static_cast<unsigned char *>(p);
    for (auto &[q, n] : live) {
      auto *other = static_cast<unsigned char *>(q);
      if (q != p)
        ASSERT_TRUE(begin + size <= other || other + n <= begin);
    }
  }
}

TEST(ArenaTest, NeededDoesNotDependOnTheArenasSize) {
  Arena empty;
  std::vector<void *> first;
  replay(empty, &first); // every buffer from malloc, but the layout is recorded
  size_t needed = empty.needed;
  Arena sized;
  ASSERT_EQ(seqc_arena_reserve(&sized, needed), 0);
  std::vector<void *> second;
  replay(sized, &second);
  EXPECT_EQ(sized.needed, needed);
  for (void *p : second) { // all inside the arena now
    EXPECT_GE(static_cast<unsigned char *>(p), sized.base);
    EXPECT_LT(static_cast<unsigned char *>(p), sized.base + sized.capacity);
  }
  EXPECT_EQ(sized.overflow_count, 0u);
  // And again: the bookkeeping is reused, nothing else grows.
  size_t live = sized.live_capacity, holes = sized.hole_capacity;
  std::vector<void *> third;
  replay(sized, &third);
  EXPECT_EQ(third, second);
  EXPECT_EQ(sized.live_capacity, live);
  EXPECT_EQ(sized.hole_capacity, holes);
}

} // namespace
