// Runs a model compiled by seq-compile --target=cuda through its C API on a
// .npy input and compares the result with a .npy reference:
//
//   check_model input.npy expected.npy [atol] [batch-per-call]
//
// Prints "max abs error E over N values" and exits 0 when E <= atol (1e-4).
// A model with a fixed batch (a stateful one) runs batch-per-call = its
// batch, the calls one after the other as Keras' predict(x, batch_size).
// Link it with the library (GPU) or with the emitted .cu compiled by a host
// compiler under seqc_cuda_sim.h (CPU). Reads only little-endian float32
// C-order .npy files, as the fixtures are.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
typedef struct seqc_model seqc_model;
seqc_model *seqc_model_create_sized(int64_t max_batch, int64_t max_seq_len);
void seqc_model_destroy(seqc_model *model);
int seqc_model_run(seqc_model *model, const float *input, int64_t batch, int64_t seq_len,
                   float *output);
const char *seqc_last_error(seqc_model *model);
int64_t seqc_model_output_size(seqc_model *model, int64_t batch, int64_t seq_len);
int seqc_model_input_rank(void);
int64_t seqc_model_input_dim(int i);
int seqc_model_reset_state(seqc_model *model);
}

struct Array {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

static bool readNpy(const char *path, Array &a) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    return false;
  size_t headerLen = bytes[6] == 1 ? (uint8_t)bytes[8] | (uint8_t)bytes[9] << 8
                                   : *reinterpret_cast<const uint32_t *>(&bytes[8]);
  size_t start = bytes[6] == 1 ? 10 : 12;
  std::string header = bytes.substr(start, headerLen);
  if (header.find("'<f4'") == std::string::npos || header.find("'fortran_order': False") == std::string::npos)
    return false;
  size_t open = header.find('(', header.find("'shape'")), close = header.find(')', open);
  std::stringstream dims(header.substr(open + 1, close - open - 1));
  std::string item;
  size_t count = 1;
  while (std::getline(dims, item, ','))
    if (item.find_first_not_of(' ') != std::string::npos) {
      a.shape.push_back(std::stoll(item));
      count *= a.shape.back();
    }
  a.data.resize(count);
  if (bytes.size() < start + headerLen + count * 4)
    return false;
  std::memcpy(a.data.data(), &bytes[start + headerLen], count * 4);
  return true;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s input.npy expected.npy [atol] [rows-per-call]\n", argv[0]);
    return 2;
  }
  Array x, expected;
  if (!readNpy(argv[1], x) || !readNpy(argv[2], expected)) {
    std::fprintf(stderr, "cannot read %s or %s as float32 .npy\n", argv[1], argv[2]);
    return 2;
  }
  double atol = argc > 3 ? std::atof(argv[3]) : 1e-4;
  int64_t batch = x.shape[0];
  int64_t fixedBatch = seqc_model_input_dim(0);
  int64_t perCall = fixedBatch >= 0 ? fixedBatch : argc > 4 ? std::atoll(argv[4]) : batch;
  bool dynamicTime = seqc_model_input_rank() >= 2 && seqc_model_input_dim(1) < 0;
  int64_t seqLen = dynamicTime ? x.shape[1] : 0;
  seqc_model *m = seqc_model_create_sized(perCall, seqLen ? seqLen : 1);
  if (!m) {
    std::fprintf(stderr, "create failed: %s\n", seqc_last_error(nullptr));
    return 1;
  }
  int64_t outCall = seqc_model_output_size(m, perCall, seqLen);
  int64_t outRow = outCall < 0 ? -1 : outCall / perCall;
  int64_t inRow = x.data.size() / batch;
  if (outRow < 0 || (int64_t)expected.data.size() != outRow * batch) {
    std::fprintf(stderr, "output size %lld per row does not match the expected %zu values\n",
                 (long long)outRow, expected.data.size());
    return 1;
  }
  std::vector<float> y(expected.data.size());
  for (int64_t first = 0; first < batch; first += perCall) {
    int64_t rows = batch - first < perCall ? batch - first : perCall;
    if (seqc_model_run(m, x.data.data() + first * inRow, rows, seqLen, y.data() + first * outRow)) {
      std::fprintf(stderr, "run failed: %s\n", seqc_last_error(m));
      return 1;
    }
  }
  // A second run must give the same result (the kernels' scratch state is
  // reset per call; a stateful model's kept state by reset_state).
  std::vector<float> again(y.size());
  seqc_model_reset_state(m);
  for (int64_t first = 0; first < batch; first += perCall) {
    int64_t rows = batch - first < perCall ? batch - first : perCall;
    seqc_model_run(m, x.data.data() + first * inRow, rows, seqLen, again.data() + first * outRow);
  }
  seqc_model_destroy(m);
  double maxError = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    double e = std::fabs((double)y[i] - expected.data[i]);
    if (!(e <= maxError))
      maxError = std::isnan(e) ? INFINITY : std::max(maxError, e);
    if (again[i] != y[i]) {
      std::fprintf(stderr, "a second run differs at %zu: %g vs %g\n", i, again[i], y[i]);
      return 1;
    }
  }
  std::printf("max abs error %.3g over %zu values\n", maxError, y.size());
  return maxError <= atol ? 0 : 1;
}
