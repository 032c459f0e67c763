#include "WorkerPool.h"

#include <chrono>

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

using seq::cpu::WorkerPool;

namespace {

/// One turn of a spin: gives the core away when another thread wants it (one
/// of the pool's, where threads outnumber free cores), else returns at once.
void cpuRelax() { sched_yield(); }

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace

WorkerPool::WorkerPool(int count) : pid(getpid()) {
  // The threads take no signals: they belong to the process's other threads.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  for (int i = 1; i < count; ++i)
    threads.emplace_back([this, i] { work(i); });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

WorkerPool::~WorkerPool() {
  if (getpid() != pid) { // a forked child: the threads do not exist here
    for (std::thread &t : threads)
      t.detach();
    return;
  }
  quit = true;
  {
    std::lock_guard<std::mutex> guard(lock);
    wake.notify_all();
  }
  for (std::thread &t : threads)
    t.join();
}

uint64_t WorkerPool::nextGeneration(uint64_t seen) {
  uint64_t g;
  int64_t start = nowNs();
  while ((g = generation.load()) == seen && !quit.load()) {
    if (nowNs() - start <= kSpinNs) {
      cpuRelax();
      continue;
    }
    std::unique_lock<std::mutex> guard(lock);
    ++sleepers;
    wake.wait(guard, [&] { return (g = generation.load()) != seen || quit.load(); });
    --sleepers;
    break;
  }
  return g;
}

void WorkerPool::work(int index) {
  uint64_t seen = 0;
  for (;;) {
    seen = nextGeneration(seen);
    if (quit.load())
      return;
    // A thread that missed calls (it had no chunk in them) sees the latest:
    // the caller waits for every thread with a chunk.
    if (index >= static_cast<int>(seen & 0xffff))
      continue;
    job(index);
    if (pending.fetch_sub(1) == 1) {
      std::lock_guard<std::mutex> guard(lock);
      if (callerSleeping)
        done.notify_one();
    }
  }
}

bool WorkerPool::tryRun(int count, llvm::function_ref<void(int)> fn) {
  if (getpid() != pid)
    return false;
  std::unique_lock<std::mutex> call(busy, std::try_to_lock);
  if (!call)
    return false;
  if (count > 1) {
    job = fn;
    pending = count - 1;
    uint64_t g = generation.load();
    generation = ((g >> 16) + 1) << 16 | static_cast<uint64_t>(count);
    std::lock_guard<std::mutex> guard(lock);
    if (sleepers)
      wake.notify_all();
  }
  fn(0);
  if (count > 1) {
    int64_t start = nowNs();
    while (pending.load() > 0 && nowNs() - start <= kSpinNs)
      cpuRelax();
    if (pending.load() > 0) {
      std::unique_lock<std::mutex> guard(lock);
      callerSleeping = true;
      done.wait(guard, [&] { return pending.load() == 0; });
      callerSleeping = false;
    }
  }
  return true;
}

int seq::cpu::onlineCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}
