#ifndef SEQ_TARGET_CPU_PASSES_TD
#define SEQ_TARGET_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

// The passes only the CPU backend runs, in the order of its pipeline
// (seq::cpu::buildLoweringPipeline, lib/Target/CPU/Pipeline.cpp).

def SeqCpuVectorizeConv : Pass<"seq-cpu-vectorize-conv", "mlir::func::FuncOp"> {
  let summary = "Tiles, decomposes and vectorizes depthwise convolutions and poolings";
  let description = [{
    `linalg.depthwise_conv_2d_nhwc_hwc` and `pooling_nhwc_max/sum` (what
    `--seq-to-linalg` makes of a depthwise Conv2D and the 2-D poolings)
    become vector code with upstream transforms: tiled into one output row
    of one sample and one kernel row (at most 8 output columns and 16
    channels), decomposed into their 1-D forms and vectorized
    (`linalg::vectorize`); a `pooling_nwc_max/sum` of its own (the 1-D
    poolings) is tiled alike and vectorized. Ops whose sizes are not static
    stay for convert-linalg-to-loops. Runs on tensors, before bufferization.
    The convolutions (`conv_1d_nwc_wcf`, `conv_2d_nhwc_hwcf`,
    `conv_3d_ndhwc_dhwcf`) are left to `seq-cpu-kernels`.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect", "::mlir::vector::VectorDialect"
  ];
}

def SeqCpuPrepareEntry : Pass<"seq-cpu-prepare-entry", "mlir::ModuleOp"> {
  let summary = "Prepares @predict for its C interface: states packed into "
                "one argument and result, arguments read-only";
  let description = [{
    Marks public functions for the C interface (`_mlir_ciface_<name>`) and
    their arguments as not writable, so bufferization never writes into the
    caller's input; packs a stateful `@predict`'s states into one flat
    argument and result, so the compiled function is always
    `(inputs, state) -> (outputs, state)`; drops the ports' Keras names
    (read before lowering).
  }];
  let dependentDialects = [
    "::mlir::tensor::TensorDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::bufferization::BufferizationDialect"
  ];
}

def SeqCpuEarlyDealloc : Pass<"seq-cpu-early-dealloc", "mlir::func::FuncOp"> {
  let summary = "Moves each unconditional memref.dealloc to just after the "
                "last use of its buffer";
  let description = [{
    Upstream's ownership-based buffer deallocation frees buffers at the end
    of their block. This pass moves a `memref.dealloc` of a buffer whose
    every use (through views, casts and ops returning memrefs, and through
    ops whose regions use it) lies in the dealloc's block to just after the
    last of them, so that the arena (runtime/seqc_arena.c) can give its bytes
    to the buffers allocated after. Deallocs under a condition (inside an
    `scf.if`) and buffers used in other blocks stay where they are.
  }];
}

def SeqCpuKernels : Pass<"seq-cpu-kernels", "mlir::ModuleOp"> {
  let summary = "f32 matmuls and convolutions on buffers to register-blocked "
                "vector loops (constant weights packed into panels), the "
                "remaining poolings to vector loops, memref copies and fills "
                "to loops";
  let description = [{
    Every f32 `linalg.matmul` on row-major buffers with a static N becomes
    `scf.for` loops of `vector.fma` whose register blocks fit the target's
    vector registers (`vector-bits`: AVX-512 8 rows x 2 vectors, AVX2 3 x 4,
    NEON 2 x 8; always 32 columns; twice the rows when N is one vector
    wide). A B operand that is a constant global is packed at compile time
    into a new global of 32-column panels (K rows of 32 floats, the last
    panel's rows rounded up to 16, zero-padded), read with GotoBLAS' loop
    order: 128-row chunks of A, slices of K (a matmul's at most 1024
    deep, a convolution's 256, about equal), panels, register blocks,
    which prefetch the next panel's slice into the L2 cache when the packed
    B is 512 KiB or more (hidden `--seq-prefetch-panels-bytes`), each block
    its share; rows left over run as one more block
    (its rows past the last one repeating it) when they are half a block or
    more, else one at a time across 8 vectors; from one such row to the
    next, and for a matmul marked `recurrent_product` from one iteration of
    the loop around it to the next, the sweep over a packed B of 512 KiB or
    more (hidden `--seq-alternate-sweep-bytes`) alternates direction over its
    groups of 128 columns. When C was set
    just before the matmul by a bias broadcast (`linalg.generic` of a row
    vector), a copy or a fill, that op is erased and the accumulators start
    from its source instead; when it was set by another matmul on a packed
    weight (a recurrence's step: x_t @ Kx onto the bias, then h @ Kh), the
    two are one kernel whose blocks run the first one's k loop, then this
    one's, and store C once; when an elementwise `linalg.generic` rewrites C
    in place right after the matmul (an activation; frees in between are
    passed), its body, cloned as vector ops, runs on the accumulators before
    they are stored, and it is erased. A matmul with the `streamed_output`
    attribute (a recurrence's input projection) stores C with non-temporal
    stores when C takes at least 16 MiB and is vector-aligned (a runtime
    branch around two copies of the loops). Other B operands are read in
    place, their last vector masked.

    The named convolutions `linalg.conv_1d_nwc_wcf`, `conv_2d_nhwc_hwcf` and
    `conv_3d_ndhwc_dhwcf` become the same loops as implicit GEMMs: C's rows
    are the output positions (b, o...), B is the kernel seen as (taps *
    channels, filters) (packed the same way), and a row's A values are read
    in place from the input at `o * stride + tap * dilation` (no gathered
    copy); the reduction runs over taps, then channels, in slices of whole
    taps. Rows of a block on one output line share their address arithmetic.

    The poolings `seq-cpu-vectorize-conv` left (`linalg.pooling_ndhwc_*`,
    and ones over an axis of unknown size) become loops over the output
    positions and channel vectors, the window's taps folded in with a vector
    max or add.

    `memref.copy` becomes `linalg.copy` (no runtime library call); a copy or
    fill whose buffers share contiguous trailing axes runs over them as one
    axis; a row-major `memref.expand_shape` becomes a
    `memref.reinterpret_cast` (expand-strided-metadata crashes on two
    dynamic sizes in one group).
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", /*default=*/"512",
           "Vector register width the GEMM is blocked for: 512 (AVX-512), "
           "256 (AVX2) or 128 (NEON)">
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

def SeqCpuInterleaveLongLoops : Pass<"seq-cpu-interleave-long-loops", "mlir::func::FuncOp"> {
  let summary = "Asks LLVM to interleave the vectorized copies of a scalar "
                "loop whose body is a long chain of arithmetic";
  let description = [{
    An innermost `scf.for` (what convert-linalg-to-loops made of an
    elementwise `linalg.generic`) whose body holds at least `min-ops` arith
    and math ops, and no vector op, gets
    `loop_annotation = #llvm.loop_annotation<interleave = count>`: LLVM's loop vectorizer then
    runs that many vectors of it side by side. Such a body (a recurrent
    cell: five exps, three divisions) is one long dependent chain per
    vector, and the out-of-order window holds too few iterations of it to
    keep the vector units busy; LLVM's own choice for a body that long is
    one vector at a time. The count is at most the loop's static trip count
    over `lanes` (so that a short loop still runs as whole vectors), and a
    loop of fewer than two vectors is left alone.
  }];
  let options = [
    Option<"count", "count", "int64_t", /*default=*/"4",
           "Vectors of the loop interleaved">,
    Option<"lanes", "lanes", "int64_t", /*default=*/"16",
           "f32 lanes of the target's vectors (16 AVX-512, 8 AVX2, 4 NEON)">,
    Option<"minOps", "min-ops", "int64_t", /*default=*/"48",
           "Arith and math ops a loop body needs to be interleaved">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def SeqCpuMathApproximation : Pass<"seq-cpu-math-approximation", "mlir::func::FuncOp"> {
  let summary = "exp, expm1, log, log1p, erf, erfc (and tanh) as MLIR's "
                "polynomial approximations";
  let description = [{
    Upstream's `populateMathPolynomialApproximationPatterns` for these ops:
    vectorizable code, no libm calls. Sigmoid and tanh do not reach it: the
    lowering builds them from one exp of its own (docs/CPU.md).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect", "::mlir::x86vector::X86VectorDialect"
  ];
}

#endif // SEQ_TARGET_CPU_PASSES_TD
