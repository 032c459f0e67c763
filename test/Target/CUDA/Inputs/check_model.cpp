// Runs a model compiled by seq-compile --target=cuda through its C API on
// .npy inputs and compares the results with .npy references:
//
//   check_model input.npy[,input2.npy...] expected.npy[,expected2.npy...]
//               [atol] [batch-per-call]
//
// one file per input and per output, in the model's port order (a model
// with one input and one output runs through seqc_model_run, any other
// through seqc_model_run_all). Prints "max abs error E over N values" and
// exits 0 when E <= atol (1e-4). A model with a fixed batch (a stateful one)
// runs batch-per-call = its batch, the calls one after the other as Keras'
// predict(x, batch_size). Link it with the library (GPU) or with the emitted
// .cu compiled by a host compiler under seqc_cuda_sim.h (CPU). Reads only
// little-endian float32 C-order .npy files, as the fixtures are. In the
// simulation it also prints how many kernels were launched in all, and how
// many CUDA graph launches ran some of them.
#include <algorithm>
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

#include "seqc_c_api.h"

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

/// The comma-separated paths of `list`.
static std::vector<std::string> paths(const char *list) {
  std::vector<std::string> result;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ','))
    result.push_back(item);
  return result;
}

/// One call of the model on rows [first, first + rows) of every port.
static int runRows(seqc_model *m, const std::vector<Array> &xs, const std::vector<int64_t> &inRow,
                   const std::vector<int64_t> &seqLens, std::vector<std::vector<float>> &ys,
                   const std::vector<int64_t> &outRow, int64_t first, int64_t rows) {
  std::vector<const float *> in;
  std::vector<float *> out;
  for (size_t k = 0; k < xs.size(); ++k)
    in.push_back(xs[k].data.data() + first * inRow[k]);
  for (size_t k = 0; k < ys.size(); ++k)
    out.push_back(ys[k].data() + first * outRow[k]);
  if (xs.size() == 1 && ys.size() == 1)
    return seqc_model_run(m, in[0], rows, seqLens[0], out[0]);
  return seqc_model_run_all(m, in.data(), rows, seqLens.data(), out.data());
}

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s input.npy[,...] expected.npy[,...] [atol] [rows-per-call]\n",
                 argv[0]);
    return 2;
  }
  std::vector<std::string> inPaths = paths(argv[1]), expectedPaths = paths(argv[2]);
  if ((int)inPaths.size() != seqc_model_input_count() ||
      (int)expectedPaths.size() != seqc_model_output_count()) {
    std::fprintf(stderr, "the model has %d inputs and %d outputs, got %zu and %zu files\n",
                 seqc_model_input_count(), seqc_model_output_count(), inPaths.size(),
                 expectedPaths.size());
    return 2;
  }
  std::vector<Array> xs(inPaths.size()), expected(expectedPaths.size());
  for (size_t k = 0; k < xs.size(); ++k)
    if (!readNpy(inPaths[k].c_str(), xs[k])) {
      std::fprintf(stderr, "cannot read %s as float32 .npy\n", inPaths[k].c_str());
      return 2;
    }
  for (size_t k = 0; k < expected.size(); ++k)
    if (!readNpy(expectedPaths[k].c_str(), expected[k])) {
      std::fprintf(stderr, "cannot read %s as float32 .npy\n", expectedPaths[k].c_str());
      return 2;
    }
  double atol = argc > 3 ? std::atof(argv[3]) : 1e-4;
  int64_t batch = xs[0].shape[0];
  int64_t fixedBatch = seqc_model_input_dim(0);
  int64_t perCall = fixedBatch >= 0 ? fixedBatch : argc > 4 ? std::atoll(argv[4]) : batch;
  std::vector<int64_t> seqLens, inRow;
  int64_t longest = 1;
  for (size_t k = 0; k < xs.size(); ++k) {
    bool dynamicTime = seqc_model_input_rank_of(k) >= 2 && seqc_model_input_dim_of(k, 1) < 0;
    seqLens.push_back(dynamicTime ? xs[k].shape[1] : 0);
    longest = std::max(longest, seqLens.back());
    inRow.push_back(xs[k].data.size() / batch);
  }
  seqc_model *m = seqc_model_create_sized(perCall, longest);
  if (!m) {
    std::fprintf(stderr, "create failed: %s\n", seqc_last_error(nullptr));
    return 1;
  }
  std::vector<int64_t> outRow;
  std::vector<std::vector<float>> ys, again;
  for (size_t k = 0; k < expected.size(); ++k) {
    int64_t outCall = seqc_model_output_size_of(m, k, perCall, seqLens.data());
    outRow.push_back(outCall < 0 ? -1 : outCall / perCall);
    if (outRow.back() < 0 || (int64_t)expected[k].data.size() != outRow.back() * batch) {
      std::fprintf(stderr, "output %zu: size %lld per row does not match the expected %zu values\n",
                   k, (long long)outRow.back(), expected[k].data.size());
      return 1;
    }
    ys.emplace_back(expected[k].data.size());
    again.emplace_back(expected[k].data.size());
  }
  for (int64_t first = 0; first < batch; first += perCall) {
    int64_t rows = batch - first < perCall ? batch - first : perCall;
    if (runRows(m, xs, inRow, seqLens, ys, outRow, first, rows)) {
      std::fprintf(stderr, "run failed: %s\n", seqc_last_error(m));
      return 1;
    }
  }
  // A second run must give the same result (the kernels' scratch state is
  // reset per call; a stateful model's kept state by reset_state).
  seqc_model_reset_state(m);
  for (int64_t first = 0; first < batch; first += perCall) {
    int64_t rows = batch - first < perCall ? batch - first : perCall;
    runRows(m, xs, inRow, seqLens, again, outRow, first, rows);
  }
  seqc_model_destroy(m);
  double maxError = 0;
  size_t values = 0;
  for (size_t k = 0; k < ys.size(); ++k)
    for (size_t i = 0; i < ys[k].size(); ++i, ++values) {
      double e = std::fabs((double)ys[k][i] - expected[k].data[i]);
      if (!(e <= maxError))
        maxError = std::isnan(e) ? INFINITY : std::max(maxError, e);
      if (again[k][i] != ys[k][i]) {
        std::fprintf(stderr, "output %zu: a second run differs at %zu: %g vs %g\n", k, i,
                     again[k][i], ys[k][i]);
        return 1;
      }
    }
  std::printf("max abs error %.3g over %zu values\n", maxError, values);
#ifdef SEQC_CPU_SIMULATION
  long launches = 0;
  for (const auto &device : seqc_sim::launches_by_device())
    launches += device.second;
  std::printf("%ld kernel launches, %ld CUDA graph launches\n", launches,
              seqc_sim::graph_launches());
#endif
  return maxError <= atol ? 0 : 1;
}
