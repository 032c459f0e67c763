#include "KernelLibrary.h"

#include "KernelSources.inc"

#include "seq/Target/CUDA/CudaEmitter.h"

namespace seq::cuda {

llvm::StringRef kernelLibrarySource() { return kSeqcKernels; }
llvm::StringRef cudnnLibrarySource() { return kSeqcCudnn; }
llvm::StringRef cudnnRnnLibrarySource() { return kSeqcCudnnRnn; }
llvm::StringRef fixedKernelsSource() { return kSeqcFixedKernels; }
llvm::StringRef modelInterfaceSource() { return kSeqcModelInterface; }
llvm::StringRef callGraphsSource() { return kSeqcCallGraphs; }
llvm::StringRef seqcModelRuntimeSource() { return kSeqcModelRuntime; }
llvm::StringRef simulationHeaderSource() { return kSeqcCudaSim; }
llvm::StringRef cudnnSimulationHeaderSource() { return kSeqcCudnnSim; }

std::string cudaRuntimeSource() {
  return "// The seqc CUDA runtime (seq-compile --emit=cuda-runtime): the kernels\n"
         "// without template parameters and the C API of every CUDA model library,\n"
         "// compiled once (for the models' GPU architectures) and linked with a model's\n"
         "// .cu built with -DSEQC_RUNTIME_LINKED.\n\n" +
         kernelLibrarySource().str() + "\n" + fixedKernelsSource().str() + "\n" +
         modelInterfaceSource().str() + "\n" + callGraphsSource().str() + "\n" +
         seqcModelRuntimeSource().str();
}

} // namespace seq::cuda
