// seq-opt: mlir-opt with the seq dialect, the upstream dialects its
// pipelines use, every seq pass and the named seq pipelines.
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "seq/Conversion/Passes.h"
#include "seq/Dialect/Seq/IR/SeqDialect.h"
#include "seq/Dialect/Seq/Transforms/Passes.h"
#include "seq/Dialect/Seq/Transforms/Pipelines.h"
#include "seq/Target/CPU/Pipeline.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<seq::SeqDialect, mlir::arith::ArithDialect,
                  mlir::func::FuncDialect, mlir::tensor::TensorDialect>();
  // Everything the CPU lowering creates, so that its output parses back.
  seq::cpu::registerPipelineDialects(registry);
  seq::registerSeqPasses();
  seq::cpu::registerCpuPipeline();
  seq::registerConversionPasses();
  seq::registerSeqPipelines();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "seq optimizer driver\n", registry));
}
