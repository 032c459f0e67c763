/* The C API of a seqc AOT library (declared in the generated header, see
 * seqc_model.h.in). Compiled ONCE, when seqc is built, together with
 * seqc_arena.c into one relocatable support object that seq-compile links
 * next to each model's code: no C source is compiled per model, and nothing
 * here depends on the model. What does is data that seq-compile emits as
 * LLVM globals into the model's object (lib/Target/CPU/AotCompiler.cpp,
 * addModelData), under the fixed names declared below. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "seqc_arena.h"
#include "seqc_model_public.h" /* the header template, for its prototypes */

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SEQC_API __attribute__((visibility("default")))
#define SEQC_DATA extern __attribute__((visibility("hidden")))

/* The largest input / output rank a library supports (seq-compile refuses
 * a model above it); keep equal to seq::cpu::kMaxAotRank. */
#define SEQC_MAX_RANK 8
/* The most inputs, and the most outputs, of a model; keep equal to
 * seq::cpu::kMaxAotPorts. */
#define SEQC_MAX_PORTS 16
/* The most threads an instance runs a call on. */
#define SEQC_MAX_THREADS 256
/* With threads = 0 (automatic), a call's batch is split no finer than
 * chunks of about this much work (nanoseconds, estimated from create's
 * warm-up run): waking a worker costs microseconds. */
#define SEQC_MIN_CHUNK_NS 50000
/* How long a worker waiting for the next call, and a caller waiting for
 * the workers, spin before they sleep (ns): waking a sleeping thread takes
 * tens of microseconds (more in a VM), which back-to-back calls then skip. */
#define SEQC_SPIN_NS 100000

/* ---- The model's data (emitted by seq-compile into model.o). ---- */
/* Inputs and outputs: their count, each one's rank, all their dimensions
 * one port after the other (-1 = dynamic), each one's Keras name. */
SEQC_DATA const int32_t seqc_input_count, seqc_output_count;
SEQC_DATA const int32_t seqc_input_ranks[], seqc_output_ranks[];
SEQC_DATA const int64_t seqc_input_dims[], seqc_output_dims[];
SEQC_DATA const char *const seqc_input_names[], *const seqc_output_names[];
/* The metadata JSON, NUL-terminated. */
SEQC_DATA const char seqc_metadata[];
/* What seqc_report_error(site, ...) means. */
SEQC_DATA const int32_t seqc_error_site_count;
SEQC_DATA const char *const seqc_error_sites[];
SEQC_DATA const int64_t seqc_default_max_batch, seqc_default_max_seq_len;
/* The state of a stateful model: seqc_state_count slots, slot i at float
 * seqc_state_offsets[i] of the flat state, seqc_state_offsets[count] floats
 * in all; the Keras layer of each slot. */
SEQC_DATA const int32_t seqc_state_count;
SEQC_DATA const int64_t seqc_state_offsets[];
SEQC_DATA const char *const seqc_state_layers[];

/* A memref descriptor as int64 words: allocated pointer, aligned pointer,
 * offset, sizes[rank], strides[rank]. */
#define SEQC_DESCRIPTOR_WORDS (3 + 2 * SEQC_MAX_RANK)
typedef int64_t seqc_descriptor[SEQC_DESCRIPTOR_WORDS];
static int64_t *desc_sizes(int64_t *d) { return d + 3; }
static int64_t *desc_strides(int64_t *d, int rank) { return d + 3 + rank; }

/* The compiled model (AotCompiler.cpp and LoweredModel.cpp,
 * addPredictEntry): `inputs` points to one descriptor per input; `results`
 * receives one descriptor per output, then a stateful model's new state's;
 * `state` is unused for a stateless model. */
void seqc_model_predict(void *results, void **inputs, void *state);

/* What the compiled code calls for memory and runtime errors. */
void *_mlir_memref_to_llvm_alloc(size_t size) { return seqc_arena_alloc(size); }
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  return seqc_arena_aligned_alloc(alignment, size);
}
void _mlir_memref_to_llvm_free(void *ptr) { seqc_arena_free(ptr); }
void seqc_report_error(int32_t site, int64_t count) {
  seqc_arena_report_error(site, count);
}

/* One share of a call: worker 0 is the calling thread (no thread of its
 * own), workers 1.. are the pool's threads. Each has its own arena. */
struct seqc_worker {
  seqc_model *model;
  int index;
  int started;
  pthread_t thread;
  seqc_arena arena;
  int rc;
  char error[512];
};

/* The call the pool is running (pointers into the caller's arguments). */
struct seqc_job {
  const float *const *inputs;
  float *const *outputs;
  const int64_t *seq_lens;
  int64_t batch;
  int chunks;
};

struct seqc_model {
  int64_t max_batch, max_seq_len;
  /* threads workers (>= 1); rows of the largest chunk an arena is sized
   * for; with automatic threads, the fewest rows worth a chunk (else 1). */
  int threads;
  int64_t share, min_chunk_rows;
  /* The most rows of one run of the compiled code (SEQC_TILE_ROWS for a
   * splittable model, else every row of the call). */
  int64_t tile_rows;
  struct seqc_worker *workers;
  /* The pool: a call publishes m->job, then `generation` (a count times
   * 2^16, plus the call's chunks); workers spin, then sleep on `wake`, until
   * it changes; the caller spins, then sleeps on `done`, until `pending`
   * (chunks left to the workers) is 0. */
  int pool_ready;
  /* The process that started the pool: a child forked since has none of
   * its threads, and runs every call on the calling thread. */
  pid_t pool_pid;
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
  _Atomic uint64_t generation;
  _Atomic int pending, quit;
  int sleepers, caller_sleeping; /* under `lock` */
  struct seqc_job job;
  /* The flat state of a stateful model (NULL when stateless). */
  float *state;
  /* Zeros for one probe batch of the largest input, for output shape probes
   * of a dynamic time axis (read-only: every input reads it). */
  float *probe_input;
  int64_t probe_seq_lens[SEQC_MAX_PORTS];
  int probe_valid;
  int64_t probe_dims[SEQC_MAX_PORTS][SEQC_MAX_RANK];
  char error[512];
};

/* Why the last seqc_model_create[_sized] on this thread failed. */
static _Thread_local char create_error[512];

static int64_t state_size(void) { return seqc_state_offsets[seqc_state_count]; }

/* Port k's rank and dimensions. */
static int in_rank(int k) { return seqc_input_ranks[k]; }
static int out_rank(int k) { return seqc_output_ranks[k]; }
static const int64_t *in_dims(int k) {
  const int64_t *d = seqc_input_dims;
  for (int i = 0; i < k; ++i)
    d += seqc_input_ranks[i];
  return d;
}
static const int64_t *out_dims(int k) {
  const int64_t *d = seqc_output_dims;
  for (int i = 0; i < k; ++i)
    d += seqc_output_ranks[i];
  return d;
}

/* The batch of a model whose batch is fixed (a stateful one), else -1. */
static int64_t fixed_batch(void) { return in_dims(0)[0]; }

/* The batch of the output shape probe. */
static int64_t probe_batch(void) { return fixed_batch() >= 0 ? fixed_batch() : 1; }

static int time_is_dynamic(int k) { return in_rank(k) >= 2 && in_dims(k)[1] < 0; }
static int any_time_is_dynamic(void) {
  for (int k = 0; k < seqc_input_count; ++k)
    if (time_is_dynamic(k))
      return 1;
  return 0;
}
/* Input k's fixed length of axis 1 (0 without one). */
static int64_t fixed_length(int k) { return in_rank(k) >= 2 ? in_dims(k)[1] : 0; }

static int output_has_dynamic_axis(void) {
  for (int k = 0; k < seqc_output_count; ++k)
    for (int i = 1; i < out_rank(k); ++i)
      if (out_dims(k)[i] < 0)
        return 1;
  return 0;
}

/* a * b, or -1 when either is negative or the product overflows. */
static int64_t checked_mul(int64_t a, int64_t b) {
  int64_t p;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &p))
    return -1;
  return p;
}

/* Input k's sizes for a batch and a resolved seq_len. */
static void input_sizes(int k, int64_t batch, int64_t seq_len, int64_t *sizes) {
  for (int i = 0; i < in_rank(k); ++i)
    sizes[i] = in_dims(k)[i];
  sizes[0] = batch;
  if (time_is_dynamic(k))
    sizes[1] = seq_len;
}

/* Floats of one sample of input k, or -1 when that overflows. */
static int64_t sample_floats(int k, int64_t seq_len) {
  int64_t sizes[SEQC_MAX_RANK];
  input_sizes(k, 1, seq_len, sizes);
  int64_t n = 1;
  for (int i = 1; i < in_rank(k); ++i)
    n = checked_mul(n, sizes[i]);
  return n;
}

/* The length of input k's axis 1 for this call, or -1 when it is not
 * allowed. */
static int64_t resolve_seq_len(const seqc_model *m, int k, int64_t seq_len) {
  if (!time_is_dynamic(k))
    return seq_len == 0 || (in_rank(k) >= 2 && seq_len == fixed_length(k))
               ? fixed_length(k)
               : -1;
  return seq_len >= 1 && seq_len <= m->max_seq_len ? seq_len : -1;
}

static int fail(seqc_model *m, int code, const char *message) {
  snprintf(m->error, sizeof m->error, "%s", message);
  return code;
}

/* Copies a strided result of `rank` row-major into `output`. */
static void copy_output(int64_t *d, int rank, float *output) {
  const int64_t *sizes = desc_sizes(d), *strides = desc_strides(d, rank);
  const float *base = (const float *)(intptr_t)d[1] + d[2];
  int64_t total = 1;
  for (int i = 0; i < rank; ++i)
    total *= sizes[i];
  if (total == 0)
    return;
  /* The trailing axes that are row-major in the result buffer (usually all
   * of them) form runs copied whole; the axes before them are walked. */
  int outer = rank;
  int64_t run = 1;
  while (outer > 0 && (sizes[outer - 1] == 1 || strides[outer - 1] == run)) {
    run *= sizes[outer - 1];
    --outer;
  }
  int64_t index[SEQC_MAX_RANK] = {0};
  for (int64_t flat = 0; flat < total; flat += run) {
    int64_t offset = 0;
    for (int i = 0; i < outer; ++i)
      offset += index[i] * strides[i];
    memcpy(output + flat, base + offset, (size_t)run * sizeof(float));
    for (int i = outer - 1; i >= 0; --i) {
      if (++index[i] < sizes[i])
        break;
      index[i] = 0;
    }
  }
}

/* The arguments seqc_arena_run passes through to seqc_model_predict. */
struct predict_call {
  void **inputs;
  void *state;
};
static void call_predict(void *results, void *call) {
  struct predict_call *c = (struct predict_call *)call;
  seqc_model_predict(results, c->inputs, c->state);
}

/* The message of a data-dependent error: `count` values failed check `site`. */
static void input_error(char *error, int32_t site, int64_t count) {
  const char *what =
      site < seqc_error_site_count ? seqc_error_sites[site] : "runtime error";
  snprintf(error, 512, "%s (%lld values); check the input", what,
           (long long)count);
}

/* One call of the compiled model on every input (`seq_lens` resolved), in
 * `arena` (the calling thread's: see seqc_arena.h); on failure the message
 * goes to `error` (512 bytes). `outputs` and `dims` may be NULL; output k's
 * rows are written from row `first_row` of outputs[k] on. A stateful model
 * reads m->state and, with `update_state`, keeps the state the call leaves
 * (a successful call only). */
static int invoke(seqc_model *m, seqc_arena *arena, char *error,
                  const float *const *inputs, int64_t batch,
                  const int64_t *seq_lens, float *const *outputs,
                  int64_t first_row, int64_t (*dims)[SEQC_MAX_RANK],
                  int update_state) {
  seqc_descriptor in[SEQC_MAX_PORTS], state;
  void *in_pointers[SEQC_MAX_PORTS];
  /* The outputs' descriptors, then a stateful model's 1-D state. */
  int64_t results[SEQC_MAX_PORTS * SEQC_DESCRIPTOR_WORDS + 5];
  for (int k = 0; k < seqc_input_count; ++k) {
    int rank = in_rank(k);
    input_sizes(k, batch, seq_lens[k], desc_sizes(in[k]));
    int64_t stride = 1;
    for (int i = rank - 1; i >= 0; --i) {
      desc_strides(in[k], rank)[i] = stride;
      stride *= desc_sizes(in[k])[i];
    }
    in[k][0] = in[k][1] = (int64_t)(intptr_t)inputs[k]; /* never written */
    in[k][2] = 0;
    in_pointers[k] = in[k];
  }
  state[0] = state[1] = (int64_t)(intptr_t)m->state; /* never written */
  state[2] = 0;
  state[3] = state_size();
  state[4] = 1;
  struct predict_call call = {in_pointers, state};
  int rc = SEQC_OK;
  if (seqc_arena_run(arena, call_predict, results, &call) != 0) {
    snprintf(error, 512,
             "out of memory: the model could not allocate %zu bytes of "
             "working memory",
             arena->failed_size);
    rc = SEQC_ERROR_MEMORY;
  } else if (arena->error_site >= 0) {
    input_error(error, arena->error_site, arena->error_count);
    rc = SEQC_ERROR_INPUT;
  } else {
    int64_t *d = results;
    for (int k = 0; k < seqc_output_count; ++k) {
      if (outputs) {
        /* Row-major: the chunk's rows start first_row rows in. */
        int64_t row = 1;
        for (int i = 1; i < out_rank(k); ++i)
          row *= desc_sizes(d)[i];
        copy_output(d, out_rank(k), outputs[k] + first_row * row);
      }
      if (dims)
        memcpy(dims[k], desc_sizes(d), out_rank(k) * sizeof(int64_t));
      d += 3 + 2 * out_rank(k);
    }
    if (m->state && update_state)
      memcpy(m->state, (const float *)(intptr_t)d[1] + d[2],
             (size_t)state_size() * sizeof(float));
  }
  seqc_arena_end(arena);
  /* Buffers are placed first fit, so a smaller call can, rarely, need more
   * than the largest one create sized the arena for: that call was served
   * from malloc, and the arena grows once (failing to is no error). */
  if (rc != SEQC_ERROR_MEMORY && arena->needed > arena->capacity)
    (void)seqc_arena_reserve(arena, arena->needed);
  return rc;
}

/* ---- Threads: a call's batch split into chunks, one per worker. ---- */

/* Folds the bad input a run in `arena` reported into a call's (`site` -1:
 * none yet), as one run over all the rows reports it: the first check that
 * failed (the lowest site), with its count summed over the runs. */
static void merge_input_error(int32_t *site, int64_t *count, const seqc_arena *arena) {
  if (*site < 0 || arena->error_site < *site) {
    *site = arena->error_site;
    *count = 0;
  }
  if (arena->error_site == *site)
    *count += arena->error_count;
}

/* Rows [*first, *first + *rows) of chunk i of `chunks` over `batch`. */
static void chunk_rows(int64_t batch, int chunks, int i, int64_t *first,
                       int64_t *rows) {
  *first = batch * i / chunks;
  *rows = batch * (i + 1) / chunks - *first;
}

/* Runs chunk i of m->job in worker i's arena, in tiles of at most
 * m->tile_rows rows (see SEQC_TILE_ROWS); the result goes to the worker's
 * rc and error, bad input merged over the tiles (merge_input_error). */
static void run_chunk(seqc_model *m, int i) {
  const struct seqc_job *job = &m->job;
  struct seqc_worker *w = &m->workers[i];
  int64_t first, rows;
  chunk_rows(job->batch, job->chunks, i, &first, &rows);
  int tiles = (int)((rows + m->tile_rows - 1) / m->tile_rows);
  int32_t site = -1;
  int64_t count = 0;
  w->rc = SEQC_OK;
  for (int t = 0; t < tiles; ++t) {
    int64_t tile_first, tile_rows;
    chunk_rows(rows, tiles, t, &tile_first, &tile_rows);
    tile_first += first;
    const float *inputs[SEQC_MAX_PORTS];
    for (int k = 0; k < seqc_input_count; ++k)
      inputs[k] = job->inputs[k] + tile_first * sample_floats(k, job->seq_lens[k]);
    int rc = invoke(m, &w->arena, w->error, inputs, tile_rows, job->seq_lens,
                    job->outputs, tile_first, NULL, 0);
    if (rc == SEQC_ERROR_INPUT) {
      merge_input_error(&site, &count, &w->arena);
    } else if (rc != SEQC_OK) {
      w->rc = rc;
      return;
    }
  }
  if (site >= 0) {
    w->rc = SEQC_ERROR_INPUT;
    w->arena.error_site = site;
    w->arena.error_count = count;
    input_error(w->error, site, count);
  }
}

/* One turn of a spin: gives the core away when another thread wants it (one
 * of the pool's, where threads outnumber free cores), else returns at once. */
static void cpu_relax(void) { sched_yield(); }

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The generation after `seen` (spinning, then sleeping), or `seen` when the
 * pool quits. */
static uint64_t next_generation(seqc_model *m, uint64_t seen) {
  uint64_t g;
  int64_t start = now_ns();
  while ((g = atomic_load(&m->generation)) == seen && !atomic_load(&m->quit))
    if (now_ns() - start > SEQC_SPIN_NS) {
      pthread_mutex_lock(&m->lock);
      ++m->sleepers;
      while ((g = atomic_load(&m->generation)) == seen && !atomic_load(&m->quit))
        pthread_cond_wait(&m->wake, &m->lock);
      --m->sleepers;
      pthread_mutex_unlock(&m->lock);
      break;
    } else {
      cpu_relax();
    }
  return g;
}

static void *worker_main(void *arg) {
  struct seqc_worker *w = (struct seqc_worker *)arg;
  seqc_model *m = w->model;
  uint64_t seen = 0;
  for (;;) {
    seen = next_generation(m, seen);
    if (atomic_load(&m->quit))
      break;
    /* A worker that missed calls (it had no chunk in them) sees the latest:
     * the caller waits for every worker with a chunk. */
    if (w->index >= (int)(seen & 0xffff))
      continue;
    run_chunk(m, w->index);
    if (atomic_fetch_sub(&m->pending, 1) == 1) {
      pthread_mutex_lock(&m->lock);
      if (m->caller_sleeping)
        pthread_cond_signal(&m->done);
      pthread_mutex_unlock(&m->lock);
    }
  }
  return NULL;
}

/* Runs `job` on job->chunks workers, chunk 0 on this thread, and waits for
 * all. Allocates nothing. Returns SEQC_OK or the error of the call, as
 * below. */
static int run_job(seqc_model *m, const struct seqc_job *job) {
  int chunks = job->chunks;
  m->job = *job;
  if (chunks > 1) {
    atomic_store(&m->pending, chunks - 1);
    uint64_t g = atomic_load(&m->generation);
    atomic_store(&m->generation, ((g >> 16) + 1) << 16 | (uint64_t)chunks);
    pthread_mutex_lock(&m->lock);
    if (m->sleepers)
      pthread_cond_broadcast(&m->wake);
    pthread_mutex_unlock(&m->lock);
  }
  run_chunk(m, 0);
  if (chunks > 1) {
    int64_t start = now_ns();
    while (atomic_load(&m->pending) > 0 && now_ns() - start <= SEQC_SPIN_NS)
      cpu_relax();
    if (atomic_load(&m->pending) > 0) {
      pthread_mutex_lock(&m->lock);
      m->caller_sleeping = 1;
      while (atomic_load(&m->pending) > 0)
        pthread_cond_wait(&m->done, &m->lock);
      m->caller_sleeping = 0;
      pthread_mutex_unlock(&m->lock);
    }
  }
  /* Out of memory in any chunk wins (the first); else the bad input of
   * every chunk, reported as one thread would: the first check that
   * failed, with its count over all the rows. */
  int32_t site = -1;
  int64_t count = 0;
  for (int i = 0; i < chunks; ++i) {
    struct seqc_worker *w = &m->workers[i];
    if (w->rc == SEQC_OK)
      continue;
    if (w->rc != SEQC_ERROR_INPUT) {
      memcpy(m->error, w->error, sizeof m->error);
      return w->rc;
    }
    merge_input_error(&site, &count, &w->arena);
  }
  if (site < 0)
    return SEQC_OK;
  input_error(m->error, site, count);
  return SEQC_ERROR_INPUT;
}

/* How many chunks a call of `batch` rows runs as: at most one per worker
 * and per row, no fewer than keep every chunk within the rows its arena
 * was sized for, and (automatic threads) none smaller than
 * m->min_chunk_rows. */
static int chunks_for(const seqc_model *m, int64_t batch) {
  if (m->threads <= 1 || batch <= 1 || !m->pool_ready || getpid() != m->pool_pid)
    return 1;
  int64_t chunks = batch < m->threads ? batch : m->threads;
  int64_t by_work = batch / m->min_chunk_rows;
  if (by_work < chunks)
    chunks = by_work;
  int64_t fit = (batch + m->share - 1) / m->share;
  if (chunks < fit)
    chunks = fit;
  return chunks < 1 ? 1 : (int)chunks;
}

/* Whether a call may be split along axis 0: a stateless model whose every
 * input and output has the batch as its axis 0. A stateful model runs on
 * one thread (its state rows would have to be split too). */
static int splittable(void) {
  if (state_size() > 0 || fixed_batch() >= 0)
    return 0;
  for (int k = 0; k < seqc_input_count; ++k)
    if (in_rank(k) < 1 || in_dims(k)[0] >= 0)
      return 0;
  for (int k = 0; k < seqc_output_count; ++k)
    if (out_rank(k) < 1 || out_dims(k)[0] >= 0)
      return 0;
  return 1;
}

/* The cores this process may run on. */
static int online_cores(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* Starts the pool's threads (workers 1..threads-1), with every signal
 * blocked in them. 0, or -1 when a thread cannot be started. */
static int start_pool(seqc_model *m) {
  if (pthread_mutex_init(&m->lock, NULL) != 0)
    return -1;
  if (pthread_cond_init(&m->wake, NULL) != 0) {
    pthread_mutex_destroy(&m->lock);
    return -1;
  }
  if (pthread_cond_init(&m->done, NULL) != 0) {
    pthread_cond_destroy(&m->wake);
    pthread_mutex_destroy(&m->lock);
    return -1;
  }
  m->pool_ready = 1;
  m->pool_pid = getpid();
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = 0;
  for (int i = 1; i < m->threads && rc == 0; ++i) {
    struct seqc_worker *w = &m->workers[i];
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
      rc = -1;
    else
      w->started = 1;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

static void stop_pool(seqc_model *m) {
  if (!m->pool_ready || getpid() != m->pool_pid) /* a forked child: no threads */
    return;
  atomic_store(&m->quit, 1);
  pthread_mutex_lock(&m->lock);
  pthread_cond_broadcast(&m->wake);
  pthread_mutex_unlock(&m->lock);
  for (int i = 1; i < m->threads; ++i)
    if (m->workers[i].started)
      pthread_join(m->workers[i].thread, NULL);
  pthread_cond_destroy(&m->done);
  pthread_cond_destroy(&m->wake);
  pthread_mutex_destroy(&m->lock);
  m->pool_ready = 0;
}

/* Runs every input reading `zeros` at seq_len on `chunks` workers (outputs
 * discarded, the state untouched). */
static int run_zeros(seqc_model *m, const float *zeros, int64_t batch,
                     int64_t seq_len, int chunks) {
  const float *inputs[SEQC_MAX_PORTS];
  int64_t seq_lens[SEQC_MAX_PORTS];
  for (int k = 0; k < seqc_input_count; ++k) {
    inputs[k] = zeros;
    seq_lens[k] = time_is_dynamic(k) ? seq_len : fixed_length(k);
  }
  struct seqc_job job = {inputs, NULL, seq_lens, batch, chunks};
  return run_job(m, &job);
}

static seqc_model *create_failed(seqc_model *m, const char *message) {
  snprintf(create_error, sizeof create_error, "%s", message);
  seqc_model_destroy(m);
  return NULL;
}

/* Floats of `batch` samples of the largest input, or -1 on overflow. */
static int64_t largest_input_floats(int64_t batch, int64_t seq_len) {
  int64_t largest = 0;
  for (int k = 0; k < seqc_input_count; ++k) {
    int64_t n = checked_mul(batch, sample_floats(k, seq_len));
    if (n < 0)
      return -1;
    if (n > largest)
      largest = n;
  }
  return largest;
}

/* create's failure with m->error (or `message` when that is empty). */
static seqc_model *create_failed_with(seqc_model *m, const char *message) {
  char text[sizeof m->error];
  snprintf(text, sizeof text, "%s", m->error[0] ? m->error : message);
  return create_failed(m, text);
}

SEQC_API seqc_model *seqc_model_create_threaded(int64_t max_batch,
                                                int64_t max_seq_len,
                                                int threads) {
  if (max_batch < 1)
    return create_failed(NULL, "seqc_model_create: max_batch must be at "
                               "least 1");
  if (threads < 0 || threads > SEQC_MAX_THREADS)
    return create_failed(NULL, "seqc_model_create_threaded: threads must be "
                               "0 (one per core) to 256");
  /* A fixed batch (a stateful model's) is the only one it runs. */
  if (fixed_batch() >= 0)
    max_batch = fixed_batch();
  if (!any_time_is_dynamic())
    max_seq_len = fixed_length(0);
  else if (max_seq_len < 1)
    return create_failed(NULL, "seqc_model_create: max_seq_len must be at "
                               "least 1");
  int automatic = threads == 0;
  if (automatic)
    threads = online_cores();
  if (threads > SEQC_MAX_THREADS)
    threads = SEQC_MAX_THREADS;
  if (!splittable())
    threads = 1;
  if (threads > max_batch)
    threads = (int)max_batch;
  /* Each worker's arena is sized for the largest chunk's largest tile. */
  int64_t share = (max_batch + threads - 1) / threads;
  /* The input of the sizing run, in bytes; too large is out of memory. */
  int64_t floats = largest_input_floats(max_batch, max_seq_len);
  int64_t bytes = checked_mul(floats < 1 ? 1 : floats, (int64_t)sizeof(float));
  int64_t probe_floats = largest_input_floats(probe_batch(), max_seq_len);
  if (floats < 0 || bytes < 0 || probe_floats < 0 || (uint64_t)bytes > SIZE_MAX)
    return create_failed(NULL, "out of memory: seqc_model_create: the bounds "
                               "are too large");
  seqc_model *m = (seqc_model *)calloc(1, sizeof *m);
  if (!m)
    return create_failed(NULL, "out of memory");
  m->max_batch = max_batch;
  m->max_seq_len = max_seq_len;
  m->threads = threads;
  m->share = share;
  m->min_chunk_rows = 1;
  m->tile_rows = splittable() && max_batch > SEQC_TILE_ROWS ? SEQC_TILE_ROWS : max_batch;
  m->workers = (struct seqc_worker *)calloc((size_t)threads, sizeof *m->workers);
  if (!m->workers) {
    m->threads = 0;
    return create_failed(m, "out of memory");
  }
  for (int i = 0; i < threads; ++i) {
    m->workers[i].model = m;
    m->workers[i].index = i;
  }
  if (state_size() > 0) {
    m->state = (float *)calloc((size_t)state_size(), sizeof(float));
    if (!m->state)
      return create_failed(m, "out of memory: cannot allocate the model's "
                              "state");
  }
  float *zeros = (float *)calloc((size_t)bytes, 1);
  if (!zeros)
    return create_failed(m, "out of memory: cannot allocate the input of the "
                            "sizing run");
  if (output_has_dynamic_axis()) {
    m->probe_input = (float *)calloc((size_t)probe_floats + 1, sizeof(float));
    if (!m->probe_input) {
      free(zeros);
      return create_failed(m, "out of memory");
    }
  }
  /* Sizing run of the largest chunk on this thread: the arena learns what
   * a chunk's tile needs; every worker's arena gets that much. */
  int rc = run_zeros(m, zeros, share, max_seq_len, 1);
  size_t needed = m->workers[0].arena.needed;
  for (int i = 0; rc != SEQC_ERROR_MEMORY && i < threads; ++i)
    if (seqc_arena_reserve(&m->workers[i].arena, needed) != 0) {
      snprintf(m->error, sizeof m->error,
               "out of memory: cannot allocate the %zu bytes of working memory "
               "the model needs",
               needed);
      rc = SEQC_ERROR_MEMORY;
    }
  if (rc != SEQC_ERROR_MEMORY && threads > 1 && start_pool(m) != 0) {
    free(zeros);
    return create_failed(m, "seqc_model_create_threaded: cannot start the "
                            "worker threads");
  }
  /* A run at the largest batch on every worker touches the arenas' pages
   * (and each thread's TLS), so that calls neither fault nor allocate; its
   * time on this thread tells the work per row. */
  if (rc != SEQC_ERROR_MEMORY) {
    int64_t start = now_ns();
    rc = run_zeros(m, zeros, max_batch, max_seq_len, threads);
    int64_t elapsed = now_ns() - start;
    if (automatic && threads > 1 && rc == SEQC_OK) {
      int64_t first, rows;
      chunk_rows(max_batch, threads, 0, &first, &rows);
      /* Rows of SEQC_MIN_CHUNK_NS of work (elapsed / rows ns per row). */
      int64_t per_row = elapsed / (rows > 0 ? rows : 1);
      m->min_chunk_rows = per_row > 0 ? (SEQC_MIN_CHUNK_NS + per_row - 1) / per_row
                                      : max_batch;
      if (m->min_chunk_rows < 1)
        m->min_chunk_rows = 1;
    }
  }
  free(zeros);
  if (rc == SEQC_ERROR_MEMORY)
    return create_failed_with(m, "out of memory");
  m->error[0] = 0;
  return m;
}

SEQC_API seqc_model *seqc_model_create_sized(int64_t max_batch,
                                             int64_t max_seq_len) {
  return seqc_model_create_threaded(max_batch, max_seq_len, 1);
}

SEQC_API seqc_model *seqc_model_create(void) {
  return seqc_model_create_threaded(seqc_default_max_batch,
                                    seqc_default_max_seq_len, 1);
}

SEQC_API void seqc_model_destroy(seqc_model *m) {
  if (!m)
    return;
  stop_pool(m);
  for (int i = 0; i < m->threads; ++i)
    seqc_arena_release(&m->workers[i].arena);
  free(m->workers);
  free(m->probe_input);
  free(m->state);
  free(m);
}

SEQC_API int seqc_model_threads(seqc_model *m) { return m ? m->threads : -1; }

SEQC_API int64_t seqc_model_working_bytes(seqc_model *m) {
  return m ? (int64_t)m->workers[0].arena.capacity : -1;
}

/* Checks a call's batch and resolves each input's seq_len into `lengths`
 * (`seq_lens` NULL: all 0). SEQC_OK or an error code with m->error set. */
static int check_call(seqc_model *m, const char *what, int64_t batch,
                      const int64_t *seq_lens, int64_t *lengths) {
  if (fixed_batch() >= 0 && batch != 0 && batch != fixed_batch()) {
    snprintf(m->error, sizeof m->error,
             "%s: batch %lld, but the model runs only the batch of %lld it "
             "was built with (its layers keep a state per row)",
             what, (long long)batch, (long long)fixed_batch());
    return SEQC_ERROR_SHAPE;
  }
  if (batch < 0 || batch > m->max_batch) {
    snprintf(m->error, sizeof m->error,
             "%s: batch %lld is outside [0, %lld] of this instance "
             "(seqc_model_create_sized sets the bound)",
             what, (long long)batch, (long long)m->max_batch);
    return SEQC_ERROR_SHAPE;
  }
  for (int k = 0; k < seqc_input_count; ++k) {
    int64_t seq_len = seq_lens ? seq_lens[k] : 0;
    lengths[k] = resolve_seq_len(m, k, seq_len);
    if (lengths[k] >= 0)
      continue;
    char which[64] = "";
    if (seqc_input_count > 1)
      snprintf(which, sizeof which, " of input %d", k);
    if (time_is_dynamic(k))
      snprintf(m->error, sizeof m->error,
               "%s: seq_len %lld%s is outside [1, %lld] of this instance "
               "(seqc_model_create_sized sets the bound)",
               what, (long long)seq_len, which, (long long)m->max_seq_len);
    else
      snprintf(m->error, sizeof m->error,
               "%s: seq_len %lld%s does not match the model's fixed length "
               "%lld (pass it or 0)",
               what, (long long)seq_len, which, (long long)fixed_length(k));
    return SEQC_ERROR_SHAPE;
  }
  return SEQC_OK;
}

/* A checked call of batch >= 1: on this thread alone (in tiles when it has
 * more than m->tile_rows rows), or split across the pool. */
static int run_split(seqc_model *m, const float *const *inputs, int64_t batch,
                     const int64_t *lengths, float *const *outputs) {
  int chunks = chunks_for(m, batch);
  if (chunks == 1 && batch <= m->tile_rows)
    return invoke(m, &m->workers[0].arena, m->error, inputs, batch, lengths,
                  outputs, 0, NULL, 1);
  struct seqc_job job = {inputs, outputs, lengths, batch, chunks};
  return run_job(m, &job);
}

SEQC_API int seqc_model_run_all(seqc_model *m, const float *const *inputs,
                                int64_t batch, const int64_t *seq_lens,
                                float *const *outputs) {
  if (!m)
    return SEQC_ERROR_ARGUMENT;
  /* An empty batch touches no data, so its pointers may be NULL. */
  if (batch != 0) {
    int null = !inputs || !outputs;
    for (int k = 0; !null && k < seqc_input_count; ++k)
      null = !inputs[k];
    for (int k = 0; !null && k < seqc_output_count; ++k)
      null = !outputs[k];
    if (null)
      return fail(m, SEQC_ERROR_ARGUMENT, "seqc_model_run_all: inputs and "
                                          "outputs must not be NULL");
  }
  int64_t lengths[SEQC_MAX_PORTS];
  int rc = check_call(m, "seqc_model_run_all", batch, seq_lens, lengths);
  if (rc != SEQC_OK)
    return rc;
  m->error[0] = 0;
  if (batch == 0)
    return SEQC_OK;
  return run_split(m, inputs, batch, lengths, outputs);
}

/* Whether the single-port functions apply; else sets the error. */
static int single_port(seqc_model *m, const char *what) {
  if (seqc_input_count == 1 && seqc_output_count == 1)
    return 1;
  snprintf(m->error, sizeof m->error,
           "%s: the model has %d inputs and %d outputs; use "
           "seqc_model_run_all",
           what, (int)seqc_input_count, (int)seqc_output_count);
  return 0;
}

SEQC_API int seqc_model_run(seqc_model *m, const float *input, int64_t batch,
                            int64_t seq_len, float *output) {
  if (!m)
    return SEQC_ERROR_ARGUMENT;
  if (!single_port(m, "seqc_model_run"))
    return SEQC_ERROR_ARGUMENT;
  if (batch != 0 && (!input || !output))
    return fail(m, SEQC_ERROR_ARGUMENT, "seqc_model_run: input and output "
                                        "must not be NULL");
  int64_t lengths[1];
  int rc = check_call(m, "seqc_model_run", batch, &seq_len, lengths);
  if (rc != SEQC_OK)
    return rc;
  m->error[0] = 0;
  if (batch == 0)
    return SEQC_OK;
  return run_split(m, &input, batch, lengths, &output);
}

SEQC_API const char *seqc_last_error(seqc_model *m) {
  if (m)
    return m->error;
  return create_error[0] ? create_error : "seqc_last_error: no model";
}

SEQC_API int64_t seqc_model_input_size_of(seqc_model *m, int k, int64_t batch,
                                          int64_t seq_len) {
  if (!m || k < 0 || k >= seqc_input_count)
    return -1;
  int64_t length = resolve_seq_len(m, k, seq_len);
  if (length < 0 || batch < 0 || batch > m->max_batch)
    return -1;
  return checked_mul(batch, sample_floats(k, length));
}

SEQC_API int seqc_model_output_shape_of(seqc_model *m, int k, int64_t batch,
                                       const int64_t *seq_lens, int64_t *dims) {
  if (!m)
    return SEQC_ERROR_ARGUMENT;
  if (k < 0 || k >= seqc_output_count || !dims) {
    snprintf(m->error, sizeof m->error,
             "seqc_model_output_shape_of: %s", !dims ? "dims is NULL" : "no such output");
    return SEQC_ERROR_ARGUMENT;
  }
  int64_t lengths[SEQC_MAX_PORTS];
  int status = check_call(m, "seqc_model_output_shape_of", batch, seq_lens, lengths);
  if (status != SEQC_OK)
    return status;
  dims[0] = batch;
  if (!output_has_dynamic_axis()) {
    for (int i = 1; i < out_rank(k); ++i)
      dims[i] = out_dims(k)[i];
    return SEQC_OK;
  }
  /* An output's time axis follows the inputs': ask the model once. */
  int same = m->probe_valid;
  for (int i = 0; same && i < seqc_input_count; ++i)
    same = m->probe_seq_lens[i] == lengths[i];
  if (!same) {
    const float *inputs[SEQC_MAX_PORTS];
    for (int i = 0; i < seqc_input_count; ++i)
      inputs[i] = m->probe_input;
    m->probe_valid = 0;
    status = invoke(m, &m->workers[0].arena, m->error, inputs, probe_batch(), lengths, NULL,
                    0, m->probe_dims, 0);
    if (status != SEQC_OK)
      return status;
    memcpy(m->probe_seq_lens, lengths, sizeof lengths);
    m->probe_valid = 1;
  }
  for (int i = 1; i < out_rank(k); ++i)
    dims[i] = m->probe_dims[k][i];
  return SEQC_OK;
}

SEQC_API int64_t seqc_model_output_size_of(seqc_model *m, int k, int64_t batch,
                                           const int64_t *seq_lens) {
  if (!m)
    return -1;
  if (k < 0 || k >= seqc_output_count) {
    snprintf(m->error, sizeof m->error,
             "seqc_model_output_size_of: no output %d (the model has %d)", k,
             (int)seqc_output_count);
    return -1;
  }
  int64_t dims[SEQC_MAX_RANK];
  if (seqc_model_output_shape_of(m, k, batch, seq_lens, dims) != SEQC_OK)
    return -1;
  int64_t n = 1;
  for (int i = 0; i < out_rank(k); ++i)
    n = checked_mul(n, dims[i]);
  return n;
}

SEQC_API int64_t seqc_model_input_size(seqc_model *m, int64_t batch,
                                       int64_t seq_len) {
  return seqc_model_input_size_of(m, 0, batch, seq_len);
}

SEQC_API int64_t seqc_model_output_size(seqc_model *m, int64_t batch,
                                        int64_t seq_len) {
  int64_t seq_lens[SEQC_MAX_PORTS];
  for (int k = 0; k < seqc_input_count; ++k)
    seq_lens[k] = time_is_dynamic(k) || seqc_input_count == 1 ? seq_len : 0;
  return seqc_model_output_size_of(m, 0, batch, seq_lens);
}

SEQC_API int64_t seqc_model_max_batch(seqc_model *m) {
  return m ? m->max_batch : -1;
}
SEQC_API int64_t seqc_model_max_seq_len(seqc_model *m) {
  return m ? m->max_seq_len : -1;
}

SEQC_API int seqc_model_input_count(void) { return seqc_input_count; }
SEQC_API int seqc_model_output_count(void) { return seqc_output_count; }
SEQC_API const char *seqc_model_input_name(int k) {
  return k >= 0 && k < seqc_input_count ? seqc_input_names[k] : NULL;
}
SEQC_API const char *seqc_model_output_name(int k) {
  return k >= 0 && k < seqc_output_count ? seqc_output_names[k] : NULL;
}
SEQC_API int seqc_model_input_rank_of(int k) {
  return k >= 0 && k < seqc_input_count ? in_rank(k) : 0;
}
SEQC_API int64_t seqc_model_input_dim_of(int k, int i) {
  return k >= 0 && k < seqc_input_count && i >= 0 && i < in_rank(k) ? in_dims(k)[i]
                                                                    : 0;
}
SEQC_API int seqc_model_output_rank_of(int k) {
  return k >= 0 && k < seqc_output_count ? out_rank(k) : 0;
}
SEQC_API int64_t seqc_model_output_dim_of(int k, int i) {
  return k >= 0 && k < seqc_output_count && i >= 0 && i < out_rank(k)
             ? out_dims(k)[i]
             : 0;
}
SEQC_API int seqc_model_input_rank(void) { return seqc_model_input_rank_of(0); }
SEQC_API int64_t seqc_model_input_dim(int i) { return seqc_model_input_dim_of(0, i); }
SEQC_API int seqc_model_output_rank(void) { return seqc_model_output_rank_of(0); }
SEQC_API int64_t seqc_model_output_dim(int i) {
  return seqc_model_output_dim_of(0, i);
}
SEQC_API const char *seqc_model_metadata_json(void) { return seqc_metadata; }

SEQC_API int64_t seqc_model_state_size(void) { return state_size(); }
SEQC_API int seqc_model_state_count(void) { return seqc_state_count; }
SEQC_API const char *seqc_model_state_layer(int i) {
  return i >= 0 && i < seqc_state_count ? seqc_state_layers[i] : NULL;
}
SEQC_API int64_t seqc_model_state_offset(int i) {
  return i >= 0 && i <= seqc_state_count ? seqc_state_offsets[i] : -1;
}

/* Copies the state between an instance (`m->state`) and the caller; `what`
 * names the API function in messages. */
static int copy_state(seqc_model *m, float *to, const float *from, const char *what) {
  if (!m)
    return SEQC_ERROR_ARGUMENT;
  if (state_size() > 0) {
    if (!to || !from) {
      snprintf(m->error, sizeof m->error, "%s: state must not be NULL", what);
      return SEQC_ERROR_ARGUMENT;
    }
    memcpy(to, from, (size_t)state_size() * sizeof(float));
  }
  m->error[0] = 0;
  return SEQC_OK;
}

SEQC_API int seqc_model_get_state(seqc_model *m, float *state) {
  return copy_state(m, state, m ? m->state : NULL, "seqc_model_get_state");
}

SEQC_API int seqc_model_set_state(seqc_model *m, const float *state) {
  return copy_state(m, m ? m->state : NULL, state, "seqc_model_set_state");
}

SEQC_API int seqc_model_reset_state(seqc_model *m) {
  if (!m)
    return SEQC_ERROR_ARGUMENT;
  if (state_size() > 0)
    memset(m->state, 0, (size_t)state_size() * sizeof(float));
  m->error[0] = 0;
  return SEQC_OK;
}
