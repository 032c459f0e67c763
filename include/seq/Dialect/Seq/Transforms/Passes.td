#ifndef SEQ_PASSES_TD
#define SEQ_PASSES_TD

include "mlir/Pass/PassBase.td"

def StripDropout : Pass<"seq-strip-dropout"> {
  let summary = "Removes seq.dropout ops (the identity at inference)";
  let description = [{
    Keras' Dropout, SpatialDropout1D/2D/3D, GaussianDropout, GaussianNoise,
    AlphaDropout and ActivityRegularization do nothing at inference (the
    importer writes each as a `seq.dropout`); this pass replaces every
    `seq.dropout` with its input.
  }];
  let dependentDialects = ["::seq::SeqDialect"];
}

def InferShapes : Pass<"seq-infer-shapes"> {
  let summary = "Recomputes seq result types from operand types";
  let description = [{
    Walks every `func.func` in order and recomputes each seq op's result
    type from its operand types with the ops' shape rules, refining `?`
    dimensions where the operands are static (e.g. after the input type was
    made static with `--input-shape`). A static size already in the IR is
    kept where the rule cannot tell; a static size that contradicts the
    rule is an error. The bodies of `seq.time_distributed` get their step
    type from the input, and the function's result types follow its
    `return`.
  }];
  let dependentDialects = ["::seq::SeqDialect"];
}

def FoldBatchNorm : Pass<"seq-fold-batchnorm"> {
  let summary = "Folds seq.batch_norm into the weights of an adjacent affine op";
  let description = [{
    Inference batch norm is `x * s + t` per channel with
    `s = gamma / sqrt(moving_variance + epsilon)` and
    `t = beta - moving_mean * s`. When its input is produced by a
    `seq.dense`, `seq.linear` or `seq.conv1d/2d/3d` with a `linear` activation
    and no other user, `s` scales the producer's output columns and
    `b * s + t` becomes its bias (created if there was none). Otherwise,
    when the batch norm's only user is a `seq.dense` / `seq.linear` reading
    it as input, `s` scales that op's kernel rows and `t @ kernel` is added
    to its bias. The new weights are computed at compile time as
    `dense_resource` blobs; a batch norm whose parameters are not constants
    is left alone.
  }];
  let dependentDialects = ["::seq::SeqDialect", "::mlir::arith::ArithDialect"];
}

def FuseActivation : Pass<"seq-fuse-activation"> {
  let summary = "Makes a following seq.activation the epilogue of dense/linear/conv";
  let description = [{
    `seq.activation K(seq.dense|seq.linear|seq.conv1d|2d|3d(x) activation(linear))`
    becomes the producer with `activation(K)` (and the activation's
    `alpha`), when the producer has no other user. Every activation kind
    is accepted, softmax included: an epilogue applies over the last axis,
    which for these ops is the output-channel axis of the GEMM row, so it
    is exactly what `seq.activation softmax` computes. A producer that
    already has a non-linear activation, or other users, is left alone.
  }];
  let dependentDialects = ["::seq::SeqDialect"];
}

def FoldLinearChain : Pass<"seq-fold-linear-chain"> {
  let summary = "Folds two consecutive affine ops without activation between them";
  let description = [{
    `B(A(x))` where `A` is a `seq.dense` / `seq.linear` with a `linear`
    activation and `B` its only user, also dense / linear, becomes one op
    of `B`'s kind, activation and location:
    `x @ (W_A @ W_B) + (b_A @ W_B + b_B)`. The product is computed at
    compile time. The fold is skipped when the folded kernel would be
    larger than the two kernels together (a bottleneck `k -> h -> n` with
    `k*n > k*h + h*n`), since the one GEMM would then do more work than
    two. Running after gate fusion, it also folds a linear Dense into the
    input projection of the following recurrent layer.

    A dense / linear op with a `linear` activation whose input is a
    `seq.embedding` (its only user) becomes one `seq.embedding` of the
    projected table `E @ W + b`, computed at compile time (in double, then
    rounded): a recurrent layer after an Embedding then gathers its input
    projection. Skipped when that table would hold more than 2^22 floats
    (16 MiB) and more than `E`.
  }];
  let dependentDialects = ["::seq::SeqDialect", "::mlir::arith::ArithDialect"];
}

def LowerDense : Pass<"seq-lower-dense"> {
  let summary = "Rewrites seq.dense into the kernel-level seq.linear";
  let description = [{
    `seq.dense` and `seq.linear` compute the same thing; `seq.linear` is
    what the backends lower. The layer name (location) is kept.
  }];
  let dependentDialects = ["::seq::SeqDialect"];
}

def FuseLSTMGates : Pass<"seq-fuse-lstm-gates"> {
  let summary = "Splits seq.lstm into an input-projection GEMM and seq.lstm_recurrence";
  let description = [{
    `x @ kernel + bias` does not depend on the state, so it is computed for
    all timesteps at once as one `seq.linear` over batch*time rows
    (`(B, T, F) @ (F, 4u)`, no activation). `seq.lstm_recurrence` then runs
    the time loop on that projection with the recurrent kernel `(u, 4u)`:
    one GEMM per step for all four gates. Activations, `return_sequences`
    and `go_backwards` are kept; both ops keep the layer's location.
  }];
  let dependentDialects = ["::seq::SeqDialect"];
}

def FuseGRUGates : Pass<"seq-fuse-gru-gates"> {
  let summary = "Splits seq.gru into an input-projection GEMM and seq.gru_recurrence";
  let description = [{
    As `--seq-fuse-lstm-gates`, with `(F, 3u)` / `(u, 3u)` kernels. Without
    `reset_after` the whole `(3u)` bias goes into the input projection and
    the recurrence has no recurrent bias. With `reset_after` the `(2, 3u)`
    bias is split at compile time: row 0 goes into the input projection,
    row 1 becomes the recurrence's `recurrent_bias` (zeros when the layer
    has no bias). A `reset_after` GRU whose bias is not a constant is left
    alone.
  }];
  let dependentDialects = ["::seq::SeqDialect", "::mlir::arith::ArithDialect"];
}

def FuseSimpleRNNGates : Pass<"seq-fuse-simple-rnn-gates"> {
  let summary = "Splits seq.simple_rnn into an input-projection GEMM and seq.simple_rnn_recurrence";
  let description = [{
    As `--seq-fuse-lstm-gates` for SimpleRNN: one `(F, u)` GEMM with the
    bias over all timesteps, then `seq.simple_rnn_recurrence` with the
    `(u, u)` recurrent kernel.
  }];
  let dependentDialects = ["::seq::SeqDialect"];
}

def Canonicalize : Pass<"seq-canonicalize"> {
  let summary = "Simplifies seq IR with local rewrites";
  let description = [{
    - `seq.activation linear` is its input.
    - `seq.reshape` of a `seq.reshape` is one `seq.reshape` of the inner
      input (Keras' target shapes exclude the batch axis, so only the outer
      one matters).
    - `seq.time_distributed` whose body is a single `seq.dense` /
      `seq.linear` on the step (weights from outside, or constants in the
      body, which are hoisted) is that op applied to the 3-D input
      directly: both act on the last axis of any rank.
    - `seq.permute` of a `seq.permute` is one permute of the inner input
      (the op's folder), and a permute that keeps every axis in place is
      its input: a channels_first layer followed by another one leaves no
      transposes between them.

    Unused constants are erased.
  }];
  let dependentDialects = ["::seq::SeqDialect"];
}

#endif // SEQ_PASSES_TD
