// seq-cpu-interleave-long-loops: LLVM runs several vectors of a long
// elementwise loop side by side (Passes.td has the contract).
#include "seq/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace seq::cpu {
#define GEN_PASS_DEF_SEQCPUINTERLEAVELONGLOOPS
#include "seq/Target/CPU/Passes.h.inc"
} // namespace seq::cpu

namespace {

/// The arith and math ops of `loop`'s body, or -1 when it holds a loop or
/// vector code (not a scalar body for LLVM's vectorizer).
int64_t scalarArithmetic(scf::ForOp loop) {
  int64_t ops = 0;
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (isa<scf::ForOp, scf::WhileOp>(op) || isa<vector::VectorDialect>(op->getDialect()))
      return WalkResult::interrupt();
    if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
        !isa<arith::ConstantOp>(op))
      ++ops;
    return WalkResult::advance();
  });
  return walk.wasInterrupted() ? -1 : ops;
}

struct InterleaveLongLoopsPass
    : seq::cpu::impl::SeqCpuInterleaveLongLoopsBase<InterleaveLongLoopsPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    getOperation().walk([&](scf::ForOp loop) {
      if (scalarArithmetic(loop) < minOps)
        return;
      int64_t vectors = count;
      if (std::optional<APInt> trips = loop.getStaticTripCount())
        vectors = std::min<int64_t>(vectors, trips->getSExtValue() / lanes);
      if (vectors < 2)
        return;
      auto interleave = LLVM::LoopInterleaveAttr::get(
          context, IntegerAttr::get(IntegerType::get(context, 32), vectors));
      auto annotation = LLVM::LoopAnnotationAttr::get(
          context, /*disableNonforced=*/nullptr, /*vectorize=*/nullptr, interleave,
          /*unroll=*/nullptr, /*unrollAndJam=*/nullptr, /*licm=*/nullptr,
          /*distribute=*/nullptr, /*pipeline=*/nullptr, /*peeled=*/nullptr,
          /*unswitch=*/nullptr, /*mustProgress=*/nullptr, /*isVectorized=*/nullptr,
          /*startLoc=*/nullptr, /*endLoc=*/nullptr, /*parallelAccesses=*/{});
      // convert-scf-to-cf and the LLVM lowering carry it to the back edge,
      // where it is llvm.br's own loop_annotation.
      loop->setAttr("loop_annotation", annotation);
    });
  }
};

} // namespace
