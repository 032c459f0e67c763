// seq-cpu-early-dealloc: frees each buffer right after its last use, not at
// the end of its block (Passes.td has the contract).
#include "seq/Target/CPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace seq::cpu {
#define GEN_PASS_DEF_SEQCPUEARLYDEALLOC
#include "seq/Target/CPU/Passes.h.inc"
} // namespace seq::cpu

namespace {

/// Ops whose results are values read from a buffer, never a way to reach it.
bool onlyReadsValues(Operation *op) {
  return isa<memref::LoadOp, memref::DimOp, vector::LoadOp, vector::TransferReadOp,
             affine::AffineLoadOp>(op);
}

/// The last op of `block` that uses `buffer` or anything derived from it
/// (a result of a user, or of an op enclosing a user inside that op), or
/// null when a use lies outside `block` or leaves through its terminator.
Operation *lastUseInBlock(Value buffer, Block *block, Operation *dealloc) {
  SmallVector<Value> work{buffer};
  DenseSet<Value> seen;
  Operation *last = nullptr;
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (Operation *user : value.getUsers()) {
      if (user == dealloc)
        continue;
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock || inBlock->hasTrait<OpTrait::IsTerminator>())
        return nullptr;
      if (!last || last->isBeforeInBlock(inBlock))
        last = inBlock;
      for (Operation *op = user; op != inBlock->getParentOp(); op = op->getParentOp())
        if (!onlyReadsValues(op))
          llvm::append_range(work, op->getResults());
    }
  }
  return last;
}

/// The buffer `value` is a view of: through pure ops with one memref operand
/// (subviews, casts, reshapes, extract_strided_metadata's base: what the
/// deallocation pipeline frees is often that base, not the allocation).
Value rootBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isPure(def))
      break;
    Value source;
    for (Value operand : def->getOperands())
      if (isa<BaseMemRefType>(operand.getType())) {
        if (source)
          return value; // two memref operands: not a view
        source = operand;
      }
    if (!source)
      break;
    value = source;
  }
  return value;
}

struct EarlyDeallocPass : seq::cpu::impl::SeqCpuEarlyDeallocBase<EarlyDeallocPass> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk([&](memref::DeallocOp op) { deallocs.push_back(op); });
    for (memref::DeallocOp dealloc : deallocs) {
      Block *block = dealloc->getBlock();
      // Only where this block holds the buffer's definition: a dealloc under
      // a condition frees a buffer defined outside it, and stays.
      Value buffer = rootBuffer(dealloc.getMemref());
      if (buffer.getParentBlock() != block)
        continue;
      Operation *last = lastUseInBlock(buffer, block, dealloc);
      if (last && last->isBeforeInBlock(dealloc))
        dealloc->moveAfter(last);
    }
  }
};

} // namespace
