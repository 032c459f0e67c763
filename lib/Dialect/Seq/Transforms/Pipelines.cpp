#include "seq/Dialect/Seq/Transforms/Pipelines.h"
#include "seq/Dialect/Seq/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

namespace seq {

// The order is explained in docs/Fusion.md ("Pipeline order").
void buildFusePipeline(mlir::OpPassManager &pm) {
  pm.addPass(createStripDropout());
  pm.addPass(createCanonicalize());
  pm.addPass(createInferShapes());
  pm.addPass(createFuseLSTMGates());
  pm.addPass(createFuseGRUGates());
  pm.addPass(createFuseSimpleRNNGates());
  pm.addPass(createFoldBatchNorm());
  pm.addPass(createFuseActivation());
  pm.addPass(createFoldLinearChain());
  pm.addPass(createLowerDense());
  pm.addPass(createCanonicalize());
}

void registerSeqPipelines() {
  mlir::PassPipelineRegistration<>(
      "seq-fuse", "Layer-level seq IR to fused kernel-level seq IR",
      buildFusePipeline);
  // The CUDA backend emits CUDA C++ from fused seq IR: these are all the
  // MLIR passes it runs. (seq-cpu-pipeline, the whole CPU lowering, is
  // registered by the CPU backend: seq::cpu::registerCpuPipeline.)
  mlir::PassPipelineRegistration<>(
      "seq-cuda-pipeline",
      "The MLIR passes the CUDA backend runs before emitting CUDA C++ "
      "(seq-fuse)",
      buildFusePipeline);
}

} // namespace seq
