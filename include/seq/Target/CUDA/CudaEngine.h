// The "cuda" and "cudnn" engines: build the model with nvcc into a
// temporary directory, dlopen the library and run it through its C API.
// Creating one fails with a clear message (naming what is missing and the
// version needed) where there is no GPU, driver, nvcc or cuDNN.
#ifndef SEQ_TARGET_CUDA_CUDAENGINE_H
#define SEQ_TARGET_CUDA_CUDAENGINE_H

#include "seq/Runtime/Engine.h"
#include "seq/Target/CUDA/CudaEmitter.h"

namespace seq::cuda {

/// An engine for `module` with explicit options (tests, benchmarks). The
/// library is built for the first GPU's architecture only.
llvm::Expected<std::unique_ptr<rt::Engine>> createCudaEngine(mlir::ModuleOp module,
                                                             const CudaEmitOptions &options);

/// Registers "cuda" (fused kernels) and "cudnn" (--rnn-backend=cudnn).
void registerCudaEngines();

} // namespace seq::cuda

#endif
