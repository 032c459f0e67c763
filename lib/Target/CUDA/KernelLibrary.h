// The CUDA sources that every emitted .cu embeds (kernels/*.cuh), compiled
// into the library as strings by CMake (EmbedSources.cmake).
#ifndef SEQ_LIB_TARGET_CUDA_KERNELLIBRARY_H
#define SEQ_LIB_TARGET_CUDA_KERNELLIBRARY_H

#include "llvm/ADT/StringRef.h"

namespace seq::cuda {

/// kernels/seqc_kernels.cuh: activations, GEMM, recurrences, other ops.
llvm::StringRef kernelLibrarySource();
/// kernels/seqc_cudnn.cuh: the cuDNN error helpers and convolution path.
llvm::StringRef cudnnLibrarySource();
/// kernels/seqc_cudnn_rnn.cuh: the cuDNN RNN path (after the above).
llvm::StringRef cudnnRnnLibrarySource();
/// kernels/seqc_fixed_kernels.cu: the kernels without template parameters.
llvm::StringRef fixedKernelsSource();
/// kernels/seqc_model_interface.h: what the model's code and the runtime share.
llvm::StringRef modelInterfaceSource();
/// kernels/seqc_call_graphs.cuh: a call's launches as CUDA graphs (runtime).
llvm::StringRef callGraphsSource();
/// kernels/seqc_model_runtime.cuh: the C API over the model's description.
llvm::StringRef seqcModelRuntimeSource();
/// kernels/seqc_cuda_sim.h: runs emitted code on a CPU (tests, the
/// cuda-sim engine); it includes kernels/seqc_cudnn_sim.h.
llvm::StringRef simulationHeaderSource();
llvm::StringRef cudnnSimulationHeaderSource();

} // namespace seq::cuda

#endif
