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
  // The backends append their lowerings here.
  mlir::PassPipelineRegistration<>(
      "seq-cpu-pipeline", "Everything the CPU backend runs (now: seq-fuse)",
      buildFusePipeline);
  mlir::PassPipelineRegistration<>(
      "seq-cuda-pipeline", "Everything the CUDA backend runs (now: seq-fuse)",
      buildFusePipeline);
}

} // namespace seq
