// The CPU-specific passes of the lowering pipeline (see Pipeline.cpp).
#include "seq/Target/CPU/Passes.h"
#include "seq/Target/CPU/Pipeline.h"

#include "GemmKernel.h"
#include "PoolingKernel.h"
#include "PackState.h"
#include "seq/Dialect/Seq/IR/ModelIO.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace seq::cpu {
#define GEN_PASS_DEF_SEQCPUVECTORIZECONV
#define GEN_PASS_DEF_SEQCPUPREPAREENTRY
#define GEN_PASS_DEF_SEQCPUKERNELS
#define GEN_PASS_DEF_SEQCPUMATHAPPROXIMATION
#include "seq/Target/CPU/Passes.h.inc"
} // namespace seq::cpu

namespace {

//===----------------------------------------------------------------------===//
// Entry point: C interface and read-only arguments
//===----------------------------------------------------------------------===//

/// Marks public functions for the C interface (`_mlir_ciface_<name>`) and
/// their arguments as not writable, so bufferization never writes into the
/// caller's input; packs a stateful @predict's states into one argument
/// and result (PackState.h).
struct PrepareEntryPass
    : seq::cpu::impl::SeqCpuPrepareEntryBase<PrepareEntryPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isPrivate() || fn.isExternal())
        continue;
      if (fn.getName() == "predict") {
        if (failed(seq::cpu::packModelState(fn)))
          return signalPassFailure();
        // The ports' Keras names were read before lowering (ModelIO.h).
        for (unsigned i = 0; i < fn.getNumArguments(); ++i)
          fn.removeArgAttr(i, seq::kInputAttrName);
        for (unsigned i = 0; i < fn.getNumResults(); ++i)
          fn.removeResultAttr(i, StringAttr::get(&getContext(), seq::kOutputAttrName));
      }
      fn->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  UnitAttr::get(&getContext()));
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        fn.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                      BoolAttr::get(&getContext(), false));
    }
  }
};

//===----------------------------------------------------------------------===//
// GEMM and buffer clean-up
//===----------------------------------------------------------------------===//

/// f32 linalg.matmul on buffers becomes register-blocked scf loops of
/// vector FMAs for the target's registers (GemmKernel.h; the N extent must
/// be static: it is a weight's width), reading a constant weight packed at
/// compile time; memref.copy becomes linalg.copy so it lowers to loops, not
/// to a runtime library call.
struct CpuKernelsPass : seq::cpu::impl::SeqCpuKernelsBase<CpuKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<seq::cpu::VectorTarget> target =
        seq::cpu::VectorTarget::ofBits(vectorBits);
    if (!target) {
      emitError(getOperation().getLoc(),
                "seq-cpu-kernels: vector-bits must be 128, 256 or 512, not ")
          << static_cast<int64_t>(vectorBits);
      return signalPassFailure();
    }
    seq::cpu::PackedWeights weights(getOperation());
    SmallVector<linalg::LinalgOp> products;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::Conv1DNwcWcfOp, linalg::Conv2DNhwcHwcfOp,
              linalg::Conv3DNdhwcDhwcfOp>(op))
        products.push_back(op);
    });
    for (linalg::LinalgOp op : products) {
      if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation()))
        seq::cpu::emitGemm(matmul, *target, weights);
      else
        seq::cpu::emitConvolutionGemm(op, *target, weights);
    }
    // The poolings seq-cpu-vectorize-conv left (3-D, or of unknown size).
    SmallVector<linalg::LinalgOp> poolings;
    getOperation().walk([&](linalg::LinalgOp op) { poolings.push_back(op); });
    for (linalg::LinalgOp op : poolings)
      seq::cpu::emitPooling(op, *target);
    for (auto fn : getOperation().getOps<func::FuncOp>())
      cleanUpBuffers(fn);
  }

  static void cleanUpBuffers(func::FuncOp fn) {
    // A row-major buffer expands by a reinterpret_cast with suffix-product
    // strides. (expand-strided-metadata crashes on an expand_shape with two
    // dynamic sizes in one group, i.e. (B*T, n) -> (B, T, n) with both dynamic.)
    SmallVector<memref::ExpandShapeOp> expands;
    fn.walk([&](memref::ExpandShapeOp op) {
      if (op.getSrcType().getLayout().isIdentity())
        expands.push_back(op);
    });
    for (memref::ExpandShapeOp op : expands) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();
      SmallVector<OpFoldResult> strides(sizes.size());
      OpFoldResult stride = b.getIndexAttr(1);
      for (size_t i = sizes.size(); i-- > 0;) {
        strides[i] = stride;
        auto cs = getConstantIntValue(stride), cd = getConstantIntValue(sizes[i]);
        if (cs && cd)
          stride = b.getIndexAttr(*cs * *cd);
        else
          stride = arith::MulIOp::create(
                       b, loc, getValueOrCreateConstantIndexOp(b, loc, stride),
                       getValueOrCreateConstantIndexOp(b, loc, sizes[i]))
                       .getResult();
      }
      auto cast = memref::ReinterpretCastOp::create(
          b, loc, op.getResultType(), op.getSrc(), b.getIndexAttr(0), sizes,
          strides);
      op.getResult().replaceAllUsesWith(cast.getResult());
      op.erase();
    }

    SmallVector<memref::CopyOp> copies;
    fn.walk([&](memref::CopyOp op) { copies.push_back(op); });
    for (memref::CopyOp op : copies) {
      OpBuilder b(op);
      linalg::CopyOp::create(b, op.getLoc(), ValueRange{op.getSource()},
                             ValueRange{op.getTarget()});
      op.erase();
    }

    SmallVector<linalg::LinalgOp> moves;
    fn.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::CopyOp, linalg::FillOp>(op) && op.hasPureBufferSemantics())
        moves.push_back(op);
    });
    for (linalg::LinalgOp op : moves)
      flattenContiguousTail(op);
  }

  /// How many trailing axes of `type` lie in memory as one contiguous run.
  static int64_t contiguousTail(MemRefType type) {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) || type.getRank() == 0 ||
        strides.back() != 1)
      return 0;
    int64_t axes = 1;
    for (int64_t i = type.getRank() - 2; i >= 0; --i, ++axes) {
      int64_t inner = type.getDimSize(i + 1);
      if (ShapedType::isDynamic(strides[i]) || ShapedType::isDynamic(strides[i + 1]) ||
          ShapedType::isDynamic(inner) || strides[i] != strides[i + 1] * inner)
        break;
    }
    return axes;
  }

  /// A copy or fill whose buffers share a contiguous run of trailing axes
  /// works on them as one axis: its innermost loop is then long and
  /// unit-stride, which LLVM vectorizes (on (b, h, w, 16) it vectorized an
  /// outer loop into scatter stores).
  static void flattenContiguousTail(linalg::LinalgOp op) {
    int64_t rank = op.getNumLoops(), tail = rank;
    SmallVector<Value> buffers;
    for (OpOperand &operand : op->getOpOperands())
      if (auto type = dyn_cast<MemRefType>(operand.get().getType())) {
        buffers.push_back(operand.get());
        tail = std::min(tail, contiguousTail(type));
      }
    if (tail < 2)
      return;
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0; i < rank - tail; ++i)
      groups.push_back({i});
    groups.emplace_back();
    for (int64_t i = rank - tail; i < rank; ++i)
      groups.back().push_back(i);
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto flat = [&](Value v) -> Value {
      return memref::CollapseShapeOp::create(b, loc, v, groups);
    };
    if (auto copy = dyn_cast<linalg::CopyOp>(op.getOperation()))
      linalg::CopyOp::create(b, loc, ValueRange{flat(copy.getInputs()[0])},
                             ValueRange{flat(copy.getOutputs()[0])});
    else
      linalg::FillOp::create(b, loc, ValueRange{op.getDpsInputs()[0]},
                             ValueRange{flat(op.getDpsInits()[0])});
    op.erase();
  }
};

//===----------------------------------------------------------------------===//
// Convolution and pooling vectorization
//===----------------------------------------------------------------------===//

/// The largest divisor of `n` that is at most `cap`: tiles divide their loop
/// exactly, so every tile has a static shape the vectorizer accepts.
int64_t divisorAtMost(int64_t n, int64_t cap) {
  for (int64_t d = std::min(n, cap); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

/// The tile sizes that make a depthwise 2-D convolution or a pooling one
/// output row of one sample and one kernel row (so that upstream
/// decomposition turns it into its 1-D form), at most 8 output columns and
/// 16 channels wide (a vector register), or std::nullopt if a size is not
/// static.
std::optional<SmallVector<OpFoldResult>> rowTiles(OpBuilder &b, linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto sized = [&](int64_t loop, int64_t cap) -> std::optional<int64_t> {
    if (ShapedType::isDynamic(ranges[loop]))
      return std::nullopt;
    return divisorAtMost(ranges[loop], cap);
  };
  SmallVector<std::optional<int64_t>> sizes;
  if (isa<linalg::PoolingNwcMaxOp, linalg::PoolingNwcSumOp>(op)) { // (n, ow, c, kw)
    sizes = {1, sized(1, 8), sized(2, 16), 0};
    if (ShapedType::isDynamic(ranges[3]))
      return std::nullopt;
  } else { // pooling_nhwc and depthwise_conv_2d_nhwc_hwc: (n, oh, ow, c, kh, kw)
    sizes = {1, 1, sized(2, 8), sized(3, 16), 1, 0};
    if (ShapedType::isDynamic(ranges[5]))
      return std::nullopt;
  }
  SmallVector<OpFoldResult> tiles;
  for (std::optional<int64_t> size : sizes) {
    if (!size)
      return std::nullopt;
    tiles.push_back(b.getIndexAttr(*size));
  }
  return tiles;
}

/// depthwise_conv_2d_nhwc_hwc and pooling_nhwc_max/sum (what --seq-to-linalg
/// makes of a depthwise Conv2D and the 2-D poolings) become vector code with
/// upstream transforms: tiled into output rows, decomposed into their 1-D
/// forms (depthwise_conv_1d_nwc_wc, pooling_nwc_*), and vectorized;
/// pooling_nwc_max/sum (the 1-D poolings) are tiled alike and vectorized
/// (linalg::vectorize: a vector FMA per kernel tap, or a vector max/add). Ops
/// whose sizes are not static are left: the poolings to seq-cpu-kernels'
/// pooling loops, a depthwise convolution to convert-linalg-to-loops. Runs
/// on tensors, before bufferization. (The convolutions are seq-cpu-kernels'
/// implicit GEMMs.)
struct VectorizeConvPass
    : seq::cpu::impl::SeqCpuVectorizeConvBase<VectorizeConvPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> rows;
    func.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::DepthwiseConv2DNhwcHwcOp, linalg::PoolingNhwcMaxOp,
              linalg::PoolingNhwcSumOp, linalg::PoolingNwcMaxOp,
              linalg::PoolingNwcSumOp>(op) &&
          op.hasPureTensorSemantics())
        rows.push_back(op);
    });
    for (linalg::LinalgOp op : rows) {
      rewriter.setInsertionPoint(op);
      std::optional<SmallVector<OpFoldResult>> tiles = rowTiles(rewriter, op);
      if (!tiles)
        continue;
      scf::SCFTilingOptions options;
      options.setTileSizes(*tiles);
      FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(tiled))
        continue;
      rewriter.replaceOp(op, tiled->replacements);
    }

    RewritePatternSet decompose(&getContext());
    linalg::populateDecomposeConvolutionPatterns(decompose);
    if (failed(applyPatternsGreedily(func, std::move(decompose))))
      return signalPassFailure();

    SmallVector<linalg::LinalgOp> oneDimensional;
    func.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::DepthwiseConv1DNwcWcOp, linalg::PoolingNwcMaxOp,
              linalg::PoolingNwcSumOp>(op) &&
          op.hasPureTensorSemantics() && !op.hasDynamicShape())
        oneDimensional.push_back(op);
    });
    for (linalg::LinalgOp op : oneDimensional) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::VectorizationResult> vectorized =
          linalg::vectorize(rewriter, op);
      if (succeeded(vectorized))
        rewriter.replaceOp(op, vectorized->replacements);
    }

    RewritePatternSet cleanup(&getContext());
    vector::populateVectorTransferPermutationMapLoweringPatterns(cleanup);
    vector::populateVectorReductionToContractPatterns(cleanup);
    vector::populateSinkVectorOpsPatterns(cleanup);
    vector::TransferReadOp::getCanonicalizationPatterns(cleanup, &getContext());
    vector::TransferWriteOp::getCanonicalizationPatterns(cleanup, &getContext());
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(cleanup);
    if (failed(applyPatternsGreedily(func, std::move(cleanup))))
      return signalPassFailure();
  }
};

//===----------------------------------------------------------------------===//
// Math
//===----------------------------------------------------------------------===//

/// tanh, exp, expm1, log1p, erf, ... as polynomials: vectorisable, no libm.
struct MathApproximationPass
    : seq::cpu::impl::SeqCpuMathApproximationBase<MathApproximationPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      name.consume_front("math.");
      return llvm::is_contained(
          {"tanh", "exp", "expm1", "log", "log1p", "erf", "erfc"}, name);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
