#include "KernelLibrary.h"

#include "KernelSources.inc"

namespace seq::cuda {

llvm::StringRef kernelLibrarySource() { return kSeqcKernels; }
llvm::StringRef cudnnLibrarySource() { return kSeqcCudnn; }
llvm::StringRef cudnnRnnLibrarySource() { return kSeqcCudnnRnn; }
llvm::StringRef seqcModelRuntimeSource() { return kSeqcModelRuntime; }
llvm::StringRef simulationHeaderSource() { return kSeqcCudaSim; }

} // namespace seq::cuda
