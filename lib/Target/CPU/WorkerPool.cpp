#include "WorkerPool.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

using seq::cpu::WorkerPool;

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
  {
    std::lock_guard<std::mutex> guard(lock);
    quit = true;
  }
  wake.notify_all();
  for (std::thread &t : threads)
    t.join();
}

void WorkerPool::work(int index) {
  std::unique_lock<std::mutex> guard(lock);
  unsigned long seen = 0;
  for (;;) {
    wake.wait(guard, [&] { return quit || generation != seen; });
    if (quit)
      return;
    seen = generation;
    bool mine = index < chunks;
    guard.unlock();
    if (mine)
      job(index);
    guard.lock();
    if (mine && --pending == 0)
      done.notify_one();
  }
}

bool WorkerPool::tryRun(int count, llvm::function_ref<void(int)> fn) {
  if (getpid() != pid)
    return false;
  std::unique_lock<std::mutex> call(busy, std::try_to_lock);
  if (!call)
    return false;
  {
    std::lock_guard<std::mutex> guard(lock);
    job = fn;
    chunks = count;
    pending = count - 1;
    if (count > 1)
      ++generation;
  }
  if (count > 1)
    wake.notify_all();
  fn(0);
  std::unique_lock<std::mutex> guard(lock);
  done.wait(guard, [&] { return pending == 0; });
  return true;
}

int seq::cpu::onlineCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}
