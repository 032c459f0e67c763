// Prints what the C API of a model compiled by seq-compile --target=cuda
// says about its ports, and what its run functions answer to a model with
// several inputs with dynamic time axes (ports_dynamic_time_keras2: a (?, ?,
// 3) and b (?, ?, 3) -> head (?, 2) and lstm_b (?, 3)). Linked with the
// emitted .cu compiled under seqc_cuda_sim.h.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "seqc_c_api.h"

static void port(const char *kind, int k, const char *name, int rank,
                 int64_t (*dim)(int, int)) {
  std::printf("%s %d: %s (", kind, k, name ? name : "(null)");
  for (int i = 0; i < rank; ++i)
    std::printf("%s%lld", i ? ", " : "", (long long)dim(k, i));
  std::printf(")\n");
}

int main() {
  for (int k = 0; k <= seqc_model_input_count(); ++k)
    port("input", k, seqc_model_input_name(k), seqc_model_input_rank_of(k),
         seqc_model_input_dim_of);
  for (int k = 0; k <= seqc_model_output_count(); ++k)
    port("output", k, seqc_model_output_name(k), seqc_model_output_rank_of(k),
         seqc_model_output_dim_of);
  seqc_model *m = seqc_model_create_sized(4, 8);
  if (!m) {
    std::printf("create failed: %s\n", seqc_last_error(nullptr));
    return 1;
  }
  const int64_t seq_lens[] = {7, 4};
  std::printf("sizes: input 0 %lld, input 1 %lld, output 0 %lld, output 1 %lld\n",
              (long long)seqc_model_input_size_of(m, 0, 2, 7),
              (long long)seqc_model_input_size_of(m, 1, 2, 4),
              (long long)seqc_model_output_size_of(m, 0, 2, seq_lens),
              (long long)seqc_model_output_size_of(m, 1, 2, seq_lens));
  std::vector<float> a(2 * 7 * 3, 0.5f), b(2 * 4 * 3, -0.25f), head(2 * 2), last(2 * 3);
  float one = 0;
  std::printf("run: %d %s\n", seqc_model_run(m, a.data(), 2, 7, &one), seqc_last_error(m));
  const float *inputs[] = {a.data(), b.data()};
  float *outputs[] = {head.data(), last.data()};
  std::printf("run_all without seq_lens: %d %s\n",
              seqc_model_run_all(m, inputs, 2, nullptr, outputs), seqc_last_error(m));
  const int64_t too_long[] = {7, 9};
  std::printf("run_all too long: %d %s\n", seqc_model_run_all(m, inputs, 2, too_long, outputs),
              seqc_last_error(m));
  int rc = seqc_model_run_all(m, inputs, 2, seq_lens, outputs);
  std::printf("run_all: %d, head[0] %s 0\n", rc, head[0] != 0.0f ? "!=" : "==");
  seqc_model_destroy(m);
  return rc;
}
