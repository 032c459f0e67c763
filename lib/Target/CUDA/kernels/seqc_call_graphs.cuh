// ===== seqc CUDA graphs ====================================================
// Part of the runtime (seqc_model_runtime.cuh). A call's launches (the
// layers' forward: kernels, cuDNN, device copies; never a host wait) depend
// only on the shapes of its inputs, so the library records them once per
// shape into a CUDA graph and then launches the whole graph with one call
// instead of each kernel with its own. The first call with a shape runs them
// one by one and makes every lazy choice (cuDNN descriptors and workspaces,
// measured convolutions); the second records and launches them; later ones
// launch the graph. A shape whose recording fails (something the GPU's graphs
// cannot hold) keeps running one by one. SEQC_CUDA_GRAPHS=0 in the
// environment, or -DSEQC_NO_CUDA_GRAPHS, turns graphs off.
// ===========================================================================
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace seqc {

/// The last kShapes input shapes (their dims' bytes) and their graphs.
struct CallGraphs {
  static constexpr int kShapes = 4;
  struct Entry {
    std::vector<char> key;
    int calls = 0;
    cudaGraphExec_t exec = nullptr;
    bool one_by_one = false; // recording failed: never tried again
  };
  Entry entries[kShapes];
  int used = 0, next = 0;
  cudaError_t error = cudaSuccess; // this call's graph launch failure, if it had one
  bool enabled = true; // false: the model was built with -DSEQC_NO_CUDA_GRAPHS
};

/// Whether the environment allows graphs (SEQC_CUDA_GRAPHS=0 does not).
inline bool graphs_enabled() {
  const char *v = std::getenv("SEQC_CUDA_GRAPHS");
  return !(v && v[0] == '0');
}

inline void destroy_graphs(CallGraphs &graphs) {
  for (CallGraphs::Entry &e : graphs.entries)
    if (e.exec)
      cudaGraphExecDestroy(e.exec);
  graphs = CallGraphs();
}

/// Runs `forward` (returning 0, or nonzero after saying why) on `stream` for
/// the input shape `key` (key_bytes bytes), from its graph where there is one.
/// Returns forward's result, or 1 with graphs.error set when a graph launch
/// fails.
template <typename Forward>
inline int run_graphed(cudaStream_t stream, CallGraphs &graphs, const void *key,
                       size_t key_bytes, Forward forward) {
  graphs.error = cudaSuccess;
  if (!graphs.enabled || !graphs_enabled())
    return forward();
  CallGraphs::Entry *entry = nullptr;
  for (int i = 0; i < graphs.used && !entry; ++i)
    if (graphs.entries[i].key.size() == key_bytes &&
        std::memcmp(graphs.entries[i].key.data(), key, key_bytes) == 0)
      entry = &graphs.entries[i];
  if (!entry) {
    entry = &graphs.entries[graphs.next];
    if (entry->exec)
      cudaGraphExecDestroy(entry->exec);
    *entry = CallGraphs::Entry();
    entry->key.assign((const char *)key, (const char *)key + key_bytes);
    graphs.next = (graphs.next + 1) % CallGraphs::kShapes;
    graphs.used = std::min(graphs.used + 1, CallGraphs::kShapes);
  }
  if (!entry->exec && (entry->one_by_one || entry->calls++ == 0))
    return forward();
  if (!entry->exec) {
    cudaGraph_t graph = nullptr;
    bool recorded = cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed) == cudaSuccess;
    int rc = recorded ? forward() : 1;
    if (recorded)
      recorded = cudaStreamEndCapture(stream, &graph) == cudaSuccess && rc == 0 &&
                 cudaGraphInstantiate(&entry->exec, graph, 0) == cudaSuccess;
    if (graph)
      cudaGraphDestroy(graph);
    if (!recorded) {
      entry->exec = nullptr;
      entry->one_by_one = true;
      cudaGetLastError(); // what the recording left, not this call's
      return forward();
    }
  }
  if ((graphs.error = cudaGraphLaunch(entry->exec, stream)) != cudaSuccess)
    return 1;
  return 0;
}

} // namespace seqc
