// Compiled with an emitted .cu under seqc_cuda_sim.h (two simulated GPUs):
// a model created while GPU 1 is current runs on GPU 1 when another thread,
// whose current GPU is 0, calls it, and that thread's current GPU is still 0
// afterwards. Prints what it saw; exits 1 on any mismatch.
#include <cstdio>
#include <thread>
#include <vector>

extern "C" {
typedef struct seqc_model seqc_model;
seqc_model *seqc_model_create(void);
void seqc_model_destroy(seqc_model *model);
int seqc_model_run(seqc_model *model, const float *input, int64_t batch, int64_t seq_len,
                   float *output);
const char *seqc_last_error(seqc_model *model);
int64_t seqc_model_input_size(seqc_model *model, int64_t batch, int64_t seq_len);
int64_t seqc_model_output_size(seqc_model *model, int64_t batch, int64_t seq_len);
}

int main() {
  setenv("SEQC_SIM_DEVICES", "2", 1);
  if (cudaSetDevice(1) != cudaSuccess)
    return 1;
  seqc_model *m = seqc_model_create();
  if (!m) {
    std::printf("create failed: %s\n", seqc_last_error(nullptr));
    return 1;
  }
  cudaSetDevice(0);
  long createdOn0 = seqc_sim::launches_by_device()[0];
  int rc = -1, deviceAfter = -1;
  std::thread caller([&] {
    std::vector<float> in(seqc_model_input_size(m, 1, 0), 0.5f),
        out(seqc_model_output_size(m, 1, 0));
    rc = seqc_model_run(m, in.data(), 1, 0, out.data());
    cudaGetDevice(&deviceAfter);
  });
  caller.join();
  long on0 = seqc_sim::launches_by_device()[0] - createdOn0;
  long on1 = seqc_sim::launches_by_device()[1];
  std::printf("run rc=%d, launches on GPU 0: %ld, on GPU 1: %s, caller's GPU after: %d\n", rc,
              on0, on1 > 0 ? "some" : "none", deviceAfter);
  seqc_model_destroy(m);
  return rc == 0 && on0 == 0 && on1 > 0 && deviceAfter == 0 ? 0 : 1;
}
