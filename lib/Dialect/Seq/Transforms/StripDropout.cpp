#include "seq/Dialect/Seq/IR/SeqOps.h"
#include "seq/Dialect/Seq/Transforms/Passes.h"

namespace seq {
#define GEN_PASS_DEF_STRIPDROPOUT
#include "seq/Dialect/Seq/Transforms/Passes.h.inc"
} // namespace seq

namespace {
struct StripDropoutPass : seq::impl::StripDropoutBase<StripDropoutPass> {
  void runOnOperation() override {
    getOperation()->walk([](seq::DropoutOp op) {
      op.getOutput().replaceAllUsesWith(op.getInput());
      op.erase();
    });
  }
};
} // namespace
