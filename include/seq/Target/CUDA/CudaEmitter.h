// The CUDA backend's code generator: kernel-level seq IR (after the fusion
// pipeline) to one readable, self-contained CUDA C++ file with a host
// launcher exposing the seqc C API (CudaModelHeader.h).
#ifndef SEQ_TARGET_CUDA_CUDAEMITTER_H
#define SEQ_TARGET_CUDA_CUDAEMITTER_H

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace seq::cuda {

enum class RnnBackend {
  /// seqc's persistent recurrence kernels (all cells, all activations).
  Fused,
  /// cudnnRNNForward for LSTM and GRU (reset_after) with Keras' default
  /// activations; SimpleRNN stays on the fused kernel.
  Cudnn,
};

enum class ConvBackend {
  /// seqc's direct convolution kernels (conv1d, conv_nd).
  Direct,
  /// cudnnConvolutionForward for Conv1D/2D/3D (a padding cuDNN cannot
  /// express, uneven or causal, as a zero-padded copy of the input).
  Cudnn,
  /// Both, for the layers cuDNN can run: the first call with each input
  /// shape times the two and the faster one runs from then on.
  Auto,
};

enum class GemmMath {
  /// Exact float32 FMAs (within 1e-4 of Keras on every fixture).
  Fp32,
  /// Tensor cores in TF32 on compute capability 8.0+: operands keep 10
  /// mantissa bits (float32 elsewhere, and on older GPUs).
  Tf32,
  /// Tensor cores in BF16 on compute capability 8.0+: operands keep 7.
  Bf16,
};

struct CudaEmitOptions {
  RnnBackend rnnBackend = RnnBackend::Fused;
  /// Dense layers and the recurrences' input projections (seqc::linear).
  GemmMath gemmMath = GemmMath::Fp32;
  ConvBackend convBackend = ConvBackend::Direct;
  /// Device memory is allocated at create for this many rows; a dynamic
  /// batch axis is bounded by it (a static one fixes it).
  int64_t maxBatch = 64;
  /// Bound of a dynamic time axis (ignored when time is static).
  int64_t maxSeqLen = 512;
  /// Run the fusion pipeline (seq::buildFusePipeline) first. Kernel-level IR
  /// passes through it unchanged; layer-level ops it leaves are emitted too.
  bool fuse = true;
  /// Empty: weights are inline in the .cu as an array. Otherwise the .cu
  /// pulls this file in with the assembler's .incbin (much faster to compile
  /// for large models); the caller writes CudaModule::weights to it.
  std::string weightsFile;
  /// The -gencode targets the caller will build for ("sm_80,sm_90"), quoted
  /// in the message a GPU without a matching kernel image gets.
  std::string builtForArchs = "sm_80,sm_90";
};

struct CudaModule {
  /// The .cu: kernel library + weights + shapes + layers + description +
  /// runtime (left out with -DSEQC_RUNTIME_LINKED).
  std::string source;
  /// Every weight, packed as the source expects it (64-float aligned).
  std::vector<float> weights;
  /// Whether the source calls cuDNN (link with -lcudnn).
  bool usesCudnn = false;
};

/// Emits `module` (holding func.func @predict). Errors are one line naming
/// the Keras layer and what to do; `module` itself is not modified.
llvm::Expected<CudaModule> emitCudaModule(mlir::ModuleOp module,
                                          const CudaEmitOptions &options);

/// The runtime every CUDA library links (seq-compile --emit=cuda-runtime):
/// the kernels without template parameters and the C API over a model's
/// description, one translation unit, the same for every model. A model's
/// .cu holds it too unless built with -DSEQC_RUNTIME_LINKED.
std::string cudaRuntimeSource();

/// The C header of a library built from `module`: the same API as the CPU
/// backend's (runtime/seqc_model.h.in), plus SEQC_ERROR_DEVICE.
std::string cudaModelHeader(mlir::ModuleOp module, llvm::StringRef headerName,
                            llvm::StringRef libraryName, llvm::StringRef archs, bool cudnn);

} // namespace seq::cuda

#endif
