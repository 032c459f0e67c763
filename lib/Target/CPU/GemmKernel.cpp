#include "GemmKernel.h"
#include "WindowAttrs.h"

#include "seq/Conversion/Passes.h"
#include "seq/Dialect/Seq/Transforms/WeightConstants.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/Support/CommandLine.h"

#include <algorithm>
#include <optional>

using namespace mlir;
using seq::cpu::kPanelColumns;

namespace {

/// Row distance (floats) from which a GEMM that starts from another buffer
/// prefetches it (Gemm::prefetchIfFarApart): 64 rows (a tile) then span 2 MiB.
constexpr int64_t kFarRowFloats = 8192;

/// Bytes of C from which a matmul marked kStreamedOutputAttr (a recurrence's
/// input projection, read back one step at a time) stores past the caches:
/// 8 times this core's L2, so that its first rows are long evicted when
/// the steps read them. Writing such a C through the caches first reads
/// every line of it from memory (5% of an LSTM(512) at batch 32, whose
/// projection is 26 MB); streaming a small one slows its readers (17% of an
/// LSTM(128) at batch 1, 0.8 MB).
constexpr int64_t kStreamedBytes = 16 << 20;

/// Rows of A swept by every panel before the next rows come (their K
/// columns stay in the L2 cache), and the K extent of one pass of a panel:
/// a convolution's K x 32 floats stay in the L1 cache while the rows pass
/// over them. A matmul's panel is read from the L2 cache in passes four
/// times as deep, which store and reload C a quarter as often: at batch 32
/// on Intel Emerald Rapids with the panels prefetched (PanelPrefetch),
/// LSTM(1024) 193 -> 186 ms, LSTM(512) 54.6 -> 53.6 ms.
constexpr int64_t kRowChunk = 128;
constexpr int64_t kDepthChunk = 256;
constexpr int64_t kMatmulDepthChunk = 1024;
/// The last panel's rows are N mod 32 columns rounded up to this.
constexpr int64_t kTailQuantum = 16;
/// Packed weights from this size on are prefetched a panel ahead by the
/// register blocks (PanelPrefetch): a smaller one stays in the L2 cache
/// between passes. A hidden option, so that tests can take that path with
/// small models.
llvm::cl::opt<int64_t> prefetchPanelsFromBytes(
    "seq-prefetch-panels-bytes", llvm::cl::Hidden, llvm::cl::init(512 << 10),
    llvm::cl::desc("Bytes of a packed weight from which its register blocks "
                   "prefetch the next panel into the L2 cache"));
/// Packed weights from this size on are swept in alternating directions by
/// rows taken alone (stepParity). A hidden option, so that tests can take
/// that path with small models.
llvm::cl::opt<int64_t> alternateFromBytes(
    "seq-alternate-sweep-bytes", llvm::cl::Hidden, llvm::cl::init(512 << 10),
    llvm::cl::desc("Bytes of a packed weight from which rows computed alone sweep "
                   "it in alternating directions"));

/// Register blocks: `rows` rows of C by `vectors` vectors (one panel) held
/// in registers over the K loop; the rows left over (all of a batch-1 GEMV)
/// go one row by `rowVectors` vectors, so that they still have that many
/// independent FMA chains.
struct BlockShape {
  int64_t rows, vectors, rowVectors;
};

BlockShape blockShape(const seq::cpu::VectorTarget &t, int64_t n) {
  int64_t vectors = kPanelColumns / t.lanes;
  // 16 accumulators of 32 AVX-512 registers; 12 of 16 AVX2 registers (an
  // x86 FMA reads its B vector from memory when registers run out); 16 of
  // 32 NEON registers, which leaves 8 for B vectors and a broadcast.
  int64_t rows = t.lanes >= 16 ? 8 : t.lanes == 8 ? 3 : 2;
  // C one vector wide (16 filters of an RGB convolution): twice the rows,
  // so that as many FMA chains run as with two vectors.
  if (n <= t.lanes)
    rows *= 2;
  return {rows, vectors, 8};
}

/// The (K, N) weight packed into panels (PackedWeights' layout).
struct PanelLayout {
  int64_t k, n;
  int64_t fullPanels() const { return n / kPanelColumns; }
  int64_t tail() const { return n % kPanelColumns; }
  int64_t tailStride() const {
    return (tail() + kTailQuantum - 1) / kTailQuantum * kTailQuantum;
  }
  int64_t panelFloats() const { return k * kPanelColumns; }
  int64_t size() const { return fullPanels() * panelFloats() + k * tailStride(); }
};

/// One vector of C columns in a block, and where it reads B at step k:
/// B[k, column] unpacked, packed[base + k * stride] packed. `panel` is the
/// first column of its panel and `offset` its own in it: a packed weight
/// of depth k holds it at panel * k + offset (Gemm::columnsIn).
struct VectorColumn {
  Value column;
  Value base;
  int64_t stride = 0;
  Value panel;
  int64_t offset = 0;
};

/// A matmul into the same C just before this one whose product is fused
/// into this one's register blocks: its k loop runs first, on the
/// accumulators it starts, and C is stored once. A recurrence's step at a
/// large batch is x_t @ Kx + b, then + h @ Kh (Recurrences.cpp): one start
/// and end of each block instead of two, and no pass over C in between.
struct LeadingProduct {
  Value A, B;
  PanelLayout layout;
};

/// A packed weight that does not stay in the L2 cache between passes is
/// read from the L3 cache by the first register block of each panel, and
/// from the L1 or L2 cache by the others. The hardware prefetcher does not
/// keep up with that first block (two lines per 16 FMAs, and it starts
/// afresh at each 4 KiB page), so the blocks of a panel prefetch the next
/// panel's slice into the L2 cache, each its share, spread over its
/// reduction loop: at step k block `block` of `blocks` (PrefetchShare)
/// prefetches B[origin + k * step]. On Intel Emerald Rapids at batch 32
/// (2 MiB L2): LSTM(1024) 238 -> 199 ms, LSTM(512) 64 -> 54 ms, LSTM(256)
/// (1 MiB and 512 KiB kernels) 16.9 -> 16.4 ms; LSTM(128)'s 256 KiB
/// kernels, prefetched, took 1% longer.
struct PanelPrefetch {
  Value origin, step;
};
struct PrefetchShare {
  Value block, blocks, step;
};

/// Where C's accumulators start: C itself, or what the op that filled C
/// just before the matmul read (that op is then erased): another buffer of
/// C's shape (a copy), a row vector broadcast down the rows (a bias), or a
/// scalar (a fill). Saves a pass over C.
struct InitSource {
  enum Kind { Itself, Rows, Broadcast, Splat } kind = Itself;
  Value value;
};

/// What A's rows are. A matmul's: row i of C is C[i, :] and reads A[i, k].
/// A convolution's (an implicit GEMM): C is (b, o..., F), a row is one output
/// position, and its A row is the receptive field read in place from the
/// input, input[b, o * stride + t * dilation, c] over the window's taps t
/// and the channels c, k = tap * channels + c (the row-major order of the
/// kernel (t..., c, F), which is B).
struct Geometry {
  /// The convolution window's extents (empty for a matmul), its strides and
  /// dilations per spatial axis, and the input channels.
  SmallVector<int64_t> window, strides, dilations;
  int64_t channels = 0;

  bool convolution() const { return !window.empty(); }
  int64_t taps() const {
    int64_t taps = 1;
    for (int64_t extent : window)
      taps *= extent;
    return taps;
  }
};

/// A slice of the reduction: taps [tapBegin, tapEnd) (a matmul has one),
/// channels [channelBegin, channelEnd) of each.
struct Depth {
  int64_t tapBegin, tapEnd;
  Value channelBegin, channelEnd;
};

struct Gemm {
  OpBuilder &b;
  Location loc;
  Value A, B, C;
  bool packed;
  VectorType vec;
  int64_t lanes;
  InitSource init;
  /// An elementwise op on C right after the matmul (its activation),
  /// applied to the accumulators before they are stored; or null.
  linalg::GenericOp epilogue;
  const Geometry &geometry;
  /// Whether the final stores of C go past the caches (the loops emitted
  /// under streamedCondition).
  bool streamed = false;
  /// Where a packed B of alternateFromBytes or more is swept in
  /// alternating directions: 0 or 1, the parity of the sweeps over it
  /// before this GEMM (stepParity); null where B is swept forward only.
  Value sweepParity = nullptr;
  /// A packed B's layout; the product fused before this one, if any.
  std::optional<PanelLayout> layout;
  std::optional<LeadingProduct> lead;

  Gemm at(OpBuilder &nb, Location l) const {
    return Gemm{nb, l, A, B, C, packed, vec, lanes, init, epilogue, geometry, streamed,
                sweepParity, layout, lead};
  }

  /// `epilogue`'s body on one vector of accumulators: each scalar op cloned
  /// with vector types (they are all elementwise-mappable), each scalar
  /// from outside the body broadcast.
  Value applyEpilogue(Value acc) {
    Block *body = epilogue.getBody();
    IRMapping map;
    map.map(body->getArgument(0), acc);
    auto vectorOf = [&](Type t) { return VectorType::get({lanes}, t); };
    auto lookup = [&](Value v) {
      if (!map.contains(v))
        map.map(v, vector::BroadcastOp::create(b, loc, vectorOf(v.getType()), v));
      return map.lookup(v);
    };
    for (Operation &op : body->without_terminator()) {
      if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
        Value splat = arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(vectorOf(constant.getType()),
                                           constant.getValue()));
        map.map(constant.getResult(), splat);
        continue;
      }
      for (Value operand : op.getOperands())
        lookup(operand);
      Operation *clone = b.clone(op, map);
      for (OpResult result : clone->getResults())
        result.setType(vectorOf(result.getType()));
    }
    return lookup(body->getTerminator()->getOperand(0));
  }
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, int64_t v) {
    return v == 0 ? x : arith::AddIOp::create(b, loc, x, index(v)).getResult();
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t v) {
    return arith::MulIOp::create(b, loc, x, index(v));
  }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }

  /// Mask for the last vector of a block when it is only `width` lanes wide.
  Value maskFor(int64_t width) {
    if (width == lanes)
      return nullptr;
    auto maskType = VectorType::get({lanes}, b.getI1Type());
    return vector::ConstantMaskOp::create(b, loc, maskType,
                                          ArrayRef<int64_t>{width});
  }
  Value load(Value mem, ValueRange indices, Value mask) {
    if (!mask)
      return vector::LoadOp::create(b, loc, vec, mem, indices);
    Value zero = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vec, b.getF32FloatAttr(0)));
    return vector::MaskedLoadOp::create(b, loc, vec, mem, indices, mask, zero);
  }
  void store(Value v, Value mem, ValueRange indices, Value mask) {
    if (!mask)
      vector::StoreOp::create(b, loc, v, mem, indices);
    else
      vector::MaskedStoreOp::create(b, loc, mem, indices, mask, v);
  }
  /// C's leading indices of row `row` (all but the column).
  SmallVector<Value> positionOf(Value row) {
    if (!geometry.convolution())
      return {row};
    auto type = cast<MemRefType>(C.getType());
    SmallVector<OpFoldResult> basis;
    for (int64_t i = 1; i + 1 < type.getRank(); ++i) {
      if (type.isDynamicDim(i))
        basis.push_back(memref::DimOp::create(b, loc, C, i).getResult());
      else
        basis.push_back(b.getIndexAttr(type.getDimSize(i)));
    }
    return affine::AffineDelinearizeIndexOp::create(b, loc, row, basis,
                                                    /*hasOuterBound=*/false)
        .getResults();
  }
  /// Whether a block of `rows` rows (which starts at a multiple of `rows`)
  /// lies on one line of a convolution's output (its last spatial axis).
  bool rowsShareLine(int64_t rows) {
    auto type = cast<MemRefType>(C.getType());
    int64_t line = type.getDimSize(type.getRank() - 2);
    return geometry.convolution() && !ShapedType::isDynamic(line) &&
           line % rows == 0;
  }
  /// The number of C's rows.
  Value rowCount() {
    auto type = cast<MemRefType>(C.getType());
    Value rows = memref::DimOp::create(b, loc, C, 0);
    for (int64_t i = 1; i + 1 < type.getRank(); ++i)
      rows = arith::MulIOp::create(b, loc, rows, memref::DimOp::create(b, loc, C, i));
    return rows;
  }
  /// Where A's row at `position` starts: a matmul's row index; a
  /// convolution's batch and first input position of each spatial axis.
  SmallVector<Value> rowStartOf(ArrayRef<Value> position) {
    if (!geometry.convolution())
      return {position[0]};
    SmallVector<Value> start{position[0]};
    for (size_t i = 0; i < geometry.strides.size(); ++i) {
      int64_t stride = geometry.strides[i];
      start.push_back(stride == 1 ? position[1 + i] : mul(position[1 + i], stride));
    }
    return start;
  }
  /// A tap's index along each spatial axis of the window.
  SmallVector<Value> tapIndices(Value tap) {
    if (geometry.window.size() == 1)
      return {tap};
    return affine::AffineDelinearizeIndexOp::create(b, loc, tap, geometry.window,
                                                    /*hasOuterBound=*/true)
        .getResults();
  }
  /// A[row, k] for the row starting at `start`, at `tap` (its indices along
  /// the window; none for a matmul) and channel `channel`.
  Value loadA(ArrayRef<Value> start, ArrayRef<Value> tap, Value channel) {
    SmallVector<Value> indices{start[0]};
    for (size_t i = 0; i < tap.size(); ++i) {
      int64_t dilation = geometry.dilations[i];
      Value offset = dilation == 1 ? tap[i] : mul(tap[i], dilation);
      indices.push_back(add(start[1 + i], offset));
    }
    indices.push_back(channel);
    return memref::LoadOp::create(b, loc, A, indices);
  }
  /// B's vector `col` at reduction step k = tapNumber * channels + channel.
  /// A packed weight is zero-padded: its loads need no mask.
  Value loadB(const VectorColumn &col, Value tapNumber, ArrayRef<Value> tap,
              Value channel, Value mask) {
    if (!packed) {
      SmallVector<Value> indices(tap.begin(), tap.end());
      indices.append({channel, col.column});
      return load(B, indices, mask);
    }
    Value k = channel;
    if (geometry.convolution())
      k = add(mul(tapNumber, geometry.channels), channel);
    return load(B, {add(col.base, mul(k, col.stride))}, nullptr);
  }

  /// `columns` in another packed weight of depth k (a LeadingProduct's).
  SmallVector<VectorColumn> columnsIn(int64_t k, ArrayRef<VectorColumn> columns) {
    SmallVector<VectorColumn> moved(columns.begin(), columns.end());
    for (VectorColumn &col : moved)
      col.base = add(mul(col.panel, k), col.offset);
    return moved;
  }

  /// Where a block prefetches the next panel of its packed B (laid out as
  /// `layout`), for its `share` of the panel's `depth` slice; none for a B
  /// that stays in the cache or for the last, partial panel.
  std::optional<PanelPrefetch> panelPrefetch(const PanelLayout &layout,
                                             ArrayRef<VectorColumn> columns,
                                             const Depth &depth,
                                             std::optional<PrefetchShare> share) {
    if (!share || geometry.convolution() || layout.fullPanels() < 2 ||
        layout.size() * 4 < prefetchPanelsFromBytes ||
        int64_t(columns.size()) * lanes != kPanelColumns ||
        columns.front().stride != kPanelColumns)
      return std::nullopt;
    // The last panel prefetches its own slice (still in the cache).
    Value lastPanel = index((layout.fullPanels() - 1) * layout.panelFloats());
    Value next = min(add(columns.front().base, layout.panelFloats()), lastPanel);
    Value depthSteps = sub(depth.channelEnd, depth.channelBegin);
    Value start = arith::DivUIOp::create(
        b, loc, mul(arith::MulIOp::create(b, loc, share->block, depthSteps), kPanelColumns),
        share->blocks);
    // origin + channelBegin * step is the share's start in the slice.
    Value origin = sub(add(add(next, mul(depth.channelBegin, kPanelColumns)), start),
                       arith::MulIOp::create(b, loc, depth.channelBegin, share->step));
    return PanelPrefetch{origin, share->step};
  }

  /// acc + A[rows from rowStart, depth] @ B[depth, columns], the last vector
  /// of B loaded under `mask` (unpacked); prefetching where `prefetch` says.
  SmallVector<Value> reduce(ValueRange acc, ArrayRef<SmallVector<Value>> rowStart,
                            ArrayRef<VectorColumn> columns, Value mask,
                            const Depth &depth, std::optional<PanelPrefetch> prefetch) {
    size_t vectors = columns.size();
    int64_t rows = rowStart.size();
    auto maskOf = [&](size_t v) { return v + 1 == vectors ? mask : nullptr; };
    // One step of the reduction: every row's A value times every B vector.
    auto channels = [&](OpBuilder &ob, Location ol, ValueRange accIn, Value tapNumber,
                        ArrayRef<Value> tap) {
      return scf::ForOp::create(
          ob, ol, depth.channelBegin, depth.channelEnd, index(1), accIn,
          [&](OpBuilder &nb, Location l, Value c, ValueRange iters) {
            Gemm inner = at(nb, l);
            SmallVector<Value> bv;
            for (size_t v = 0; v < vectors; ++v)
              bv.push_back(inner.loadB(columns[v], tapNumber, tap, c, maskOf(v)));
            if (prefetch)
              memref::PrefetchOp::create(
                  nb, l, B,
                  ValueRange{inner.add(prefetch->origin,
                                       arith::MulIOp::create(nb, l, c, prefetch->step))},
                  /*isWrite=*/false, /*localityHint=*/2, /*isDataCache=*/true);
            SmallVector<Value> next;
            for (int64_t r = 0; r < rows; ++r) {
              Value a = inner.loadA(rowStart[r], tap, c);
              Value splat = vector::BroadcastOp::create(nb, l, vec, a);
              for (size_t v = 0; v < vectors; ++v)
                next.push_back(vector::FMAOp::create(nb, l, splat, bv[v],
                                                     iters[r * vectors + v]));
            }
            scf::YieldOp::create(nb, l, next);
          });
    };
    scf::ForOp loop;
    if (!geometry.convolution()) {
      loop = channels(b, loc, acc, nullptr, {});
    } else {
      loop = scf::ForOp::create(
          b, loc, index(depth.tapBegin), index(depth.tapEnd), index(1), acc,
          [&](OpBuilder &nb, Location l, Value tapNumber, ValueRange iters) {
            Gemm inner = at(nb, l);
            scf::ForOp perTap =
                channels(nb, l, iters, tapNumber, inner.tapIndices(tapNumber));
            scf::YieldOp::create(nb, l, perTap.getResults());
          });
    }
    return SmallVector<Value>(loop.getResults());
  }

  /// C[i0 : i0+rows, columns] = start + A[rows, depth] @ B[depth, columns],
  /// the last vector `lastWidth` lanes wide; start is `init` when `first`
  /// (the first slice of the reduction), else C; the epilogue applies when
  /// `last` (the last slice). With `lastRow`, rows past it are that row
  /// again: they compute and store its values once more (the same bits),
  /// so that a few rows left over run as one block. A leading product's
  /// k loop runs first where `first`; `share` is this block's share of the
  /// next panels' prefetch (PanelPrefetch).
  void block(Value i0, int64_t rows, ArrayRef<VectorColumn> columns,
             int64_t lastWidth, const Depth &depth, bool first = true,
             bool last = true, Value lastRow = nullptr,
             std::optional<PrefetchShare> share = std::nullopt) {
    Value mask = maskFor(lastWidth);
    size_t vectors = columns.size();
    auto maskOf = [&](size_t v) { return v + 1 == vectors ? mask : nullptr; };
    SmallVector<SmallVector<Value>> position, rowStart;
    for (int64_t r = 0; r < rows; ++r) {
      if (r > 0 && !lastRow && rowsShareLine(rows)) {
        // Neighbours on one output line: their loads are the first row's
        // at constant offsets.
        position.push_back(position[0]);
        position.back().back() = add(position[0].back(), r);
      } else {
        Value row = add(i0, r);
        position.push_back(positionOf(lastRow ? min(row, lastRow) : row));
      }
      rowStart.push_back(rowStartOf(position.back()));
    }
    auto indicesOf = [&](int64_t r, Value column) {
      SmallVector<Value> indices = position[r];
      indices.push_back(column);
      return indices;
    };
    InitSource start = first ? init : InitSource{};
    SmallVector<Value> acc;
    if (start.kind == InitSource::Splat) {
      acc.assign(rows * vectors, vector::BroadcastOp::create(b, loc, vec, start.value));
    } else if (start.kind == InitSource::Broadcast) {
      for (int64_t r = 0; r < rows; ++r)
        for (size_t v = 0; v < vectors; ++v)
          acc.push_back(r == 0 ? load(start.value, {columns[v].column}, maskOf(v))
                               : acc[v]);
    } else {
      Value from = start.kind == InitSource::Rows ? start.value : C;
      for (int64_t r = 0; r < rows; ++r)
        for (size_t v = 0; v < vectors; ++v)
          acc.push_back(load(from, indicesOf(r, columns[v].column), maskOf(v)));
      if (start.kind == InitSource::Rows)
        prefetchIfFarApart(from, rows, columns, indicesOf);
    }
    if (first && lead) {
      Gemm leading = at(b, loc);
      leading.A = lead->A;
      leading.B = lead->B;
      leading.lead.reset();
      SmallVector<VectorColumn> leadColumns = columnsIn(lead->layout.k, columns);
      Depth whole{0, 1, index(0), index(lead->layout.k)};
      acc = leading.reduce(acc, rowStart, leadColumns, mask, whole,
                           leading.panelPrefetch(lead->layout, leadColumns, whole, share));
    }
    std::optional<PanelPrefetch> prefetch;
    if (layout)
      prefetch = panelPrefetch(*layout, columns, depth, share);
    SmallVector<Value> sums = reduce(acc, rowStart, columns, mask, depth, prefetch);
    for (int64_t r = 0; r < rows; ++r)
      for (size_t v = 0; v < vectors; ++v) {
        Value result = sums[r * vectors + v];
        if (last && epilogue)
          result = applyEpilogue(result);
        SmallVector<Value> indices = indicesOf(r, columns[v].column);
        if (last && streamed && !maskOf(v))
          vector::StoreOp::create(b, loc, result, C, indices, /*nontemporal=*/true,
                                  llvm::MaybeAlign(lanes * 4));
        else
          store(result, C, indices, maskOf(v));
      }
  }

  /// Whether C is at least kStreamedBytes and its vectors are aligned for
  /// non-temporal stores (C's start at a multiple of a vector, its rows a
  /// whole number of vectors, checked by the caller). A thread reads its
  /// own non-temporal stores in order; another thread's reads of the same
  /// arena come after the worker pool's atomic handshake, whose locked
  /// instruction drains the write-combining buffers.
  Value streamedCondition(int64_t n) {
    Value bytes = arith::MulIOp::create(b, loc, rowCount(), index(n * 4));
    Value large = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, bytes,
                                        index(kStreamedBytes));
    Value pointer = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, C);
    Value offset =
        memref::ExtractStridedMetadataOp::create(b, loc, C).getOffset();
    Value start = add(pointer, mul(offset, 4));
    Value misalignment = arith::RemUIOp::create(b, loc, start, index(lanes * 4));
    Value aligned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          misalignment, index(0));
    return arith::AndIOp::create(b, loc, large, aligned);
  }

  /// prefetchNextPanel when consecutive rows of `from` (C's shape) are at
  /// least kFarRowFloats apart: decided here for a static distance, by a
  /// branch for a dynamic one (a recurrence over a dynamic time axis).
  /// Then 64 rows (a tile, SEQC_TILE_ROWS) span more than this core's L2
  /// cache: a recurrence's step reads its slice of the input projection,
  /// (rows, steps, gates), so that way when a row's steps x gates are many.
  void prefetchIfFarApart(
      Value from, int64_t rows, ArrayRef<VectorColumn> columns,
      llvm::function_ref<SmallVector<Value>(int64_t, Value)> indicesOf) {
    auto [strides, offset] = cast<MemRefType>(from.getType()).getStridesAndOffset();
    if (strides.size() < 2)
      return;
    if (!ShapedType::isDynamic(strides[0])) {
      if (strides[0] >= kFarRowFloats)
        prefetchNextPanel(from, rows, columns, indicesOf);
      return;
    }
    Value stride = memref::ExtractStridedMetadataOp::create(b, loc, from).getStrides()[0];
    Value far = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, stride,
                                      index(kFarRowFloats));
    scf::IfOp::create(b, loc, far, [&](OpBuilder &nb, Location l) {
      at(nb, l).prefetchNextPanel(from, rows, columns, indicesOf);
      scf::YieldOp::create(nb, l);
    });
  }

  /// Prefetches these rows' start values one panel to the right, which a
  /// later block reads (the next panel's, for the same rows). For rows far
  /// apart (prefetchIfFarApart): the projection a recurrence's step starts from
  /// was computed for every step before the loop and is long evicted at a
  /// large batch, and each row of a block is on its own page, which the
  /// hardware prefetcher does not follow: without this each block would
  /// wait for memory first (5% of an LSTM(256)'s time over 100 steps at
  /// batch 64). Rows close together are still in the cache, where the
  /// prefetches would only cost (2% of the seed model's LSTM(64) over 10
  /// steps). Clamped to C's last column: the last panel prefetches its own.
  void prefetchNextPanel(
      Value from, int64_t rows, ArrayRef<VectorColumn> columns,
      llvm::function_ref<SmallVector<Value>(int64_t, Value)> indicesOf) {
    auto type = cast<MemRefType>(from.getType());
    Value lastColumn = arith::SubIOp::create(
        b, loc, memref::DimOp::create(b, loc, from, type.getRank() - 1), index(1));
    for (const VectorColumn &col : columns) {
      Value next = arith::MinSIOp::create(b, loc, add(col.column, kPanelColumns),
                                          lastColumn);
      for (int64_t r = 0; r < rows; ++r)
        memref::PrefetchOp::create(b, loc, from, indicesOf(r, next), /*isWrite=*/false,
                                   /*localityHint=*/3, /*isDataCache=*/true);
    }
  }

  /// for (i = lo; i < hi; i += step) body(i)
  void loop(Value lo, Value hi, Value step,
            llvm::function_ref<void(Gemm &, Value)> body) {
    scf::ForOp::create(b, loc, lo, hi, step, ValueRange{},
                       [&](OpBuilder &nb, Location l, Value i, ValueRange) {
                         Gemm inner = at(nb, l);
                         body(inner, i);
                         scf::YieldOp::create(nb, l);
                       });
  }

  /// `width` columns from `column0` in vectors; packed from `base0` with
  /// `stride` floats per k.
  SmallVector<VectorColumn> vectorsOf(Value column0, int64_t width, Value base0,
                                      int64_t stride) {
    SmallVector<VectorColumn> columns;
    for (int64_t c = 0; c < width; c += lanes)
      columns.push_back({add(column0, c), base0 ? add(base0, c) : nullptr, stride, column0, c});
    return columns;
  }
  static int64_t lastWidth(int64_t width, int64_t lanes) {
    return width - (width - 1) / lanes * lanes;
  }
};

/// The layout of `weight` (a constant of N = n columns) once packed.
PanelLayout layoutOf(Value weight, int64_t n) {
  return {cast<MemRefType>(weight.getType()).getNumElements() / n, n};
}

/// `n` in `ceil(n / most)` parts of equal size (the last smaller), so that
/// no part is a sliver.
int64_t evenPart(int64_t n, int64_t most) {
  int64_t parts = (n + most - 1) / most;
  return (n + parts - 1) / parts;
}

/// A static slice of the reduction (Depth's bounds before they are values).
struct Slice {
  int64_t tapBegin, tapEnd, channelBegin, channelEnd;
};

/// The reduction in slices of at most `most`: whole taps while a tap's
/// channels are fewer, else one tap's channels in chunks; slices of about
/// equal depth.
SmallVector<Slice> depthSlices(int64_t taps, int64_t channels, int64_t most) {
  SmallVector<Slice> slices;
  if (channels >= most) {
    int64_t chunk = evenPart(channels, most);
    for (int64_t t = 0; t < taps; ++t)
      for (int64_t c = 0; c < channels; c += chunk)
        slices.push_back({t, t + 1, c, std::min(channels, c + chunk)});
    return slices;
  }
  int64_t perSlice = evenPart(taps, most / channels);
  for (int64_t t = 0; t < taps; t += perSlice)
    slices.push_back({t, std::min(taps, t + perSlice), 0, channels});
  return slices;
}

/// A row taken alone (a batch-1 GEMV) reads all of B once, which, a little
/// larger than the L2 cache (LSTM(256)'s 1 MiB recurrent kernel on a core
/// with 1 MiB), is all evicted by the time the next sweep comes back to
/// its start. Consecutive sweeps therefore alternate direction over B's
/// groups of panels: forward, then backward from the groups the last one
/// read, still in the cache. Each group computes its columns whole, so the
/// order changes no value. The sweeps of a recurrence's step loop are
/// consecutive across its iterations (kRecurrentProductAttr), those of the
/// rows of one GEMM across its rows. At batch 1 on AMD Zen 4, LSTM(256)'s
/// GEMV takes 8% less time. A packed B under alternateFromBytes (512 KiB)
/// fits in half of a 1 MiB L2 cache and is still there at the next sweep
/// either way: it is swept forward only (alternating cost LSTM(128)'s 256
/// KiB kernel 0.6% at batch 1).
///
/// stepParity: for a recurrent product in a loop, that loop's iterations
/// so far modulo 2 (the parity of its first sweep); else 0.
Value stepParity(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  auto loop = op->getParentOfType<scf::ForOp>();
  if (!op->hasAttr(seq::kRecurrentProductAttr) || !loop)
    return arith::ConstantIndexOp::create(b, loc, 0);
  Value done = arith::DivUIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, loop.getInductionVar(), loop.getLowerBound()),
      loop.getStep());
  return arith::AndIOp::create(b, loc, done,
                               arith::ConstantIndexOp::create(b, loc, 1));
}

/// GotoBLAS' loop order on a packed weight: chunks of rows, then slices of
/// the reduction, then panels, then register blocks of rows; the rows left
/// over take one row at a time across several panels.
void emitPacked(Gemm &g, const BlockShape &shape) {
  PanelLayout layout = *g.layout;
  Value m = g.rowCount();
  Value rows = g.index(shape.rows);
  Value mainRows = arith::MulIOp::create(
      g.b, g.loc, arith::DivUIOp::create(g.b, g.loc, m, rows), rows);
  int64_t lanes = g.lanes;
  int64_t panelWidth = shape.vectors * lanes;
  Value tailColumn = g.index(layout.fullPanels() * kPanelColumns);
  Value tailBase = g.index(layout.fullPanels() * layout.panelFloats());
  int64_t taps = g.geometry.taps();
  int64_t channels = g.geometry.convolution() ? g.geometry.channels : layout.k;
  SmallVector<Slice> slices = depthSlices(
      taps, channels, g.geometry.convolution() ? kDepthChunk : kMatmulDepthChunk);

  // Every slice of the reduction, every panel: `blocks(g, depth, columns,
  // lastWidth, first, last)` runs the register blocks of rows there.
  auto slicesAndPanels = [&](Gemm &g, auto blocks) {
    for (size_t s = 0; s < slices.size(); ++s) {
      const Slice &slice = slices[s];
      Depth depth{slice.tapBegin, slice.tapEnd, g.index(slice.channelBegin),
                  g.index(slice.channelEnd)};
      bool first = s == 0, last = s + 1 == slices.size();
      if (layout.fullPanels() > 0)
        g.loop(g.index(0), g.index(layout.fullPanels()), g.index(1),
               [&](Gemm &g, Value p) {
                 blocks(g, depth,
                        g.vectorsOf(g.mul(p, kPanelColumns), panelWidth,
                                    g.mul(p, layout.panelFloats()), kPanelColumns),
                        lanes, first, last);
               });
      if (layout.tail() > 0)
        blocks(g, depth,
               g.vectorsOf(tailColumn, layout.tail(), tailBase, layout.tailStride()),
               Gemm::lastWidth(layout.tail(), lanes), first, last);
    }
  };
  int64_t chunk = std::max<int64_t>(kRowChunk / shape.rows, 1) * shape.rows;
  g.loop(g.index(0), mainRows, g.index(chunk), [&](Gemm &g, Value i0c) {
    Value iEnd = g.min(g.add(i0c, chunk), mainRows);
    // The chunk's blocks share the next panel's slice (kPanelColumns floats
    // per reduction step) equally: each prefetches kPanelColumns / blocks
    // floats on from where the last one's share ended, at each step.
    Value blocks = arith::DivUIOp::create(g.b, g.loc, g.sub(iEnd, i0c), rows);
    Value step = arith::DivUIOp::create(g.b, g.loc, g.index(kPanelColumns), blocks);
    slicesAndPanels(g, [&](Gemm &g, const Depth &depth,
                           ArrayRef<VectorColumn> columns, int64_t lastWidth,
                           bool first, bool last) {
      g.loop(i0c, iEnd, rows, [&](Gemm &g, Value i0) {
        Value block = arith::DivUIOp::create(g.b, g.loc, g.sub(i0, i0c), rows);
        g.block(i0, shape.rows, columns, lastWidth, depth, first, last, nullptr,
                PrefetchShare{block, blocks, step});
      });
    });
  });

  // Half a block or more of rows left over (a masked recurrence's k mod 8
  // rows at a step) run as one block, its rows past the end repeating the
  // last row: one pass over B, where a row at a time reads all of it from
  // the L2 cache once per row (17% of a masked LSTM(256) at batch 32).
  Value leftover = g.sub(m, mainRows);
  auto asBlock = scf::IfOp::create(
      g.b, g.loc, TypeRange{},
      arith::CmpIOp::create(g.b, g.loc, arith::CmpIPredicate::sge, leftover,
                            g.index(std::max<int64_t>(shape.rows / 2, 2))),
      /*withElseRegion=*/true);
  OpBuilder blockBuilder =
      OpBuilder::atBlockTerminator(&asBlock.getThenRegion().front());
  Gemm blockRest = g.at(blockBuilder, g.loc);
  Value lastRow = blockRest.sub(m, blockRest.index(1));
  slicesAndPanels(blockRest, [&](Gemm &g, const Depth &depth,
                                 ArrayRef<VectorColumn> columns, int64_t lastWidth,
                                 bool first, bool last) {
    g.block(mainRows, shape.rows, columns, lastWidth, depth, first, last, lastRow);
  });
  OpBuilder rowBuilder = OpBuilder::atBlockTerminator(&asBlock.getElseRegion().front());
  Gemm rowAtATime = g.at(rowBuilder, g.loc);

  int64_t groupPanels = shape.rowVectors / shape.vectors;
  int64_t groups = layout.fullPanels() / groupPanels;
  int64_t restPanels = layout.fullPanels() % groupPanels;
  rowAtATime.loop(mainRows, m, rowAtATime.index(1), [&](Gemm &g, Value i) {
    Depth whole{0, taps, g.index(0), g.index(channels)};
    auto panels = [&](Gemm &g, Value firstPanel, int64_t count) {
      SmallVector<VectorColumn> columns;
      for (int64_t q = 0; q < count; ++q) {
        Value p = g.add(firstPanel, q);
        columns.append(g.vectorsOf(g.mul(p, kPanelColumns), panelWidth,
                                   g.mul(p, layout.panelFloats()), kPanelColumns));
      }
      return columns;
    };
    if (groups > 0) {
      // Backward at odd sweeps (stepParity).
      Value backward, lastGroup;
      if (g.sweepParity) {
        backward = arith::CmpIOp::create(
            g.b, g.loc, arith::CmpIPredicate::ne,
            arith::AndIOp::create(
                g.b, g.loc, g.b.createOrFold<arith::AddIOp>(g.loc, g.sweepParity, i),
                g.index(1)),
            g.index(0));
        lastGroup = g.index((groups - 1) * groupPanels);
      }
      g.loop(g.index(0), g.index(groups * groupPanels), g.index(groupPanels),
             [&](Gemm &g, Value p) {
               Value first = backward ? arith::SelectOp::create(g.b, g.loc, backward,
                                                                g.sub(lastGroup, p), p)
                                      : p;
               g.block(i, 1, panels(g, first, groupPanels), lanes, whole);
             });
    }
    SmallVector<VectorColumn> rest =
        panels(g, g.index(groups * groupPanels), restPanels);
    int64_t last = lanes;
    if (layout.tail() > 0) {
      rest.append(g.vectorsOf(tailColumn, layout.tail(), tailBase,
                              layout.tailStride()));
      last = Gemm::lastWidth(layout.tail(), lanes);
    }
    if (!rest.empty())
      g.block(i, 1, rest, last, whole);
  });
}

/// B read in place (not a constant): blocks of rows, each across all
/// columns.
void emitUnpacked(Gemm &g, const BlockShape &shape, int64_t n) {
  Value m = g.rowCount();
  Depth whole{0, g.geometry.taps(), g.index(0),
              g.geometry.convolution()
                  ? g.index(g.geometry.channels)
                  : memref::DimOp::create(g.b, g.loc, g.A, 1).getResult()};
  Value rows = g.index(shape.rows);
  Value mainRows = arith::MulIOp::create(
      g.b, g.loc, arith::DivUIOp::create(g.b, g.loc, m, rows), rows);
  int64_t lanes = g.lanes;
  auto rowBlock = [&](Gemm &g, Value i0, int64_t blockRows, int64_t vectors) {
    int64_t width = vectors * lanes;
    int64_t full = n / width, tail = n % width;
    if (full > 0)
      g.loop(g.index(0), g.index(full * width), g.index(width),
             [&](Gemm &g, Value j0) {
               g.block(i0, blockRows, g.vectorsOf(j0, width, nullptr, 0), lanes, whole);
             });
    if (tail > 0)
      g.block(i0, blockRows, g.vectorsOf(g.index(full * width), tail, nullptr, 0),
              Gemm::lastWidth(tail, lanes), whole);
  };
  g.loop(g.index(0), mainRows, rows, [&](Gemm &g, Value i0) {
    rowBlock(g, i0, shape.rows, shape.vectors);
  });
  g.loop(mainRows, m, g.index(1),
         [&](Gemm &g, Value i) { rowBlock(g, i, 1, shape.rowVectors); });
}

int64_t rankOf(Value v) { return cast<MemRefType>(v.getType()).getRank(); }

bool unitInnerStride(Value v, int64_t rank = 2) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.getElementType().isF32() && type.getRank() == rank &&
         type.isLastDimUnitStride();
}

/// A matmul this kernel takes: on buffers, the standard maps, f32 operands
/// of rank 2 with unit inner strides.
bool plainMatmul(linalg::MatmulOp op) {
  return op.hasPureBufferSemantics() && !op.hasUserDefinedMaps() &&
         unitInnerStride(op.getDpsInputs()[0]) && unitInnerStride(op.getDpsInputs()[1]) &&
         unitInnerStride(op.getDpsInits()[0]);
}

/// The op just before / after `op`, passing side-effect free ones; or null.
Operation *previousWithEffects(Operation *op) {
  Operation *prev = op->getPrevNode();
  while (prev && isMemoryEffectFree(prev))
    prev = prev->getPrevNode();
  return prev;
}
Operation *nextWithEffects(Operation *op) {
  Operation *next = op->getNextNode();
  while (next && isMemoryEffectFree(next))
    next = next->getNextNode();
  return next;
}

/// A linalg.generic that broadcasts a row vector down the rows of `c`
/// (along its last axis).
bool broadcastsRow(linalg::GenericOp op, Value c) {
  if (op.getNumDpsInputs() != 1 || op.getDpsInits()[0] != c ||
      !unitInnerStride(op.getDpsInputs()[0], 1))
    return false;
  MLIRContext *ctx = op.getContext();
  int64_t rank = rankOf(c);
  AffineExpr last = getAffineDimExpr(rank - 1, ctx);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps.size() != 2 || maps[0] != AffineMap::get(rank, 0, {last}, ctx) ||
      !maps[1].isIdentity() || op.getNumParallelLoops() != rank)
    return false;
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  return yield.getNumOperands() == 1 &&
         yield.getOperand(0) == op.getBody()->getArgument(0);
}

/// The op right after `op` (nothing but side-effect free ops and frees in
/// between: the epilogue moves before them, where C still lives) when it
/// rewrites all of C in place, elementwise, with a body of
/// elementwise-mappable ops (an activation); else null.
linalg::GenericOp epilogueOf(Operation *op, Value c) {
  Operation *next = op->getNextNode();
  while (next && (isMemoryEffectFree(next) || isa<memref::DeallocOp>(next)))
    next = next->getNextNode();
  auto generic = dyn_cast_or_null<linalg::GenericOp>(next);
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic.getNumDpsInputs() != 0 || generic.getNumDpsInits() != 1 ||
      generic.getDpsInits()[0] != c || generic.getNumLoops() != rankOf(c) ||
      generic.getNumParallelLoops() != rankOf(c) ||
      !generic.getIndexingMapsArray()[0].isIdentity())
    return {};
  for (Operation &inner : generic.getBody()->without_terminator()) {
    bool scalar = llvm::all_of(inner.getResultTypes(), [](Type t) {
      return t.isIntOrIndexOrFloat() && !t.isIndex();
    });
    if (!scalar || inner.getNumRegions() != 0 ||
        !(isa<arith::ConstantOp>(inner) || OpTrait::hasElementwiseMappableTraits(&inner)))
      return {};
    for (Value operand : inner.getOperands())
      if (!operand.getType().isIntOrFloat())
        return {};
  }
  return generic;
}

/// The op that sets all of `op`'s C just before it (nothing but side-effect
/// free ops in between), as an InitSource; `filler` is set to it.
InitSource initSourceOf(Operation *op, Value c, Operation *&filler) {
  Operation *prev = previousWithEffects(op);
  filler = prev;
  if (!prev)
    return {};
  if (auto copy = dyn_cast<linalg::CopyOp>(prev);
      copy && copy.hasPureBufferSemantics() && copy.getDpsInits()[0] == c &&
      unitInnerStride(copy.getDpsInputs()[0], rankOf(c)))
    return {InitSource::Rows, copy.getDpsInputs()[0]};
  if (auto copy = dyn_cast<memref::CopyOp>(prev);
      copy && copy.getTarget() == c && unitInnerStride(copy.getSource(), rankOf(c)))
    return {InitSource::Rows, copy.getSource()};
  if (auto fill = dyn_cast<linalg::FillOp>(prev);
      fill && fill.hasPureBufferSemantics() && fill.getDpsInits()[0] == c &&
      fill.getDpsInputs()[0].getType().isF32())
    return {InitSource::Splat, fill.getDpsInputs()[0]};
  if (auto generic = dyn_cast<linalg::GenericOp>(prev);
      generic && generic.hasPureBufferSemantics() && broadcastsRow(generic, c))
    return {InitSource::Broadcast, generic.getDpsInputs()[0]};
  filler = nullptr;
  return {};
}

/// The values of a constant f32 global, or std::nullopt.
std::optional<std::vector<float>> valuesOf(memref::GlobalOp global) {
  if (!global.getConstant() || !global.getInitialValue())
    return std::nullopt;
  std::optional<std::vector<float>> values = seq::readFloats(*global.getInitialValue());
  if (!values || int64_t(values->size()) != global.getType().getNumElements())
    return std::nullopt;
  return values;
}

} // namespace

memref::GlobalOp seq::cpu::PackedWeights::packedOf(Value weight) {
  // A weight of higher rank viewed as (rows, columns) through a
  // collapse_shape is the same row-major data, as is a convolution's kernel
  // (taps..., channels, filters) taken whole: rows are all but the last axis.
  if (auto collapse = weight.getDefiningOp<memref::CollapseShapeOp>())
    if (collapse.getReassociationIndices().size() == 2 &&
        collapse.getReassociationIndices()[1].size() == 1)
      weight = collapse.getSrc();
  auto get = weight.getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return {};
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  if (!global)
    return {};
  if (auto it = packed.find(global.getSymNameAttr()); it != packed.end())
    return it->second;
  MemRefType type = global.getType();
  if (type.getRank() < 2 || !type.hasStaticShape() ||
      !type.getElementType().isF32())
    return {};
  std::optional<std::vector<float>> values = valuesOf(global);
  if (!values)
    return {};

  int64_t columns = type.getShape().back();
  PanelLayout layout{type.getNumElements() / columns, columns};
  std::vector<float> panels(layout.size(), 0.0f);
  for (int64_t j = 0; j < layout.n; ++j) {
    int64_t p = j / kPanelColumns, column = j % kPanelColumns;
    bool tail = p == layout.fullPanels();
    int64_t stride = tail ? layout.tailStride() : kPanelColumns;
    float *out = panels.data() + p * layout.panelFloats() + column;
    for (int64_t k = 0; k < layout.k; ++k)
      out[k * stride] = (*values)[k * layout.n + j];
  }
  OpBuilder b(global);
  b.setInsertionPointAfter(global);
  std::string name = (global.getSymName() + "_packed").str();
  auto packedType = MemRefType::get({layout.size()}, b.getF32Type());
  auto tensorType = RankedTensorType::get({layout.size()}, b.getF32Type());
  // A weight stays a resource blob (the importer's form); an inline
  // literal (a test's) stays one.
  Attribute init =
      isa<DenseElementsAttr>(*global.getInitialValue())
          ? Attribute(DenseElementsAttr::get(tensorType, ArrayRef<float>(panels)))
          : Attribute(DenseF32ResourceElementsAttr::get(
                tensorType, name,
                HeapAsmResourceBlob::allocateAndCopyInferAlign<float>(panels)));
  auto result = memref::GlobalOp::create(b, global.getLoc(), name,
                                         b.getStringAttr("private"), packedType,
                                         init, /*constant=*/true,
                                         b.getI64IntegerAttr(64));
  SymbolTable(module).insert(result);
  packed[global.getSymNameAttr()] = result;
  return result;
}

namespace {

/// The matmul that `op` (a matmul) fuses before its own product
/// (LeadingProduct): the op just before it (nothing but side-effect free ops
/// in between) when that is a matmul into the same C with a packed weight,
/// as is op's own; else null.
linalg::MatmulOp leadingProductOf(linalg::MatmulOp op, seq::cpu::PackedWeights &weights) {
  Value C = op.getDpsInits()[0];
  auto lead = dyn_cast_or_null<linalg::MatmulOp>(previousWithEffects(op));
  if (!lead || !plainMatmul(lead) || !plainMatmul(op) || lead.getDpsInits()[0] != C ||
      lead->hasAttr(seq::kStreamedOutputAttr) ||
      ShapedType::isDynamic(cast<MemRefType>(C.getType()).getShape().back()) ||
      !weights.packedOf(op.getDpsInputs()[1]) || !weights.packedOf(lead.getDpsInputs()[1]))
    return {};
  return lead;
}

/// Replaces `op` (C = A @ B in `geometry`'s sense, C's last axis static) by
/// the register-blocked loops, with the op that set C before and the
/// activation after it folded in.
bool emit(Operation *op, Value A, Value B, Value C, const Geometry &geometry,
          const seq::cpu::VectorTarget &target, seq::cpu::PackedWeights &weights) {
  auto cType = cast<MemRefType>(C.getType());
  int64_t n = cType.getShape().back();
  if (ShapedType::isDynamic(n))
    return false;
  OpBuilder b(op);
  Location loc = op->getLoc();
  BlockShape shape = blockShape(target, n);
  auto vec = VectorType::get({target.lanes}, b.getF32Type());
  linalg::MatmulOp leadOp;
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
    leadOp = leadingProductOf(matmul, weights);
  // C starts from what set it before the first of the products.
  Operation *filler = nullptr;
  InitSource init = initSourceOf(leadOp ? leadOp.getOperation() : op, C, filler);
  linalg::GenericOp epilogue = epilogueOf(op, C);
  if (memref::GlobalOp packed = weights.packedOf(B)) {
    Value panels = memref::GetGlobalOp::create(b, loc, packed.getType(),
                                               packed.getSymName());
    Gemm g{b, loc, A, panels, C, /*packed=*/true, vec, target.lanes, init, epilogue,
           geometry};
    g.layout = layoutOf(B, n);
    if (leadOp) {
      Value leadB = leadOp.getDpsInputs()[1];
      memref::GlobalOp leadPacked = weights.packedOf(leadB);
      g.lead = LeadingProduct{
          leadOp.getDpsInputs()[0],
          memref::GetGlobalOp::create(b, loc, leadPacked.getType(), leadPacked.getSymName()),
          layoutOf(leadB, n)};
    }
    if (g.layout->size() * 4 >= alternateFromBytes)
      g.sweepParity = stepParity(op, b);
    if (op->hasAttr(seq::kStreamedOutputAttr) && !geometry.convolution() &&
        n % target.lanes == 0) {
      // The loops twice, so that LLVM cannot merge the stores of the two
      // kinds (and lose the non-temporal ones).
      auto loops = [&](bool streamed) {
        return [&, streamed](OpBuilder &nb, Location l) {
          Gemm inner = g.at(nb, l);
          inner.streamed = streamed;
          emitPacked(inner, shape);
          scf::YieldOp::create(nb, l);
        };
      };
      scf::IfOp::create(b, loc, g.streamedCondition(n), loops(true), loops(false));
    } else {
      emitPacked(g, shape);
    }
  } else {
    Gemm g{b, loc, A, B, C, /*packed=*/false, vec, target.lanes, init, epilogue,
           geometry};
    emitUnpacked(g, shape, n);
  }
  op->erase();
  if (leadOp)
    leadOp->erase();
  if (filler)
    filler->erase();
  if (epilogue)
    epilogue->erase();
  return true;
}

} // namespace

bool seq::cpu::emitGemm(linalg::MatmulOp op, const VectorTarget &target,
                        PackedWeights &weights) {
  if (!plainMatmul(op))
    return false;
  // A matmul that the next one fuses as its leading product is emitted there.
  if (auto follower = dyn_cast_or_null<linalg::MatmulOp>(nextWithEffects(op)))
    if (leadingProductOf(follower, weights) == op)
      return true;
  return emit(op, op.getDpsInputs()[0], op.getDpsInputs()[1], op.getDpsInits()[0],
              Geometry{}, target, weights);
}

bool seq::cpu::emitConvolutionGemm(linalg::LinalgOp op, const VectorTarget &target,
                                   PackedWeights &weights) {
  if (!isa<linalg::Conv1DNwcWcfOp, linalg::Conv2DNhwcHwcfOp,
           linalg::Conv3DNdhwcDhwcfOp>(op) ||
      !op.hasPureBufferSemantics())
    return false;
  Value input = op.getDpsInputs()[0], kernel = op.getDpsInputs()[1];
  Value C = op.getDpsInits()[0];
  int64_t rank = rankOf(C), spatial = rank - 2;
  auto inputType = cast<MemRefType>(input.getType());
  auto kernelType = cast<MemRefType>(kernel.getType());
  if (!inputType.getElementType().isF32() || !unitInnerStride(kernel, rank) ||
      !unitInnerStride(C, rank) || !kernelType.hasStaticShape())
    return false;
  Geometry geometry;
  geometry.window.assign(kernelType.getShape().begin(),
                         kernelType.getShape().begin() + spatial);
  geometry.channels = kernelType.getDimSize(spatial);
  geometry.strides = seq::cpu::windowAttr(op, "strides");
  geometry.dilations = seq::cpu::windowAttr(op, "dilations");
  return emit(op, input, kernel, C, geometry, target, weights);
}
