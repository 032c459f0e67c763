// Times libraries built by seq-compile --target=cuda through the seqc C API
// (host input in, host output out: what an application pays per call).
//
//   bench_gpu RESULTS.md NAME=libmodel.so ...
//
// Each NAME is "cell/units/backend" (e.g. lstm/256/fused). For every batch
// size of kBatches: 5 warm-up calls, then calls until 0.5 s or 300 calls;
// reports the median and p90 latency and sequences per second, and, per
// (cell, units, batch), the largest difference between the backends'
// outputs on the same input. Appends a markdown table to RESULTS.md and
// prints it.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

const int64_t kBatches[] = {1, 8, 64};

struct Api {
  void *(*create)(int64_t, int64_t);
  void (*destroy)(void *);
  int (*run)(void *, const float *, int64_t, int64_t, float *);
  const char *(*error)(void *);
  int64_t (*inputSize)(void *, int64_t, int64_t);
  int64_t (*outputSize)(void *, int64_t, int64_t);
};

template <typename Fn> bool resolve(void *lib, const char *name, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  return fn != nullptr;
}

struct Row {
  std::string name;
  int64_t batch;
  double medianMs, p90Ms, seqPerSecond;
  std::vector<float> output;
};

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s RESULTS.md NAME=lib.so ...\n", argv[0]);
    return 2;
  }
  std::vector<Row> rows;
  int failures = 0;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    size_t eq = arg.find('=');
    std::string name = arg.substr(0, eq), path = arg.substr(eq + 1);
    void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    Api api;
    if (!lib || !resolve(lib, "seqc_model_create_sized", api.create) ||
        !resolve(lib, "seqc_model_destroy", api.destroy) || !resolve(lib, "seqc_model_run", api.run) ||
        !resolve(lib, "seqc_last_error", api.error) ||
        !resolve(lib, "seqc_model_input_size", api.inputSize) ||
        !resolve(lib, "seqc_model_output_size", api.outputSize)) {
      std::fprintf(stderr, "%s: cannot load %s: %s\n", name.c_str(), path.c_str(), dlerror());
      ++failures;
      continue;
    }
    if (const char *plans = std::getenv("SEQC_CUDA_PLANS"); plans && *plans && *plans != '0')
      std::fprintf(stderr, "seqc: model %s\n", name.c_str()); // before the plans create reports
    void *model = api.create(64, 1);
    if (!model) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), api.error(nullptr));
      ++failures;
      continue;
    }
    for (int64_t batch : kBatches) {
      std::vector<float> x(api.inputSize(model, batch, 0)), y(api.outputSize(model, batch, 0));
      std::mt19937 rng(1234);
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      for (float &v : x)
        v = dist(rng);
      bool ok = true;
      for (int w = 0; w < 5 && ok; ++w)
        ok = api.run(model, x.data(), batch, 0, y.data()) == 0;
      if (!ok) {
        std::fprintf(stderr, "%s batch %lld: %s\n", name.c_str(), (long long)batch, api.error(model));
        ++failures;
        continue;
      }
      std::vector<double> ms;
      auto start = std::chrono::steady_clock::now();
      while (ms.size() < 300 &&
             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 0.5) {
        auto t0 = std::chrono::steady_clock::now();
        api.run(model, x.data(), batch, 0, y.data());
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(ms.begin(), ms.end());
      double median = ms[ms.size() / 2], p90 = ms[ms.size() * 9 / 10];
      rows.push_back({name, batch, median, p90, batch / (median / 1000.0), y});
    }
    api.destroy(model);
  }

  // Group by cell/units: the backends' outputs on the same input must agree.
  std::map<std::pair<std::string, int64_t>, std::vector<const Row *>> groups;
  for (const Row &r : rows)
    groups[{r.name.substr(0, r.name.rfind('/')), r.batch}].push_back(&r);
  FILE *out = std::fopen(argv[1], "a");
  auto print = [&](const char *format, auto... args) {
    std::printf(format, args...);
    if (out)
      std::fprintf(out, format, args...);
  };
  print("%s", "| model | backend | batch | median ms | p90 ms | sequences/s | max diff vs fused |\n");
  print("%s", "|---|---|---:|---:|---:|---:|---:|\n");
  for (const Row &r : rows) {
    std::string model = r.name.substr(0, r.name.rfind('/')), backend = r.name.substr(r.name.rfind('/') + 1);
    double diff = 0;
    const Row *fused = nullptr;
    for (const Row *other : groups[{model, r.batch}])
      if (other->name.substr(other->name.rfind('/') + 1) == "fused")
        fused = other;
    if (fused)
      for (size_t i = 0; i < r.output.size() && i < fused->output.size(); ++i)
        diff = std::max(diff, (double)std::fabs(r.output[i] - fused->output[i]));
    print("| %s | %s | %lld | %.3f | %.3f | %.0f | %s |\n", model.c_str(), backend.c_str(),
          (long long)r.batch, r.medianMs, r.p90Ms, r.seqPerSecond,
          fused ? (std::to_string(diff)).c_str() : "-");
  }
  if (out)
    std::fclose(out);
  return failures ? 1 : 0;
}
