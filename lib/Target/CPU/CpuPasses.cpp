// The CPU-specific passes of the lowering pipeline (see Pipeline.cpp).
#include "seq/Target/CPU/Pipeline.h"

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

namespace {

//===----------------------------------------------------------------------===//
// Entry point: C interface and read-only arguments
//===----------------------------------------------------------------------===//

/// Marks public functions for the C interface (`_mlir_ciface_<name>`) and
/// their arguments as not writable, so bufferization never writes into the
/// caller's input; packs a stateful @predict's states into one argument
/// and result (PackState.h).
struct PrepareEntryPass
    : PassWrapper<PrepareEntryPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PrepareEntryPass)
  StringRef getArgument() const override { return "seq-cpu-prepare-entry"; }
  StringRef getDescription() const override {
    return "Prepares @predict for its C interface: states packed into one "
           "argument and result, arguments read-only";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<tensor::TensorDialect, LLVM::LLVMDialect,
                    bufferization::BufferizationDialect>();
  }
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
// GEMM micro-kernel
//===----------------------------------------------------------------------===//

constexpr int64_t kLanes = 16; // f32 lanes of a 512-bit vector

/// Register blocks: `rows` rows of C times `vectors` vectors of kLanes
/// columns are kept in registers over the whole K loop. Eight rows by two
/// vectors use 16 accumulators; a single row takes eight vectors so that a
/// batch-1 GEMV still has eight independent FMA chains.
struct Block {
  int64_t rows, vectors;
};
constexpr Block kMainBlock{8, 2};
constexpr Block kRowBlock{1, 8};

struct Microkernel {
  OpBuilder &b;
  Location loc;
  Value A, B, C;
  VectorType vec;

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value addIndex(Value x, int64_t v) {
    return v == 0 ? x : arith::AddIOp::create(b, loc, x, index(v)).getResult();
  }

  /// Mask for the last vector of a block when it is only `width` lanes wide.
  Value maskFor(int64_t width) {
    if (width == kLanes)
      return nullptr;
    auto maskType = VectorType::get({kLanes}, b.getI1Type());
    return vector::ConstantMaskOp::create(b, loc, maskType,
                                          ArrayRef<int64_t>{width});
  }
  Value load(Value mem, ValueRange indices, Value mask) {
    if (!mask)
      return vector::LoadOp::create(b, loc, vec, mem, indices);
    Value zero = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(
                                                       vec, b.getF32FloatAttr(0)));
    return vector::MaskedLoadOp::create(b, loc, vec, mem, indices, mask, zero);
  }
  void store(Value v, Value mem, ValueRange indices, Value mask) {
    if (!mask)
      vector::StoreOp::create(b, loc, v, mem, indices);
    else
      vector::MaskedStoreOp::create(b, loc, mem, indices, mask, v);
  }

  /// C[i0 : i0+rows, j0 : j0 + vectors*kLanes] += A[rows, :] @ B[:, cols],
  /// the last vector `lastWidth` lanes wide.
  void emitBlock(Value i0, int64_t rows, Value j0, int64_t vectors,
                 int64_t lastWidth, Value k) {
    Value mask = maskFor(lastWidth);
    auto maskOf = [&](int64_t v) { return v + 1 == vectors ? mask : nullptr; };
    SmallVector<Value> rowIndex, colIndex;
    for (int64_t r = 0; r < rows; ++r)
      rowIndex.push_back(addIndex(i0, r));
    for (int64_t v = 0; v < vectors; ++v)
      colIndex.push_back(addIndex(j0, v * kLanes));
    SmallVector<Value> acc;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < vectors; ++v)
        acc.push_back(load(C, {rowIndex[r], colIndex[v]}, maskOf(v)));
    auto loop = scf::ForOp::create(
        b, loc, index(0), k, index(1), acc,
        [&](OpBuilder &nb, Location l, Value kk, ValueRange iters) {
          Microkernel inner{nb, l, A, B, C, vec};
          SmallVector<Value> bv;
          for (int64_t v = 0; v < vectors; ++v)
            bv.push_back(inner.load(B, {kk, colIndex[v]}, maskOf(v)));
          SmallVector<Value> next;
          for (int64_t r = 0; r < rows; ++r) {
            Value a = memref::LoadOp::create(nb, l, A, ValueRange{rowIndex[r], kk});
            Value splat = vector::BroadcastOp::create(nb, l, vec, a);
            for (int64_t v = 0; v < vectors; ++v)
              next.push_back(vector::FMAOp::create(nb, l, splat, bv[v],
                                                   iters[r * vectors + v]));
          }
          scf::YieldOp::create(nb, l, next);
        });
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < vectors; ++v)
        store(loop.getResult(r * vectors + v), C, {rowIndex[r], colIndex[v]},
              maskOf(v));
  }

  /// All column blocks of the row block starting at i0.
  void emitRowBlock(Value i0, Block block, int64_t n, Value k) {
    int64_t width = block.vectors * kLanes;
    int64_t full = n / width, tail = n % width;
    if (full > 0)
      scf::ForOp::create(b, loc, index(0), index(full * width), index(width),
                         ValueRange{},
                         [&](OpBuilder &nb, Location l, Value j0, ValueRange) {
                           Microkernel inner{nb, l, A, B, C, vec};
                           inner.emitBlock(i0, block.rows, j0, block.vectors,
                                           kLanes, k);
                           scf::YieldOp::create(nb, l);
                         });
    if (tail > 0) {
      int64_t vectors = (tail + kLanes - 1) / kLanes;
      emitBlock(i0, block.rows, index(full * width), vectors,
                tail - (vectors - 1) * kLanes, k);
    }
  }

  void emit(int64_t n) {
    Value m = memref::DimOp::create(b, loc, C, 0);
    Value k = memref::DimOp::create(b, loc, A, 1);
    Value rows = index(kMainBlock.rows);
    Value mainRows = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, m, rows), rows);
    scf::ForOp::create(b, loc, index(0), mainRows, rows, ValueRange{},
                       [&](OpBuilder &nb, Location l, Value i0, ValueRange) {
                         Microkernel inner{nb, l, A, B, C, vec};
                         inner.emitRowBlock(i0, kMainBlock, n, k);
                         scf::YieldOp::create(nb, l);
                       });
    scf::ForOp::create(b, loc, mainRows, m, index(1), ValueRange{},
                       [&](OpBuilder &nb, Location l, Value i, ValueRange) {
                         Microkernel inner{nb, l, A, B, C, vec};
                         inner.emitRowBlock(i, kRowBlock, n, k);
                         scf::YieldOp::create(nb, l);
                       });
  }
};

bool unitInnerStride(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.getElementType().isF32() && type.getRank() == 2 &&
         type.isLastDimUnitStride();
}

/// f32 linalg.matmul on buffers becomes register-blocked scf loops of
/// vector FMAs (the N extent must be static: it is a weight's width);
/// memref.copy becomes linalg.copy so it lowers to loops, not to a runtime
/// library call.
struct CpuKernelsPass
    : PassWrapper<CpuKernelsPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CpuKernelsPass)
  StringRef getArgument() const override { return "seq-cpu-kernels"; }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, linalg::LinalgDialect,
                    memref::MemRefDialect, scf::SCFDialect,
                    vector::VectorDialect>();
  }
  void runOnOperation() override {
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation().walk([&](linalg::MatmulOp op) {
      if (op.hasPureBufferSemantics() && !op.hasUserDefinedMaps())
        matmuls.push_back(op);
    });
    for (linalg::MatmulOp op : matmuls) {
      Value A = op.getDpsInputs()[0], B = op.getDpsInputs()[1];
      Value C = op.getDpsInits()[0];
      if (!unitInnerStride(A) || !unitInnerStride(B) || !unitInnerStride(C))
        continue;
      int64_t n = cast<MemRefType>(C.getType()).getDimSize(1);
      if (ShapedType::isDynamic(n))
        continue;
      OpBuilder b(op);
      Microkernel kernel{b, op.getLoc(), A, B, C,
                         VectorType::get({kLanes}, b.getF32Type())};
      kernel.emit(n);
      op.erase();
    }
    // A row-major buffer expands by a reinterpret_cast with suffix-product
    // strides. (expand-strided-metadata crashes on an expand_shape with two
    // dynamic sizes in one group, i.e. (B*T, n) -> (B, T, n) with both dynamic.)
    SmallVector<memref::ExpandShapeOp> expands;
    getOperation().walk([&](memref::ExpandShapeOp op) {
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
    getOperation().walk([&](memref::CopyOp op) { copies.push_back(op); });
    for (memref::CopyOp op : copies) {
      OpBuilder b(op);
      linalg::CopyOp::create(b, op.getLoc(), ValueRange{op.getSource()},
                             ValueRange{op.getTarget()});
      op.erase();
    }
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

/// The tile sizes that make a 2-D convolution or pooling one output row of
/// one sample and one kernel row (so that upstream decomposition turns it
/// into its 1-D form), at most 8 output columns and 16 channels / filters
/// wide (a vector register), or std::nullopt if a size is not static.
std::optional<SmallVector<OpFoldResult>> rowTiles(OpBuilder &b, linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto sized = [&](int64_t loop, int64_t cap) -> std::optional<int64_t> {
    if (ShapedType::isDynamic(ranges[loop]))
      return std::nullopt;
    return divisorAtMost(ranges[loop], cap);
  };
  SmallVector<std::optional<int64_t>> sizes;
  if (isa<linalg::Conv1DNwcWcfOp>(op)) { // (n, ow, f, kw, c)
    sizes = {1, sized(1, 8), sized(2, 16), 0, sized(4, 16)};
    if (ShapedType::isDynamic(ranges[3]))
      return std::nullopt;
  } else {
    if (isa<linalg::Conv2DNhwcHwcfOp>(op)) // (n, oh, ow, f, kh, kw, c)
      sizes = {1, 1, sized(2, 8), sized(3, 16), 1, 0, sized(6, 16)};
    else // pooling_nhwc and depthwise_conv_2d_nhwc_hwc: (n, oh, ow, c, kh, kw)
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

/// linalg.conv_2d_nhwc_hwcf, depthwise_conv_2d_nhwc_hwc and
/// pooling_nhwc_max/sum (what --seq-to-linalg makes of Conv2D, a depthwise
/// Conv2D and the 2-D poolings) become vector code with upstream transforms:
/// tiled into output rows, decomposed into their 1-D forms (conv_1d_nwc_wcf,
/// depthwise_conv_1d_nwc_wc, pooling_nwc_*), and vectorized; conv_1d_nwc_wcf
/// (a Conv1DTranspose) is tiled alike and vectorized
/// (linalg::vectorize: one vector.contract per kernel tap, or a vector
/// max/add). Ops whose sizes are not static stay for convert-linalg-to-loops.
/// Runs on tensors, before bufferization.
struct VectorizeConvPass
    : PassWrapper<VectorizeConvPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VectorizeConvPass)
  StringRef getArgument() const override { return "seq-cpu-vectorize-conv"; }
  StringRef getDescription() const override {
    return "Tiles, decomposes and vectorizes 2-D convolutions and poolings";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<affine::AffineDialect, arith::ArithDialect,
                    linalg::LinalgDialect, scf::SCFDialect,
                    tensor::TensorDialect, vector::VectorDialect>();
  }
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> rows;
    func.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::Conv2DNhwcHwcfOp, linalg::DepthwiseConv2DNhwcHwcOp,
              linalg::PoolingNhwcMaxOp, linalg::PoolingNhwcSumOp,
              linalg::Conv1DNwcWcfOp>(op) &&
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
      if (isa<linalg::Conv1DNwcWcfOp, linalg::DepthwiseConv1DNwcWcOp,
              linalg::PoolingNwcMaxOp, linalg::PoolingNwcSumOp>(op) &&
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
    : PassWrapper<MathApproximationPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MathApproximationPass)
  StringRef getArgument() const override { return "seq-cpu-math-approximation"; }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, math::MathDialect,
                    vector::VectorDialect, x86vector::X86VectorDialect>();
  }
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

std::unique_ptr<Pass> seq::cpu::createPrepareEntryPass() {
  return std::make_unique<PrepareEntryPass>();
}
std::unique_ptr<Pass> seq::cpu::createCpuKernelsPass() {
  return std::make_unique<CpuKernelsPass>();
}
std::unique_ptr<Pass> seq::cpu::createVectorizeConvPass() {
  return std::make_unique<VectorizeConvPass>();
}
std::unique_ptr<Pass> seq::cpu::createMathApproximationPass() {
  return std::make_unique<MathApproximationPass>();
}
