// The C API of a library built by seq-compile --target=cuda (the functions
// its generated header declares for every model), for the test programs that
// are built once and linked with any model: check_model.cpp (also carried in
// the GPU pack) and ports_api.cpp.
#ifndef SEQC_TEST_C_API_H
#define SEQC_TEST_C_API_H

#include <cstdint>

extern "C" {
typedef struct seqc_model seqc_model;
seqc_model *seqc_model_create_sized(int64_t max_batch, int64_t max_seq_len);
void seqc_model_destroy(seqc_model *model);
int seqc_model_run(seqc_model *model, const float *input, int64_t batch, int64_t seq_len,
                   float *output);
int seqc_model_run_all(seqc_model *model, const float *const *inputs, int64_t batch,
                       const int64_t *seq_lens, float *const *outputs);
const char *seqc_last_error(seqc_model *model);
int64_t seqc_model_output_size(seqc_model *model, int64_t batch, int64_t seq_len);
int seqc_model_input_rank(void);
int64_t seqc_model_input_dim(int i);
int seqc_model_reset_state(seqc_model *model);
int seqc_model_input_count(void);
int seqc_model_output_count(void);
const char *seqc_model_input_name(int k);
const char *seqc_model_output_name(int k);
int seqc_model_input_rank_of(int k);
int64_t seqc_model_input_dim_of(int k, int i);
int seqc_model_output_rank_of(int k);
int64_t seqc_model_output_dim_of(int k, int i);
int64_t seqc_model_input_size_of(seqc_model *model, int k, int64_t batch, int64_t seq_len);
int64_t seqc_model_output_size_of(seqc_model *model, int k, int64_t batch,
                                  const int64_t *seq_lens);
}

#endif
