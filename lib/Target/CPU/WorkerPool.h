// A fixed pool of threads that runs the chunks of one call of the JIT
// engine (the AOT library has the same in C, runtime/seqc_model_api.c):
// started with the engine, no allocation per call.
#ifndef SEQ_LIB_TARGET_CPU_WORKERPOOL_H
#define SEQ_LIB_TARGET_CPU_WORKERPOOL_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace seq::cpu {

class WorkerPool {
public:
  /// A pool for `threads` chunks at once: threads - 1 threads of its own,
  /// the caller of run() being the first.
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;

  int size() const { return static_cast<int>(threads.size()) + 1; }

  /// Runs fn(0) on this thread and fn(1) .. fn(chunks - 1) on the pool's
  /// threads (chunks <= size()), and returns when all are done. One call at
  /// a time: returns false, running nothing, while another call holds the
  /// pool, and in a process forked since the pool started (it has none of
  /// the pool's threads).
  bool tryRun(int chunks, llvm::function_ref<void(int)> fn);

  /// How long a thread waiting for the next call, and a caller waiting for
  /// the threads, spin before they sleep: waking a sleeping thread takes
  /// tens of microseconds (more in a VM), which back-to-back calls skip.
  static constexpr int64_t kSpinNs = 100000;

private:
  void work(int index);
  uint64_t nextGeneration(uint64_t seen);

  std::mutex busy; // held by the call running on the pool
  // A call publishes `job`, then `generation` (a count times 2^16 plus the
  // call's chunks); `pending` counts the chunks left to the threads.
  llvm::function_ref<void(int)> job;
  std::atomic<uint64_t> generation{0};
  std::atomic<int> pending{0};
  std::atomic<bool> quit{false};
  std::mutex lock; // guards the sleepers' bookkeeping
  std::condition_variable wake, done;
  int sleepers = 0;
  bool callerSleeping = false;
  int pid; // the process whose threads these are
  std::vector<std::thread> threads;
};

/// The cores this process may run on (its CPU affinity).
int onlineCores();

} // namespace seq::cpu

#endif
