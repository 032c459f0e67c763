#ifndef SEQ_OPS_TD
#define SEQ_OPS_TD

include "seq/Dialect/Seq/IR/SeqBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

def Seq_F32Tensor : RankedTensorOf<[F32]>;


// Every op with a tensor result checks its shapes in a C++ verifier
// (SeqOps.cpp), using the shape rules of SeqShapes.h that the importer
// uses to build result types.
class Seq_TensorOp<string mnemonic, list<Trait> traits = []> :
    Seq_Op<mnemonic, !listconcat([Pure], traits)> {
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Layer level: one op per Keras layer.
//===----------------------------------------------------------------------===//

def Seq_DenseOp : Seq_TensorOp<"dense"> {
  let summary = "Keras Dense: activation(input @ kernel + bias) on the last axis";
  let description = [{
    `input` has rank >= 2 (Dense on a sequence applies to every timestep),
    `kernel` is `(in, units)`, the optional `bias` is `(units)`. `alpha` is
    the slope of `leaky_relu` / the alpha of `elu`, and is present exactly
    for those activations.

    ```mlir
    %y = seq.dense %x, %k, %b activation(relu)
        : (tensor<?x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins Seq_F32Tensor:$input, Seq_F32Tensor:$kernel,
                   Optional<Seq_F32Tensor>:$bias,
                   Seq_ActivationAttr:$activation, OptionalAttr<F32Attr>:$alpha);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input `,` $kernel (`,` $bias^)? `activation` `(` $activation `)` attr-dict
    `:` functional-type(operands, results)
  }];
}

// Masking, the same for every recurrent op: the optional `mask` is
// `(batch, time)`, 1 where a step holds data and 0 where it is padding (see
// seq.sequence_mask). A masked step leaves that row's state as it was; it
// emits the previous output (which is the state, or zeros before the row's
// first unmasked step, as Keras does also when the state starts nonzero),
// or zeros with `zero_output_for_mask`, which then also zeroes the final
// output when the last processed step is masked.
//
// State, the same for every recurrent op: the optional `initial_state` is
// `(states, batch, units)` (LSTM: states 2, h then c; GRU, SimpleRNN: 1),
// the state before the first processed step (zero without it). The
// optional second result `final_state`, of the same shape, is the state
// after the last processed step (a masked step leaves it as it was). A
// stateful Keras layer reads its stored state as `initial_state` and stores
// `final_state` back (see the `seq.state` argument attribute of @predict).

class Seq_RecurrentLayerOp<string mnemonic, string keras, string weights> :
    Seq_TensorOp<mnemonic, [AttrSizedOperandSegments]> {
  let summary = "Keras " # keras;
  let description = [{
    `input` is `(batch, time, features)`. Weights: }] # weights # [{.
    The result is `(batch, time, units)` with `return_sequences`, else
    `(batch, units)` (the last processed step). With `go_backwards` the steps
    run from last to first and the returned sequence is in processing order,
    as in Keras. `mask`, `zero_output_for_mask`, `initial_state` and
    `final_state`: see the masking and state notes above.
  }];
  let results = (outs Seq_F32Tensor:$output, Optional<Seq_F32Tensor>:$final_state);
  let assemblyFormat = [{
    $input `,` $kernel `,` $recurrent_kernel (`,` $bias^)? (`mask` `(` $mask^ `)`)? (`initial_state` `(` $initial_state^ `)`)?
    `activation` `(` $activation `,` $recurrent_activation `)` attr-dict
    `:` functional-type(operands, results)
  }];
}

def Seq_LSTMOp : Seq_RecurrentLayerOp<"lstm", "LSTM",
    "kernel `(features, 4u)`, recurrent_kernel `(u, 4u)`, bias `(4u)`, gate blocks i, f, c, o"> {
  let arguments = (ins Seq_F32Tensor:$input, Seq_F32Tensor:$kernel,
                   Seq_F32Tensor:$recurrent_kernel, Optional<Seq_F32Tensor>:$bias,
                   Optional<Seq_F32Tensor>:$mask,
                   Optional<Seq_F32Tensor>:$initial_state,
                   Seq_ActivationAttr:$activation,
                   Seq_ActivationAttr:$recurrent_activation,
                   UnitAttr:$return_sequences, UnitAttr:$go_backwards,
                   UnitAttr:$zero_output_for_mask);
}

def Seq_GRUOp : Seq_RecurrentLayerOp<"gru", "GRU",
    "kernel `(features, 3u)`, recurrent_kernel `(u, 3u)`, gate blocks z, r, h; "
    "bias `(3u)`, or with `reset_after` `(2, 3u)` (row 0 input bias, row 1 "
    "recurrent bias, the reset gate applied after the recurrent product)"> {
  let arguments = (ins Seq_F32Tensor:$input, Seq_F32Tensor:$kernel,
                   Seq_F32Tensor:$recurrent_kernel, Optional<Seq_F32Tensor>:$bias,
                   Optional<Seq_F32Tensor>:$mask,
                   Optional<Seq_F32Tensor>:$initial_state,
                   Seq_ActivationAttr:$activation,
                   Seq_ActivationAttr:$recurrent_activation,
                   UnitAttr:$return_sequences, UnitAttr:$go_backwards,
                   UnitAttr:$zero_output_for_mask, UnitAttr:$reset_after);
}

def Seq_SimpleRNNOp : Seq_RecurrentLayerOp<"simple_rnn", "SimpleRNN",
    "`(features, u)` kernel, `(u, u)` recurrent_kernel, `(u)` bias"> {
  let arguments = (ins Seq_F32Tensor:$input, Seq_F32Tensor:$kernel,
                   Seq_F32Tensor:$recurrent_kernel, Optional<Seq_F32Tensor>:$bias,
                   Optional<Seq_F32Tensor>:$mask,
                   Optional<Seq_F32Tensor>:$initial_state,
                   Seq_ActivationAttr:$activation,
                   UnitAttr:$return_sequences, UnitAttr:$go_backwards,
                   UnitAttr:$zero_output_for_mask);
  let assemblyFormat = [{
    $input `,` $kernel `,` $recurrent_kernel (`,` $bias^)? (`mask` `(` $mask^ `)`)? (`initial_state` `(` $initial_state^ `)`)?
    `activation` `(` $activation `)` attr-dict `:` functional-type(operands, results)
  }];
}

def Seq_BidirectionalOp : Seq_TensorOp<"bidirectional"> {
  let summary = "Keras Bidirectional: merges a forward and a go_backwards RNN";
  let description = [{
    `forward` and `backward` are the outputs of the two directions (the
    backward one computed with `go_backwards`). For sequences (rank 3) the
    backward sequence is flipped back along time before merging, as Keras
    does. `concat` joins the last axis, forward first; `sum`, `mul`, `ave`
    are elementwise and need equal shapes.
  }];
  let arguments = (ins Seq_F32Tensor:$forward, Seq_F32Tensor:$backward,
                   Seq_MergeModeAttr:$merge_mode);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $merge_mode $forward `,` $backward attr-dict `:` functional-type(operands, results)
  }];
}

def Seq_MergeOp : Seq_TensorOp<"merge"> {
  let summary = "Keras Add, Subtract, Multiply, Average, Maximum, Minimum";
  let description = [{
    Combines two or more tensors of one rank elementwise, left to right in
    float32 as Keras does; an axis of static size 1 broadcasts against the
    others' size there (NumPy's rule, as operations on tensors broadcast a
    (batch, 1, features) tensor over steps; Keras' merge layers take one
    shape): `add` ((a + b) + c ...), `subtract` (exactly two:
    a - b), `multiply`, `average` (the sum divided by the count), `maximum`,
    `minimum`, and `divide` (exactly two: a / b; an operation on tensors,
    no Keras layer).
  }];
  let arguments = (ins Variadic<Seq_F32Tensor>:$inputs, Seq_MergeKindAttr:$kind);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $kind $inputs attr-dict `:` type($inputs) `->` type($output)
  }];
}

def Seq_ConcatenateOp : Seq_TensorOp<"concatenate"> {
  let summary = "Keras Concatenate";
  let description = [{
    Joins two or more tensors of one rank along `axis` (1 .. rank-1, the
    batch axis is 0); every other axis has one size.
  }];
  let arguments = (ins Variadic<Seq_F32Tensor>:$inputs,
                   ConfinedAttr<I64Attr, [IntPositive]>:$axis);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) `->` type($output)
  }];
}

def Seq_MatMulOp : Seq_TensorOp<"matmul"> {
  let summary = "Batched matrix product (Keras Dot)";
  let description = [{
    `a` is `(batch, m, k)`; `b` is `(batch, k, n)`, or `(batch, n, k)` with
    `transpose_b`; the result is `(batch, m, n)`. The importer brings Keras'
    Dot axes to this form with permutes and reshapes.
  }];
  let arguments = (ins Seq_F32Tensor:$a, Seq_F32Tensor:$b, UnitAttr:$transpose_b);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $a `,` $b attr-dict `:` functional-type(operands, results)
  }];
}

def Seq_AttentionOp : Seq_TensorOp<"attention", [AttrSizedOperandSegments]> {
  let summary = "Keras attention: softmax(scores(query, key)) @ value, per head";
  let description = [{
    `query` is `(batch, tq, heads, d)`, `key` `(batch, tk, kv_heads, d)`,
    `value` `(batch, tk, kv_heads, dv)`, with `heads` a multiple of
    `kv_heads` (query head `h` reads key/value head `h / (heads /
    kv_heads)`, as GroupedQueryAttention repeats them); the result is
    `(batch, tq, heads, dv)`.

    The score of query step `i` against key step `j`:
    - `dot`: `sum_d q[i,d] * k[j,d]`, times `scale` when present;
    - `additive`: `score_weight * sum_d feature_scale[d] * tanh(scale *
      (q[i,d] + k[j,d]))`, each factor 1 when absent (`feature_scale`
      `(d)`: AdditiveAttention's learned scale; `scale` and `score_weight`:
      Attention's with score_mode "concat").
    With `causal` step `i` sees only `j <= i`, with `window` only `|i - j| <
    window` (a sliding window), with `query_mask` `(batch, tq)` only where
    it is 1 at `i`, with `key_mask` `(batch, tk)` only where it is 1 at `j`
    (Keras' timestep masks of the inputs), with `attention_mask` `(batch,
    tq, tk)` only where it is not 0 at `(i, j)` (the mask a
    MultiHeadAttention is called with); every condition given must
    hold. A hidden score
    counts as -0.7 * FLT_MAX, as Keras' masked attention: its weight is 0,
    and a row that sees nothing averages all values. With `mask_offset` it
    is instead the score plus `mask_offset` in float32, as tf_keras and
    Keras' Attention layers hide scores (adding -1e9): its weight is still
    0 beside a seen score, but a row that sees nothing is the softmax of
    those sums, an average only where its scores differ by less than
    float32's spacing there (64 at 1e9). Each row of scores
    goes through softmax over `j` (maximum subtracted); with `zero_hidden`
    the weight of a hidden score is then 0 (Keras 3.10 and later's Softmax
    layer, which MultiHeadAttention uses with dropout or returning its
    scores: a row that sees nothing is all zeros); the output is the
    weighted sum of the value rows. With `weights`, the result is instead
    those softmax weights, `(batch, heads, tq, tk)`: what Keras returns with
    `return_attention_scores=True` (`value` is then only checked).

    ```mlir
    %y = seq.attention dot %q, %k, %v {scale = 0.5 : f32, causal}
        : tensor<?x8x2x4xf32>, tensor<?x8x2x4xf32>, tensor<?x8x2x4xf32> -> tensor<?x8x2x4xf32>
    ```
  }];
  let arguments = (ins Seq_F32Tensor:$query, Seq_F32Tensor:$key,
                   Seq_F32Tensor:$value, Optional<Seq_F32Tensor>:$feature_scale,
                   Optional<Seq_F32Tensor>:$query_mask, Optional<Seq_F32Tensor>:$key_mask,
                   Optional<Seq_F32Tensor>:$attention_mask,
                   Seq_ScoreModeAttr:$score_mode, OptionalAttr<F32Attr>:$scale,
                   OptionalAttr<F32Attr>:$score_weight, UnitAttr:$causal,
                   OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$window,
                   UnitAttr:$weights, OptionalAttr<F32Attr>:$mask_offset,
                   UnitAttr:$zero_hidden);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $score_mode $query `,` $key `,` $value
    (`feature_scale` `(` $feature_scale^ `:` type($feature_scale) `)`)?
    (`query_mask` `(` $query_mask^ `:` type($query_mask) `)`)?
    (`key_mask` `(` $key_mask^ `:` type($key_mask) `)`)?
    (`attention_mask` `(` $attention_mask^ `:` type($attention_mask) `)`)? attr-dict
    `:` type($query) `,` type($key) `,` type($value) `->` type($output)
  }];
}

def Seq_StackOp : Seq_TensorOp<"stack"> {
  let summary = "Tensors of one shape stacked along a new leading axis";
  let description = [{
    `n` inputs of one shape `(d0, ...)` give `(n, d0, ...)`: the states a
    recurrent layer's `initial_state` takes, `(states, batch, units)`, when
    they are model inputs.
  }];
  let arguments = (ins Variadic<Seq_F32Tensor>:$inputs);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) `->` type($output)
  }];
}

def Seq_UnstackOp : Seq_TensorOp<"unstack"> {
  let summary = "One slice of a stacked tensor along its leading axis";
  let description = [{
    `(n, d0, ...)` gives slice `index` of the leading axis, `(d0, ...)`:
    the inverse of `seq.stack`. One of a recurrent layer's states,
    `(batch, units)`, out of its `final_state` `(states, batch, units)`,
    when a Functional model outputs a `return_state=True` layer's states.
  }];
  let arguments = (ins Seq_F32Tensor:$input,
                   ConfinedAttr<I64Attr, [IntNonNegative]>:$index);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input `[` $index `]` attr-dict `:` type($input) `->` type($output)
  }];
}

def Seq_TimeDistributedOp : Seq_TensorOp<"time_distributed",
    [SingleBlock]> {
  let summary = "Keras TimeDistributed: applies its body to every timestep";
  let description = [{
    The body's single argument is one timestep of `input` (the time axis,
    axis 1, removed); it yields that step's result. The result stacks the
    steps along axis 1 again.
  }];
  let arguments = (ins Seq_F32Tensor:$input);
  let results = (outs Seq_F32Tensor:$output);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $input `:` type($input) `->` type($output) $body attr-dict
  }];
}

def Seq_YieldOp : Seq_Op<"yield", [Pure, Terminator,
                                   HasParent<"TimeDistributedOp">]> {
  let summary = "Ends a seq.time_distributed body with one timestep's result";
  let arguments = (ins Seq_F32Tensor:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

def Seq_Conv1DOp : Seq_TensorOp<"conv1d"> {
  let summary = "Keras Conv1D (channels last)";
  let description = [{
    `input` `(batch, time, channels)`, `kernel` `(width, channels, filters)`,
    optional `bias` `(filters)`. Output length: valid
    `floor((T - dilation*(width-1) - 1) / stride) + 1`; same `ceil(T / stride)`;
    causal pads `dilation*(width-1)` on the left, then as valid.
  }];
  let arguments = (ins Seq_F32Tensor:$input, Seq_F32Tensor:$kernel,
                   Optional<Seq_F32Tensor>:$bias,
                   ConfinedAttr<I64Attr, [IntPositive]>:$strides,
                   ConfinedAttr<I64Attr, [IntPositive]>:$dilation_rate,
                   Seq_PaddingAttr:$padding,
                   Seq_ActivationAttr:$activation, OptionalAttr<F32Attr>:$alpha);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input `,` $kernel (`,` $bias^)? `padding` `(` $padding `)`
    `activation` `(` $activation `)` attr-dict `:` functional-type(operands, results)
  }];
}

class Seq_Pool1DOp<string mnemonic, string keras> : Seq_TensorOp<mnemonic> {
  let summary = "Keras " # keras # " (channels last)";
  let description = [{
    `input` `(batch, time, channels)`; padding `valid` or `same` (for
    average pooling, `same` divides by the number of real elements in each
    window, as TensorFlow does).
  }];
  let arguments = (ins Seq_F32Tensor:$input,
                   ConfinedAttr<I64Attr, [IntPositive]>:$pool_size,
                   ConfinedAttr<I64Attr, [IntPositive]>:$strides,
                   Seq_PaddingAttr:$padding);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input `padding` `(` $padding `)` attr-dict `:` type($input) `->` type($output)
  }];
}

def Seq_MaxPool1DOp : Seq_Pool1DOp<"max_pool1d", "MaxPooling1D">;
def Seq_AvgPool1DOp : Seq_Pool1DOp<"avg_pool1d", "AveragePooling1D">;

class Seq_GlobalPool1DOp<string mnemonic, string keras> : Seq_TensorOp<mnemonic> {
  let summary = "Keras " # keras # ": reduces the time axis";
  let description = [{
    `(batch, time, channels)` to `(batch, channels)`, or `(batch, 1, channels)`
    with `keepdims`.
  }];
  let results = (outs Seq_F32Tensor:$output);
}

def Seq_GlobalMaxPool1DOp : Seq_GlobalPool1DOp<"global_max_pool1d", "GlobalMaxPooling1D"> {
  let arguments = (ins Seq_F32Tensor:$input, UnitAttr:$keepdims);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Seq_GlobalAvgPool1DOp : Seq_GlobalPool1DOp<"global_avg_pool1d", "GlobalAveragePooling1D"> {
  let description = [{
    As `seq.global_max_pool1d`. With a `mask` `(batch, time)` (see
    seq.sequence_mask) the mean is over the unmasked steps only.
  }];
  let arguments = (ins Seq_F32Tensor:$input, Optional<Seq_F32Tensor>:$mask,
                   UnitAttr:$keepdims);
  let assemblyFormat = [{
    $input (`mask` `(` $mask^ `:` type($mask) `)`)? attr-dict `:` type($input) `->` type($output)
  }];
}

def Seq_SequenceMaskOp : Seq_TensorOp<"sequence_mask"> {
  let summary = "Keras' timestep mask: 1 where a step holds data, 0 where it is padding";
  let description = [{
    `input` is `(batch, time)` ids (Embedding with `mask_zero`, where
    `mask_value` is 0) or `(batch, time, features)` (Masking: a step holds
    data when any feature differs from `mask_value`). The result is
    `(batch, time)` of 1.0 and 0.0, what the recurrent ops and
    seq.global_avg_pool1d take as their `mask`.
  }];
  let arguments = (ins AnyRankedTensor:$input, F32Attr:$mask_value);
  let results = (outs Seq_F32Tensor:$mask);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($mask)";
}

def Seq_ApplyMaskOp : Seq_TensorOp<"apply_mask", [AllTypesMatch<["input", "output"]>]> {
  let summary = "Keras Masking's output: zeroes the masked steps";
  let description = [{
    `input` `(batch, time, ...)` times `mask` `(batch, time)` (see
    seq.sequence_mask) broadcast over the remaining axes.
  }];
  let arguments = (ins Seq_F32Tensor:$input, Seq_F32Tensor:$mask);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = "$input `,` $mask attr-dict `:` type($input) `,` type($mask)";
}

// Convolution and pooling in 2-D and 3-D. Channels last: the importer turns a
// channels_first layer into seq.permute to channels last, the op, and
// seq.permute back (as TensorFlow itself does on CPUs).

class Seq_ConvNdOp<string mnemonic, string keras, int spatial> :
    Seq_TensorOp<mnemonic> {
  let summary = "Keras " # keras # " (channels last)";
  let description = [{
    `input` `(batch, }] # !if(!eq(spatial, 2), "rows, cols", "d1, d2, d3") # [{, channels)`,
    `kernel` `(}] # !if(!eq(spatial, 2), "kh, kw", "k1, k2, k3") # [{, channels / groups, filters)`,
    optional `bias` `(filters)`. `strides` and `dilation_rate` hold one size
    per spatial axis. Output size per axis: valid
    `floor((n - dilation*(k-1) - 1) / stride) + 1`, same `ceil(n / stride)`
    (TensorFlow's padding: the smaller half before). With `groups` > 1 the
    channels and the filters are split into that many equal groups, filter
    group g reading channel group g only.
  }];
  let arguments = (ins Seq_F32Tensor:$input, Seq_F32Tensor:$kernel,
                   Optional<Seq_F32Tensor>:$bias,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilation_rate,
                   DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$groups,
                   Seq_PaddingAttr:$padding,
                   Seq_ActivationAttr:$activation, OptionalAttr<F32Attr>:$alpha);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input `,` $kernel (`,` $bias^)? `padding` `(` $padding `)`
    `activation` `(` $activation `)` attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = "static constexpr int64_t kSpatialRank = " #
                              !cast<string>(spatial) # ";";
}

def Seq_Conv2DOp : Seq_ConvNdOp<"conv2d", "Conv2D", 2>;
def Seq_Conv3DOp : Seq_ConvNdOp<"conv3d", "Conv3D", 3>;

def Seq_ConvLSTMOp : Seq_TensorOp<"conv_lstm", [AttrSizedOperandSegments]> {
  let summary = "Keras ConvLSTM1D/2D/3D (channels last)";
  let description = [{
    An LSTM whose two products are convolutions. `input` is `(batch, time,
    d1..dn, channels)` with n = 1, 2 or 3, `kernel` `(k1..kn, channels, 4f)`,
    `recurrent_kernel` `(r1..rn, f, 4f)`, the optional `bias` `(4f)`; gate
    blocks i, f, c, o. Each step's gates are
    `conv(x_t, kernel) + bias + conv(h, recurrent_kernel)`: the input
    convolution with `strides`, `dilation_rate` and `padding` (sizes as
    seq.conv2d), the recurrent one with stride 1 and `same` padding. The
    state h, c is `(batch, o1..on, f)` (the input convolution's output
    sizes), and each position runs the LSTM cell of seq.lstm. The result is
    `(batch, time, o1..on, f)` with `return_sequences`, else `(batch,
    o1..on, f)`; `go_backwards` as on seq.lstm. The state starts at zero, or
    at the optional `initial_state` `(2, batch, o1..on, f)` (h then c); the
    optional second result `final_state`, of that shape, is the state after
    the last step (a return_state layer's states, a stateful layer's next
    state, as on seq.lstm).
  }];
  let arguments = (ins Seq_F32Tensor:$input, Seq_F32Tensor:$kernel,
                   Seq_F32Tensor:$recurrent_kernel, Optional<Seq_F32Tensor>:$bias,
                   Optional<Seq_F32Tensor>:$initial_state,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilation_rate,
                   Seq_PaddingAttr:$padding,
                   Seq_ActivationAttr:$activation,
                   Seq_ActivationAttr:$recurrent_activation,
                   UnitAttr:$return_sequences, UnitAttr:$go_backwards);
  let results = (outs Seq_F32Tensor:$output, Optional<Seq_F32Tensor>:$final_state);
  let assemblyFormat = [{
    $input `,` $kernel `,` $recurrent_kernel (`,` $bias^)? (`initial_state` `(` $initial_state^ `)`)?
    `padding` `(` $padding `)`
    `activation` `(` $activation `,` $recurrent_activation `)` attr-dict
    `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// n: the number of spatial axes of the input.
    int64_t getSpatialRank() {
      return llvm::cast<mlir::RankedTensorType>(getInput().getType()).getRank() - 3;
    }
  }];
}

// DepthwiseConv1D/2D import as seq.conv2d with `groups` equal to the input
// channels (1-D layers through a reshape to one row); SeparableConv1D/2D as
// that depthwise convolution followed by a 1x1 seq.conv2d.

class Seq_ConvTransposeNdOp<string mnemonic, string keras, int spatial> :
    Seq_TensorOp<mnemonic> {
  let summary = "Keras " # keras # " (channels last)";
  let description = [{
    The transpose (gradient) of a convolution, as TensorFlow's
    conv_transpose computes it. `input` `(batch, }] # !cond(!eq(spatial, 1) : "time",
    !eq(spatial, 2) : "rows, cols", true : "d1, d2, d3") # [{, channels)`,
    `kernel` `(}] # !cond(!eq(spatial, 1) : "width", !eq(spatial, 2) : "kh, kw",
    true : "k1, k2, k3") # [{, filters, channels)` (Keras' layout), optional
    `bias` `(filters)`. Per spatial axis, with span `d*(k-1)+1`: the output
    size is valid `(n-1)*s + max(span, s)`, same `n*s`; with
    `output_padding` p: valid `(n-1)*s + span + p`, same
    `(n-1)*s + span%2 + p`. Output position `o` receives input `i` through
    tap `j` where `i*s + j*d = o + pad`, with `pad` 0 for valid and
    `max((n-1)*s + span - out, 0) / 2` for same. The output must be one that
    the forward convolution maps back onto the input (TensorFlow refuses
    others).
  }];
  let arguments = (ins Seq_F32Tensor:$input, Seq_F32Tensor:$kernel,
                   Optional<Seq_F32Tensor>:$bias,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilation_rate,
                   OptionalAttr<DenseI64ArrayAttr>:$output_padding,
                   Seq_PaddingAttr:$padding,
                   Seq_ActivationAttr:$activation, OptionalAttr<F32Attr>:$alpha);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input `,` $kernel (`,` $bias^)? `padding` `(` $padding `)`
    `activation` `(` $activation `)` attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = "static constexpr int64_t kSpatialRank = " #
                              !cast<string>(spatial) # ";";
}

def Seq_ConvTranspose1DOp : Seq_ConvTransposeNdOp<"conv_transpose1d", "Conv1DTranspose", 1>;
def Seq_ConvTranspose2DOp : Seq_ConvTransposeNdOp<"conv_transpose2d", "Conv2DTranspose", 2>;
def Seq_ConvTranspose3DOp : Seq_ConvTransposeNdOp<"conv_transpose3d", "Conv3DTranspose", 3>;

class Seq_PoolNdOp<string mnemonic, string keras, int spatial> :
    Seq_TensorOp<mnemonic> {
  let summary = "Keras " # keras # " (channels last)";
  let description = [{
    `input` `(batch, }] # !if(!eq(spatial, 2), "rows, cols", "d1, d2, d3") # [{, channels)`;
    `pool_size` and `strides` hold one size per spatial axis; padding
    `valid` or `same` (for average pooling, `same` divides by the number of
    real elements in each window, as TensorFlow does).
  }];
  let arguments = (ins Seq_F32Tensor:$input, DenseI64ArrayAttr:$pool_size,
                   DenseI64ArrayAttr:$strides, Seq_PaddingAttr:$padding);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input `padding` `(` $padding `)` attr-dict `:` type($input) `->` type($output)
  }];
  let extraClassDeclaration = "static constexpr int64_t kSpatialRank = " #
                              !cast<string>(spatial) # ";";
}

def Seq_MaxPool2DOp : Seq_PoolNdOp<"max_pool2d", "MaxPooling2D", 2>;
def Seq_AvgPool2DOp : Seq_PoolNdOp<"avg_pool2d", "AveragePooling2D", 2>;
def Seq_MaxPool3DOp : Seq_PoolNdOp<"max_pool3d", "MaxPooling3D", 3>;
def Seq_AvgPool3DOp : Seq_PoolNdOp<"avg_pool3d", "AveragePooling3D", 3>;

class Seq_GlobalPoolNdOp<string mnemonic, string keras, int spatial> :
    Seq_TensorOp<mnemonic> {
  let summary = "Keras " # keras # ": reduces the spatial axes";
  let description = [{
    `(batch, }] # !if(!eq(spatial, 2), "rows, cols", "d1, d2, d3") # [{, channels)` to
    `(batch, channels)`, or with `keepdims` to the input's rank with size 1
    on every spatial axis.
  }];
  let arguments = (ins Seq_F32Tensor:$input, UnitAttr:$keepdims);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let extraClassDeclaration = "static constexpr int64_t kSpatialRank = " #
                              !cast<string>(spatial) # ";";
}

def Seq_GlobalMaxPool2DOp : Seq_GlobalPoolNdOp<"global_max_pool2d", "GlobalMaxPooling2D", 2>;
def Seq_GlobalAvgPool2DOp : Seq_GlobalPoolNdOp<"global_avg_pool2d", "GlobalAveragePooling2D", 2>;
def Seq_GlobalMaxPool3DOp : Seq_GlobalPoolNdOp<"global_max_pool3d", "GlobalMaxPooling3D", 3>;
def Seq_GlobalAvgPool3DOp : Seq_GlobalPoolNdOp<"global_avg_pool3d", "GlobalAveragePooling3D", 3>;

def Seq_BatchNormOp : Seq_TensorOp<"batch_norm", [AllTypesMatch<["input", "output"]>]> {
  let summary = "Keras BatchNormalization at inference, on the last axis";
  let description = [{
    `(x - moving_mean) / sqrt(moving_variance + epsilon) * gamma + beta`.
    All four parameters are `(channels)`; the importer writes ones / zeros
    for gamma / beta when Keras has `scale=False` / `center=False`.
    `epsilon` may be 0: Rescaling (mean 0, variance 1, gamma = scale, beta =
    offset) and Normalization (variance = max(sqrt(variance), 1e-7)^2) import
    to it that way, their exact formulas.
  }];
  let arguments = (ins Seq_F32Tensor:$input, Seq_F32Tensor:$gamma, Seq_F32Tensor:$beta,
                   Seq_F32Tensor:$moving_mean, Seq_F32Tensor:$moving_variance,
                   F32Attr:$epsilon);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input `,` $gamma `,` $beta `,` $moving_mean `,` $moving_variance attr-dict
    `:` functional-type(operands, results)
  }];
}

def Seq_LayerNormOp : Seq_TensorOp<"layer_norm", [AllTypesMatch<["input", "output"]>]> {
  let summary = "Keras LayerNormalization over the last axis";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * gamma + beta` with the biased
    variance of the last axis; gamma and beta are `(channels)`.
  }];
  let arguments = (ins Seq_F32Tensor:$input, Seq_F32Tensor:$gamma, Seq_F32Tensor:$beta,
                   F32Attr:$epsilon);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input `,` $gamma `,` $beta attr-dict `:` functional-type(operands, results)
  }];
}

def Seq_GroupNormOp : Seq_TensorOp<"group_norm", [AllTypesMatch<["input", "output"]>]> {
  let summary = "Keras GroupNormalization over channel groups of the last axis";
  let description = [{
    `input` `(batch, ..., channels)`, the channels split into `groups` equal
    groups; each sample's group is normalized by the mean and biased
    variance of all its values (every axis but the batch axis, the group's
    channels only): `(x - mean) / sqrt(var + epsilon) * gamma + beta`, with
    gamma and beta `(channels)` (ones / zeros when Keras has `scale=False` /
    `center=False`).
  }];
  let arguments = (ins Seq_F32Tensor:$input, Seq_F32Tensor:$gamma, Seq_F32Tensor:$beta,
                   ConfinedAttr<I64Attr, [IntPositive]>:$groups, F32Attr:$epsilon);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input `,` $gamma `,` $beta attr-dict `:` functional-type(operands, results)
  }];
}

def Seq_UnitNormOp : Seq_TensorOp<"unit_norm", [AllTypesMatch<["input", "output"]>]> {
  let summary = "Keras UnitNormalization over the last axis";
  let description = [{
    Each last-axis row divided by its L2 norm: `x / sqrt(max(sum(x^2),
    epsilon))`, TensorFlow's l2_normalize (tf_keras' UnitNormalization,
    epsilon 1e-12). Keras 3's `ops.normalize(x, epsilon=e)` floors the norm
    at `e` instead: epsilon `e^2` here (its UnitNormalization: 1e-24 since
    3.6, 1e-12 before; Dot(normalize=True): 1e-14).
  }];
  let arguments = (ins Seq_F32Tensor:$input,
                   DefaultValuedAttr<F32Attr, "1e-12">:$epsilon);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Seq_RMSNormOp : Seq_TensorOp<"rms_norm", [AllTypesMatch<["input", "output"]>]> {
  let summary = "Keras RMSNormalization over the last axis";
  let description = [{
    Each last-axis row divided by its root mean square, then scaled per
    channel: `x / sqrt(mean(x^2) + epsilon) * scale`, `scale` `(channels)`.
  }];
  let arguments = (ins Seq_F32Tensor:$input, Seq_F32Tensor:$scale, F32Attr:$epsilon);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input `,` $scale attr-dict `:` functional-type(operands, results)
  }];
}

def Seq_DropoutOp : Seq_TensorOp<"dropout", [AllTypesMatch<["input", "output"]>]> {
  let summary = "Keras Dropout and the other layers that are the identity at inference";
  let description = [{
    Dropout, SpatialDropout1D/2D/3D, GaussianDropout, GaussianNoise,
    AlphaDropout and ActivityRegularization do nothing at inference;
    `seq-strip-dropout` removes them. `rate` is the layer's (0 for the
    layers that have none).
  }];
  let arguments = (ins Seq_F32Tensor:$input, F32Attr:$rate);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Seq_TruncateOp : Seq_TensorOp<"truncate", [AllTypesMatch<["input", "output"]>]> {
  let summary = "Rounds toward zero: Keras' cast of a model input to its integer dtype";
  let description = [{
    A Keras model whose input has an integer dtype (an InputLayer with
    `dtype="int64"`, or, in tf_keras, a first layer such as Discretization
    whose own dtype is an integer one) casts the numbers it is given to that
    dtype first, which truncates them. The importer puts this op on such an
    input; the values stay float32 (within the integer type's range the
    result is the same).
  }];
  let arguments = (ins Seq_F32Tensor:$input);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Seq_DiscretizeOp : Seq_TensorOp<"discretize", [AllTypesMatch<["input", "output"]>]> {
  let summary = "Keras Discretization (output_mode int): bucket indices, as float32";
  let description = [{
    Each element becomes the number of `boundaries` (1-D, ascending, as
    Keras' `bin_boundaries`) that are not greater than it: the index `i` with
    `boundaries[i-1] <= x < boundaries[i]`, as TensorFlow's Bucketize
    computes it (a NaN lands in the last bucket). Keras returns int64
    indices; seqc computes in float32 throughout, so the indices are exact
    float32 integers.
  }];
  let arguments = (ins Seq_F32Tensor:$input, Seq_F32Tensor:$boundaries);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input `,` $boundaries attr-dict `:` functional-type(operands, results)
  }];
}

def Seq_CategoryEncodingOp : Seq_TensorOp<"category_encoding"> {
  let summary = "Keras CategoryEncoding: one_hot, multi_hot or count of integer ids";
  let description = [{
    `input` `(batch, k)` holds integer ids as float32. With `n = num_tokens`:
    - `count`: `(batch, n)`, entry `t` the number of ids equal to `t`;
    - `multi_hot`: `(batch, n)`, 1 where some id equals `t`, else 0;
    - `one_hot`: `(batch, n)` when `k` is 1 (the same as multi_hot), else
      `(batch, k, n)` with one row per id.
    An id that is not an integer in `[0, n)` counts for no token (Keras
    leaves such inputs undefined or fails on them).
  }];
  let arguments = (ins Seq_F32Tensor:$input, ConfinedAttr<I64Attr, [IntPositive]>:$num_tokens,
                   Seq_CategoryModeAttr:$mode);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $mode $input attr-dict `:` type($input) `->` type($output)
  }];
}

def Seq_EmbeddingOp : Seq_TensorOp<"embedding"> {
  let summary = "Keras Embedding: looks up rows of `table` by integer id";
  let description = [{
    `ids` holds integer ids (as integers or integral floats) of any shape;
    `table` is `(vocabulary, dim)`; the result has shape `ids.shape + (dim)`.
  }];
  let arguments = (ins AnyRankedTensor:$ids, Seq_F32Tensor:$table);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = "$ids `,` $table attr-dict `:` functional-type(operands, results)";
}

def Seq_FlattenOp : Seq_TensorOp<"flatten"> {
  let summary = "Keras Flatten: (batch, d1, ..., dn) to (batch, d1*...*dn)";
  let arguments = (ins Seq_F32Tensor:$input);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Seq_ReshapeOp : Seq_TensorOp<"reshape"> {
  let summary = "Keras Reshape: target_shape excludes the batch axis, may hold one -1";
  let arguments = (ins Seq_F32Tensor:$input, DenseI64ArrayAttr:$target_shape);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input $target_shape attr-dict `:` type($input) `->` type($output)
  }];
}

def Seq_RepeatVectorOp : Seq_TensorOp<"repeat_vector"> {
  let summary = "Keras RepeatVector: (batch, features) to (batch, n, features)";
  let arguments = (ins Seq_F32Tensor:$input, ConfinedAttr<I64Attr, [IntPositive]>:$n);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Seq_ZeroPaddingOp : Seq_TensorOp<"zero_padding"> {
  let summary = "Keras ZeroPadding1D/2D/3D: zeros before and after along axes";
  let description = [{
    `low` and `high` hold, for every axis but the batch axis, how many zeros
    go before and after it (0 on the channel axis). The importer writes them
    for either data format.

    ```mlir
    %y = seq.zero_padding %x low [1, 2, 0] high [1, 0, 0]
        : tensor<?x4x4x3xf32> -> tensor<?x6x6x3xf32>
    ```
  }];
  let arguments = (ins Seq_F32Tensor:$input, DenseI64ArrayAttr:$low,
                   DenseI64ArrayAttr:$high);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input `low` $low `high` $high attr-dict `:` type($input) `->` type($output)
  }];
}

def Seq_CroppingOp : Seq_TensorOp<"cropping"> {
  let summary = "Keras Cropping1D/2D/3D: drops elements at the start and end of axes";
  let description = [{
    `low` and `high` hold, for every axis but the batch axis, how many
    elements are dropped at its start and at its end.
  }];
  let arguments = (ins Seq_F32Tensor:$input, DenseI64ArrayAttr:$low,
                   DenseI64ArrayAttr:$high);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input `low` $low `high` $high attr-dict `:` type($input) `->` type($output)
  }];
}

def Seq_SliceOp : Seq_TensorOp<"slice"> {
  let summary = "x[:, a:a+n, ...]: a window of fixed size on every axis, counted from either end";
  let description = [{
    `starts` and `sizes` hold, for every axis but the batch axis, where the
    window starts and how many elements it keeps. A start `>= 0` counts
    from the axis' first element, a negative one from past its last
    (Python's rule: `-1` is the last element), so that a window at the end
    of an axis of unknown length has a fixed size: `x[:, -1]` of a
    `(batch, steps, features)` tensor is `starts [-1, 0] sizes [1, n]`.
    The axis must hold the whole window, `start + size` elements (or
    `-start`), which is checked at run time on an axis of unknown length;
    the result's axes after the batch axis are `sizes`. (seq.cropping
    keeps an axis of unknown length unknown.)

    ```mlir
    %y = seq.slice %x starts [-1, 0] sizes [1, 8] : tensor<?x?x8xf32> -> tensor<?x1x8xf32>
    ```
  }];
  let arguments = (ins Seq_F32Tensor:$input, DenseI64ArrayAttr:$starts,
                   DenseI64ArrayAttr:$sizes);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input `starts` $starts `sizes` $sizes attr-dict `:` type($input) `->` type($output)
  }];
  let extraClassDeclaration = [{
    /// How many elements axis `axis` (after the batch axis, from 0) must
    /// hold for the window.
    int64_t requiredLength(size_t axis) {
      int64_t start = getStarts()[axis];
      return start < 0 ? -start : start + getSizes()[axis];
    }
  }];
}

class Seq_AdaptivePoolOp<string mnemonic, string keras, string reduce> :
    Seq_TensorOp<mnemonic> {
  let summary = "Keras " # keras # "1D/2D/3D (channels last)";
  let description = [{
    `input` is `(batch, d1, ..., dn, channels)` with static spatial sizes;
    `output_size` holds the output's spatial sizes. Along every spatial axis
    of input size `in` and output size `out`, output `i` is the }] # reduce # [{ of
    inputs `floor(i*in/out)` to `ceil((i+1)*in/out)` (exclusive): windows of
    `ceil(in/out)` or one more, overlapping where `in` is not a multiple of
    `out`, repeating inputs where `out > in` (Keras 3's rule, as PyTorch's
    adaptive pooling). The axes are pooled one after the other, the first
    spatial axis first, as Keras does. (Keras' TensorFlow backend crashes in
    the max pooling of an axis with `in = 1` or `out = 1`; here the rule
    above still holds.)

    ```mlir
    %y = seq.}] # mnemonic # [{ %x [3, 2] : tensor<?x7x5x4xf32> -> tensor<?x3x2x4xf32>
    ```
  }];
  let arguments = (ins Seq_F32Tensor:$input, DenseI64ArrayAttr:$output_size);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input $output_size attr-dict `:` type($input) `->` type($output)
  }];
}

def Seq_AdaptiveMaxPoolOp :
    Seq_AdaptivePoolOp<"adaptive_max_pool", "AdaptiveMaxPooling", "maximum">;
def Seq_AdaptiveAvgPoolOp :
    Seq_AdaptivePoolOp<"adaptive_avg_pool", "AdaptiveAveragePooling", "mean">;

def Seq_UpSamplingOp : Seq_TensorOp<"upsampling"> {
  let summary = "Keras UpSampling1D/2D/3D: repeats (or interpolates) along axes";
  let description = [{
    `size` holds the factor of every axis but the batch axis (1 on the
    channel axis). `nearest` repeats each element `size` times; `bilinear`
    (Keras' UpSampling2D) interpolates linearly along every axis as
    `tf.image.resize` does, with half-pixel centres and clamped borders.
  }];
  let arguments = (ins Seq_F32Tensor:$input, DenseI64ArrayAttr:$size,
                   Seq_InterpolationAttr:$interpolation);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $interpolation $input $size attr-dict `:` type($input) `->` type($output)
  }];
}

def Seq_ResizeOp : Seq_TensorOp<"resize"> {
  let summary = "Keras Resizing: tf.image.resize of the spatial axes (channels last)";
  let description = [{
    `input` is `(batch, d1, ..., dn, channels)` with static spatial sizes;
    `size` holds the output's spatial sizes. Every spatial axis of input
    size `in` and output size `out` is resized as TensorFlow's
    ResizeNearestNeighbor / ResizeBilinear kernels do with half-pixel
    centres (what `tf.image.resize` runs, without antialiasing), with
    `scale = float(in) / float(out)` in float32:
    - `nearest`: output `o` reads `min(floor((o + 0.5) * scale), in - 1)`;
    - `bilinear`: `s = (o + 0.5) * scale - 0.5`, `lo = max(floor(s), 0)`,
      `hi = min(ceil(s), in - 1)`, `y = x[lo] + (x[hi] - x[lo]) * (s - floor(s))`,
      the last spatial axis first (TensorFlow interpolates along the width,
      then the height).
    Keras' Resizing, CenterCrop (an input smaller than the crop) and tf_keras'
    RandomCrop at inference import to it, after a seq.cropping where they
    crop to the target's aspect ratio.

    ```mlir
    %y = seq.resize bilinear %x [4, 5] : tensor<?x8x6x3xf32> -> tensor<?x4x5x3xf32>
    ```
  }];
  let arguments = (ins Seq_F32Tensor:$input, DenseI64ArrayAttr:$size,
                   Seq_InterpolationAttr:$interpolation);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $interpolation $input $size attr-dict `:` type($input) `->` type($output)
  }];
}

def Seq_PermuteOp : Seq_TensorOp<"permute"> {
  let summary = "Keras Permute: reorders the axes after the batch axis";
  let description = [{
    `dims` is Keras' permutation, numbering the axes after the batch axis
    from 1: output axis `i` is input axis `dims[i-1]`. The importer also
    uses it to bring channels_first layers to channels last and back.
    Permutes of permutes fold into one, or into nothing.
  }];
  let arguments = (ins Seq_F32Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input $dims attr-dict `:` type($input) `->` type($output)
  }];
  let hasFolder = 1;
}

def Seq_ReverseOp : Seq_TensorOp<"reverse", [AllTypesMatch<["input", "output"]>]> {
  let summary = "tf.reverse / keras.ops.flip along one axis after the batch axis";
  let description = [{
    Element `i` of axis `axis` (of length `n`, known or not) is the input's
    element `n - 1 - i`; the other axes are unchanged.

    ```mlir
    %y = seq.reverse %x axis 1 : tensor<?x?x8xf32>
    ```
  }];
  let arguments = (ins Seq_F32Tensor:$input, ConfinedAttr<I64Attr, [IntPositive]>:$axis);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = "$input `axis` $axis attr-dict `:` type($input)";
}

def Seq_ActivationOp : Seq_TensorOp<"activation", [AllTypesMatch<["input", "output"]>]> {
  let summary = "Keras Activation (and LeakyReLU, ELU, ThresholdedReLU, Softmax layers)";
  let description = [{
    Elementwise, except `softmax` and `log_softmax`, which normalise over
    `axis` (a non-negative axis other than the batch axis; the last axis when
    absent, and only these two take one). `alpha` is present exactly for
    `leaky_relu` (negative slope), `elu`, `celu`, `thresholded_relu`
    (theta) and `reciprocal` (`alpha / x`: the numerator). `sqrt`, `rsqrt`,
    `log`, `abs` and `reciprocal` are no Keras activation: operations on
    tensors import to them.

    ```mlir
    %y = seq.activation softmax %x {axis = 1 : i64} : tensor<?x4x6xf32>
    ```
  }];
  let arguments = (ins Seq_F32Tensor:$input, Seq_ActivationAttr:$activation,
                   OptionalAttr<F32Attr>:$alpha, OptionalAttr<I64Attr>:$axis);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = "$activation $input attr-dict `:` type($input)";
  let extraClassDeclaration = [{
    /// The normalised axis of softmax / log_softmax: `axis`, or the last.
    int64_t getNormalizedAxis();
  }];
}

def Seq_ReluOp : Seq_TensorOp<"relu", [AllTypesMatch<["input", "output"]>]> {
  let summary = "Keras ReLU layer with max_value, negative_slope and threshold";
  let description = [{
    As Keras computes it: `p = x > threshold ? x : 0` (`max(x, 0)` when the
    threshold is 0), clipped to `[0, max_value]` when `max_value` is present,
    minus `negative_slope * max(threshold - x, 0)`. The importer writes a
    plain `relu` / `leaky_relu` activation when no other option is set.

    ```mlir
    %y = seq.relu %x {max_value = 6.0 : f32, negative_slope = 0.1 : f32,
                      threshold = 0.5 : f32} : tensor<?x8xf32>
    ```
  }];
  let arguments = (ins Seq_F32Tensor:$input, F32Attr:$negative_slope,
                   F32Attr:$threshold, OptionalAttr<F32Attr>:$max_value);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Seq_ClipOp : Seq_TensorOp<"clip", [AllTypesMatch<["input", "output"]>]> {
  let summary = "tf.clip_by_value / keras.ops.clip: x limited to [min, max]";
  let description = [{
    Elementwise `max(min(x, max), min)` as TensorFlow computes it: a NaN
    stays NaN. `min <= max`. No Keras layer imports to it: operations on
    tensors do.

    ```mlir
    %y = seq.clip %x {max = 0.25 : f32, min = -0.5 : f32} : tensor<?x5x4xf32>
    ```
  }];
  let arguments = (ins Seq_F32Tensor:$input, F32Attr:$min, F32Attr:$max);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Seq_PReluOp : Seq_TensorOp<"prelu", [AllTypesMatch<["input", "output"]>]> {
  let summary = "Keras PReLU: x for x >= 0, alpha * x below, alpha learned";
  let description = [{
    `alpha` has the input's shape without the batch axis, with size 1 on the
    Keras layer's `shared_axes` (broadcast there); every other axis of it
    matches a static input axis.

    ```mlir
    %y = seq.prelu %x, %alpha : tensor<?x4x6xf32>, tensor<1x6xf32>
    ```
  }];
  let arguments = (ins Seq_F32Tensor:$input, Seq_F32Tensor:$alpha);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = "$input `,` $alpha attr-dict `:` type($input) `,` type($alpha)";
}

//===----------------------------------------------------------------------===//
// Kernel level: what the fusion passes produce and the backends lower.
//===----------------------------------------------------------------------===//

def Seq_LinearOp : Seq_TensorOp<"linear"> {
  let summary = "GEMM + bias + activation epilogue over the last axis";
  let description = [{
    `activation(input @ weight + bias)`: `input` `(..., k)`, `weight`
    `(k, n)`, optional `bias` `(n)`. All leading axes are one GEMM's rows.
  }];
  let arguments = (ins Seq_F32Tensor:$input, Seq_F32Tensor:$weight,
                   Optional<Seq_F32Tensor>:$bias,
                   Seq_ActivationAttr:$activation, OptionalAttr<F32Attr>:$alpha);
  let results = (outs Seq_F32Tensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? `activation` `(` $activation `)` attr-dict
    `:` functional-type(operands, results)
  }];
}

class Seq_RecurrenceOp<string mnemonic, string cell, int gates,
                       list<Trait> traits = []> :
    Seq_TensorOp<mnemonic, traits> {
  let summary = cell # " time loop over a precomputed input projection";
  let description = [{
    `input_projection` is `(batch, time, }] # gates # [{u)`: the input GEMM of
    every timestep with the input bias folded in, computed before the loop.
    Each step is one recurrent GEMM `h @ recurrent_kernel` `(u, }] # gates #
    [{u)` for all gates plus one fused pointwise cell. `return_sequences`,
    `go_backwards`, `mask`, `zero_output_for_mask`, `initial_state` and
    `final_state` mean what they mean on the layer-level op.
  }];
  let results = (outs Seq_F32Tensor:$output, Optional<Seq_F32Tensor>:$final_state);
}

def Seq_LSTMRecurrenceOp : Seq_RecurrenceOp<"lstm_recurrence", "LSTM", 4,
                                             [AttrSizedOperandSegments]> {
  let arguments = (ins Seq_F32Tensor:$input_projection, Seq_F32Tensor:$recurrent_kernel,
                   Optional<Seq_F32Tensor>:$mask,
                   Optional<Seq_F32Tensor>:$initial_state,
                   Seq_ActivationAttr:$activation,
                   Seq_ActivationAttr:$recurrent_activation,
                   UnitAttr:$return_sequences, UnitAttr:$go_backwards,
                   UnitAttr:$zero_output_for_mask);
  let assemblyFormat = [{
    $input_projection `,` $recurrent_kernel (`mask` `(` $mask^ `)`)? (`initial_state` `(` $initial_state^ `)`)?
    `activation` `(` $activation `,` $recurrent_activation `)` attr-dict
    `:` functional-type(operands, results)
  }];
}

def Seq_GRURecurrenceOp : Seq_RecurrenceOp<"gru_recurrence", "GRU", 3,
                                            [AttrSizedOperandSegments]> {
  let description = [{
    As `seq.lstm_recurrence`, gates z, r, h. With `reset_after`,
    `recurrent_bias` `(3u)` is added to the recurrent product before the
    reset gate applies to it; without it there is no recurrent bias (the
    whole bias is in the input projection).
  }];
  let arguments = (ins Seq_F32Tensor:$input_projection, Seq_F32Tensor:$recurrent_kernel,
                   Optional<Seq_F32Tensor>:$recurrent_bias,
                   Optional<Seq_F32Tensor>:$mask,
                   Optional<Seq_F32Tensor>:$initial_state,
                   Seq_ActivationAttr:$activation,
                   Seq_ActivationAttr:$recurrent_activation,
                   UnitAttr:$return_sequences, UnitAttr:$go_backwards,
                   UnitAttr:$zero_output_for_mask, UnitAttr:$reset_after);
  let assemblyFormat = [{
    $input_projection `,` $recurrent_kernel (`,` $recurrent_bias^)? (`mask` `(` $mask^ `)`)? (`initial_state` `(` $initial_state^ `)`)?
    `activation` `(` $activation `,` $recurrent_activation `)` attr-dict
    `:` functional-type(operands, results)
  }];
}

def Seq_SimpleRNNRecurrenceOp : Seq_RecurrenceOp<"simple_rnn_recurrence", "SimpleRNN", 1,
                                                  [AttrSizedOperandSegments]> {
  let arguments = (ins Seq_F32Tensor:$input_projection, Seq_F32Tensor:$recurrent_kernel,
                   Optional<Seq_F32Tensor>:$mask,
                   Optional<Seq_F32Tensor>:$initial_state,
                   Seq_ActivationAttr:$activation,
                   UnitAttr:$return_sequences, UnitAttr:$go_backwards,
                   UnitAttr:$zero_output_for_mask);
  let assemblyFormat = [{
    $input_projection `,` $recurrent_kernel (`mask` `(` $mask^ `)`)? (`initial_state` `(` $initial_state^ `)`)?
    `activation` `(` $activation `)`
    attr-dict `:` functional-type(operands, results)
  }];
}

#endif // SEQ_OPS_TD
