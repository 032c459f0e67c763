// Every verifier message of the seq dialect.
// RUN: seq-opt %s -split-input-file -verify-diagnostics

func.func @dense_rank(%x: tensor<12xf32>, %k: tensor<12x32xf32>) {
  // expected-error @+1 {{'seq.dense' op input must have rank >= 2, got 'tensor<12xf32>'}}
  %0 = seq.dense %x, %k activation(relu) : (tensor<12xf32>, tensor<12x32xf32>) -> tensor<32xf32>
  return
}

// -----

func.func @dense_kernel_rank(%x: tensor<?x12xf32>, %k: tensor<12xf32>) {
  // expected-error @+1 {{'seq.dense' op kernel must have rank 2, got 'tensor<12xf32>'}}
  %0 = seq.dense %x, %k activation(relu) : (tensor<?x12xf32>, tensor<12xf32>) -> tensor<?x32xf32>
  return
}

// -----

func.func @dense_kernel_rows(%x: tensor<?x12xf32>, %k: tensor<13x32xf32>) {
  // expected-error @+1 {{'seq.dense' op kernel rows (13) must equal input features (12)}}
  %0 = seq.dense %x, %k activation(relu) : (tensor<?x12xf32>, tensor<13x32xf32>) -> tensor<?x32xf32>
  return
}

// -----

func.func @dense_bias(%x: tensor<?x12xf32>, %k: tensor<12x32xf32>, %b: tensor<31xf32>) {
  // expected-error @+1 {{'seq.dense' op bias size (31) must equal kernel columns (32)}}
  %0 = seq.dense %x, %k, %b activation(relu) : (tensor<?x12xf32>, tensor<12x32xf32>, tensor<31xf32>) -> tensor<?x32xf32>
  return
}

// -----

func.func @dense_bias_rank(%x: tensor<?x12xf32>, %k: tensor<12x32xf32>, %b: tensor<1x32xf32>) {
  // expected-error @+1 {{'seq.dense' op bias must have rank 1, got 'tensor<1x32xf32>'}}
  %0 = seq.dense %x, %k, %b activation(relu) : (tensor<?x12xf32>, tensor<12x32xf32>, tensor<1x32xf32>) -> tensor<?x32xf32>
  return
}

// -----

func.func @dense_result(%x: tensor<?x12xf32>, %k: tensor<12x32xf32>) {
  // expected-error @+1 {{'seq.dense' op result shape (?, 16) does not match the expected (?, 32)}}
  %0 = seq.dense %x, %k activation(relu) : (tensor<?x12xf32>, tensor<12x32xf32>) -> tensor<?x16xf32>
  return
}

// -----

func.func @dense_alpha_missing(%x: tensor<?x12xf32>, %k: tensor<12x32xf32>) {
  // expected-error @+1 {{'seq.dense' op activation 'leaky_relu' needs an 'alpha' attribute}}
  %0 = seq.dense %x, %k activation(leaky_relu) : (tensor<?x12xf32>, tensor<12x32xf32>) -> tensor<?x32xf32>
  return
}

// -----

func.func @dense_alpha_extra(%x: tensor<?x12xf32>, %k: tensor<12x32xf32>) {
  // expected-error @+1 {{'seq.dense' op 'alpha' is only meaningful for leaky_relu, elu, celu, thresholded_relu and reciprocal, not 'relu'}}
  %0 = seq.dense %x, %k activation(relu) {alpha = 0.1 : f32} : (tensor<?x12xf32>, tensor<12x32xf32>) -> tensor<?x32xf32>
  return
}

// -----

func.func @dense_unranked(%x: tensor<*xf32>, %k: tensor<12x32xf32>) {
  // expected-error @+1 {{'seq.dense' op operand #0 must be ranked tensor of 32-bit float values}}
  %0 = seq.dense %x, %k activation(relu) : (tensor<*xf32>, tensor<12x32xf32>) -> tensor<?x32xf32>
  return
}

// -----

func.func @bad_activation_name(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'activation' [linear, relu, tanh, sigmoid, hard_sigmoid_keras2, hard_sigmoid_keras3, softmax, elu, selu, gelu, gelu_tanh, swish, softplus, softsign, leaky_relu, exponential, relu6, hard_silu, mish, log_softmax, celu, hard_tanh, log_sigmoid, sparse_plus, squareplus, tanh_shrink, soft_shrink, hard_shrink, sparse_sigmoid, thresholded_relu, sqrt, rsqrt, log, abs, reciprocal]}}
  %0 = seq.activation glu %x : tensor<?x4xf32>
  return
}

// -----

func.func @linear_weight_rows(%x: tensor<?x10x12xf32>, %w: tensor<11x8xf32>) {
  // expected-error @+1 {{'seq.linear' op weight rows (11) must equal input features (12)}}
  %0 = seq.linear %x, %w activation(linear) : (tensor<?x10x12xf32>, tensor<11x8xf32>) -> tensor<?x10x8xf32>
  return
}

// -----

func.func @lstm_rank(%x: tensor<?x12xf32>, %k: tensor<12x16xf32>, %r: tensor<4x16xf32>) {
  // expected-error @+1 {{'seq.lstm' op input must have rank 3, got 'tensor<?x12xf32>'}}
  %0 = seq.lstm %x, %k, %r activation(tanh, sigmoid) : (tensor<?x12xf32>, tensor<12x16xf32>, tensor<4x16xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @lstm_recurrent_rank(%x: tensor<?x5x12xf32>, %k: tensor<12x16xf32>, %r: tensor<16xf32>) {
  // expected-error @+1 {{'seq.lstm' op recurrent_kernel must have rank 2, got 'tensor<16xf32>'}}
  %0 = seq.lstm %x, %k, %r activation(tanh, sigmoid) : (tensor<?x5x12xf32>, tensor<12x16xf32>, tensor<16xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @lstm_recurrent_columns(%x: tensor<?x5x12xf32>, %k: tensor<12x16xf32>, %r: tensor<4x12xf32>) {
  // expected-error @+1 {{'seq.lstm' op recurrent_kernel columns (12) must equal 4 x units (16)}}
  %0 = seq.lstm %x, %k, %r activation(tanh, sigmoid) : (tensor<?x5x12xf32>, tensor<12x16xf32>, tensor<4x12xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @lstm_kernel_rows(%x: tensor<?x5x12xf32>, %k: tensor<10x16xf32>, %r: tensor<4x16xf32>) {
  // expected-error @+1 {{'seq.lstm' op kernel rows (10) must equal input features (12)}}
  %0 = seq.lstm %x, %k, %r activation(tanh, sigmoid) : (tensor<?x5x12xf32>, tensor<10x16xf32>, tensor<4x16xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @lstm_kernel_columns(%x: tensor<?x5x12xf32>, %k: tensor<12x12xf32>, %r: tensor<4x16xf32>) {
  // expected-error @+1 {{'seq.lstm' op kernel columns (12) must equal 4 x units (16)}}
  %0 = seq.lstm %x, %k, %r activation(tanh, sigmoid) : (tensor<?x5x12xf32>, tensor<12x12xf32>, tensor<4x16xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @lstm_kernel_rank(%x: tensor<?x5x12xf32>, %k: tensor<12x16x1xf32>, %r: tensor<4x16xf32>) {
  // expected-error @+1 {{'seq.lstm' op kernel must have rank 2, got 'tensor<12x16x1xf32>'}}
  %0 = seq.lstm %x, %k, %r activation(tanh, sigmoid) : (tensor<?x5x12xf32>, tensor<12x16x1xf32>, tensor<4x16xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @lstm_bias(%x: tensor<?x5x12xf32>, %k: tensor<12x16xf32>, %r: tensor<4x16xf32>, %b: tensor<12xf32>) {
  // expected-error @+1 {{'seq.lstm' op bias size (12) must equal 4 x units (16)}}
  %0 = seq.lstm %x, %k, %r, %b activation(tanh, sigmoid) : (tensor<?x5x12xf32>, tensor<12x16xf32>, tensor<4x16xf32>, tensor<12xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @lstm_sequences(%x: tensor<?x5x12xf32>, %k: tensor<12x16xf32>, %r: tensor<4x16xf32>) {
  // expected-error @+1 {{'seq.lstm' op result shape (?, 4) does not match the expected (?, 5, 4)}}
  %0 = seq.lstm %x, %k, %r activation(tanh, sigmoid) {return_sequences} : (tensor<?x5x12xf32>, tensor<12x16xf32>, tensor<4x16xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gru_bias(%x: tensor<?x5x12xf32>, %k: tensor<12x12xf32>, %r: tensor<4x12xf32>, %b: tensor<2x12xf32>) {
  // expected-error @+1 {{'seq.gru' op bias must have rank 1, got 'tensor<2x12xf32>'}}
  %0 = seq.gru %x, %k, %r, %b activation(tanh, sigmoid) : (tensor<?x5x12xf32>, tensor<12x12xf32>, tensor<4x12xf32>, tensor<2x12xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gru_reset_after_bias_rank(%x: tensor<?x5x12xf32>, %k: tensor<12x12xf32>, %r: tensor<4x12xf32>, %b: tensor<12xf32>) {
  // expected-error @+1 {{'seq.gru' op bias (reset_after) must have rank 2, got 'tensor<12xf32>'}}
  %0 = seq.gru %x, %k, %r, %b activation(tanh, sigmoid) {reset_after} : (tensor<?x5x12xf32>, tensor<12x12xf32>, tensor<4x12xf32>, tensor<12xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gru_reset_after_bias_rows(%x: tensor<?x5x12xf32>, %k: tensor<12x12xf32>, %r: tensor<4x12xf32>, %b: tensor<3x12xf32>) {
  // expected-error @+1 {{'seq.gru' op bias rows (3) must equal input + recurrent (2)}}
  %0 = seq.gru %x, %k, %r, %b activation(tanh, sigmoid) {reset_after} : (tensor<?x5x12xf32>, tensor<12x12xf32>, tensor<4x12xf32>, tensor<3x12xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gru_reset_after_bias_columns(%x: tensor<?x5x12xf32>, %k: tensor<12x12xf32>, %r: tensor<4x12xf32>, %b: tensor<2x8xf32>) {
  // expected-error @+1 {{'seq.gru' op bias columns (8) must equal 3 x units (12)}}
  %0 = seq.gru %x, %k, %r, %b activation(tanh, sigmoid) {reset_after} : (tensor<?x5x12xf32>, tensor<12x12xf32>, tensor<4x12xf32>, tensor<2x8xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @simple_rnn_bias(%x: tensor<?x5x12xf32>, %k: tensor<12x4xf32>, %r: tensor<4x4xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{'seq.simple_rnn' op bias size (5) must equal units (4)}}
  %0 = seq.simple_rnn %x, %k, %r, %b activation(tanh) : (tensor<?x5x12xf32>, tensor<12x4xf32>, tensor<4x4xf32>, tensor<5xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @lstm_recurrence_projection(%p: tensor<?x5x12xf32>, %r: tensor<4x16xf32>) {
  // expected-error @+1 {{'seq.lstm_recurrence' op input_projection features (12) must equal 4 x units (16)}}
  %0 = seq.lstm_recurrence %p, %r activation(tanh, sigmoid) : (tensor<?x5x12xf32>, tensor<4x16xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gru_recurrence_projection(%p: tensor<?x5x16xf32>, %r: tensor<4x12xf32>) {
  // expected-error @+1 {{'seq.gru_recurrence' op input_projection features (16) must equal 3 x units (12)}}
  %0 = seq.gru_recurrence %p, %r activation(tanh, sigmoid) : (tensor<?x5x16xf32>, tensor<4x12xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gru_recurrence_missing_bias(%p: tensor<?x5x12xf32>, %r: tensor<4x12xf32>) {
  // expected-error @+1 {{'seq.gru_recurrence' op with reset_after needs a recurrent_bias}}
  %0 = seq.gru_recurrence %p, %r activation(tanh, sigmoid) {reset_after} : (tensor<?x5x12xf32>, tensor<4x12xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gru_recurrence_extra_bias(%p: tensor<?x5x12xf32>, %r: tensor<4x12xf32>, %b: tensor<12xf32>) {
  // expected-error @+1 {{'seq.gru_recurrence' op has a recurrent_bias only with reset_after}}
  %0 = seq.gru_recurrence %p, %r, %b activation(tanh, sigmoid) : (tensor<?x5x12xf32>, tensor<4x12xf32>, tensor<12xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @gru_recurrence_bias_size(%p: tensor<?x5x12xf32>, %r: tensor<4x12xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'seq.gru_recurrence' op recurrent_bias size (8) must equal 3 x units (12)}}
  %0 = seq.gru_recurrence %p, %r, %b activation(tanh, sigmoid) {reset_after} : (tensor<?x5x12xf32>, tensor<4x12xf32>, tensor<8xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @simple_rnn_recurrence_projection(%p: tensor<?x5x3xf32>, %r: tensor<4x4xf32>) {
  // expected-error @+1 {{'seq.simple_rnn_recurrence' op input_projection features (3) must equal units (4)}}
  %0 = seq.simple_rnn_recurrence %p, %r activation(tanh) : (tensor<?x5x3xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @bidirectional_rank(%f: tensor<4xf32>) {
  // expected-error @+1 {{'seq.bidirectional' op forward must have rank 2 or 3, got 'tensor<4xf32>'}}
  %0 = seq.bidirectional concat %f, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @bidirectional_backward_rank(%f: tensor<?x4xf32>, %b: tensor<?x5x4xf32>) {
  // expected-error @+1 {{'seq.bidirectional' op backward must have rank 2, got 'tensor<?x5x4xf32>'}}
  %0 = seq.bidirectional concat %f, %b : (tensor<?x4xf32>, tensor<?x5x4xf32>) -> tensor<?x8xf32>
  return
}

// -----

func.func @bidirectional_time(%f: tensor<?x5x4xf32>, %b: tensor<?x6x4xf32>) {
  // expected-error @+1 {{'seq.bidirectional' op backward dimension 1 (6) must equal forward dimension 1 (5)}}
  %0 = seq.bidirectional concat %f, %b : (tensor<?x5x4xf32>, tensor<?x6x4xf32>) -> tensor<?x5x8xf32>
  return
}

// -----

func.func @bidirectional_units(%f: tensor<?x4xf32>, %b: tensor<?x3xf32>) {
  // expected-error @+1 {{'seq.bidirectional' op backward units (3) must equal forward units (4)}}
  %0 = seq.bidirectional sum %f, %b : (tensor<?x4xf32>, tensor<?x3xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @bidirectional_concat_result(%f: tensor<?x4xf32>, %b: tensor<?x3xf32>) {
  // expected-error @+1 {{'seq.bidirectional' op result shape (?, 4) does not match the expected (?, 7)}}
  %0 = seq.bidirectional concat %f, %b : (tensor<?x4xf32>, tensor<?x3xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @time_distributed_rank(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'seq.time_distributed' op input must have rank >= 3, got 'tensor<?x4xf32>'}}
  %0 = seq.time_distributed %x : tensor<?x4xf32> -> tensor<?x4xf32> {
  ^bb0(%s: tensor<?xf32>):
    seq.yield %s : tensor<?xf32>
  }
  return
}

// -----

func.func @time_distributed_argument(%x: tensor<?x7x4xf32>) {
  // expected-error @+1 {{'seq.time_distributed' op body must take one argument of type 'tensor<?x4xf32>' (one timestep of the input)}}
  %0 = seq.time_distributed %x : tensor<?x7x4xf32> -> tensor<?x7x4xf32> {
  ^bb0(%s: tensor<?x7x4xf32>):
    seq.yield %s : tensor<?x7x4xf32>
  }
  return
}

// -----

func.func @time_distributed_result(%x: tensor<?x7x4xf32>) {
  // expected-error @+1 {{'seq.time_distributed' op result shape (?, 7, 5) does not match the expected (?, 7, 4)}}
  %0 = seq.time_distributed %x : tensor<?x7x4xf32> -> tensor<?x7x5xf32> {
  ^bb0(%s: tensor<?x4xf32>):
    seq.yield %s : tensor<?x4xf32>
  }
  return
}

// -----

func.func @time_distributed_terminator(%x: tensor<?x7x4xf32>) {
  // expected-error @+1 {{'seq.time_distributed' op body must end with seq.yield}}
  %0 = "seq.time_distributed"(%x) ({
  ^bb0(%s: tensor<?x4xf32>):
    "func.return"() : () -> ()
  }) : (tensor<?x7x4xf32>) -> tensor<?x7x4xf32>
  return
}

// -----

func.func @time_distributed_scalar(%x: tensor<?x7x4xf32>, %c: tensor<f32>) {
  // expected-error @+1 {{'seq.time_distributed' op body must yield a tensor with a batch axis}}
  %0 = seq.time_distributed %x : tensor<?x7x4xf32> -> tensor<?x7xf32> {
  ^bb0(%s: tensor<?x4xf32>):
    seq.yield %c : tensor<f32>
  }
  return
}

// -----

func.func @yield_outside(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'seq.yield' op expects parent op 'seq.time_distributed'}}
  seq.yield %x : tensor<?x4xf32>
}

// -----

func.func @conv_rank(%x: tensor<?x9x4xf32>, %k: tensor<3x4xf32>) {
  // expected-error @+1 {{'seq.conv1d' op kernel must have rank 3, got 'tensor<3x4xf32>'}}
  %0 = seq.conv1d %x, %k padding(valid) activation(linear) {dilation_rate = 1 : i64, strides = 1 : i64} : (tensor<?x9x4xf32>, tensor<3x4xf32>) -> tensor<?x7x6xf32>
  return
}

// -----

func.func @conv_channels(%x: tensor<?x9x4xf32>, %k: tensor<3x5x6xf32>) {
  // expected-error @+1 {{'seq.conv1d' op kernel input channels (5) must equal input channels (4)}}
  %0 = seq.conv1d %x, %k padding(valid) activation(linear) {dilation_rate = 1 : i64, strides = 1 : i64} : (tensor<?x9x4xf32>, tensor<3x5x6xf32>) -> tensor<?x7x6xf32>
  return
}

// -----

func.func @conv_bias(%x: tensor<?x9x4xf32>, %k: tensor<3x4x6xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'seq.conv1d' op bias size (4) must equal kernel filters (6)}}
  %0 = seq.conv1d %x, %k, %b padding(valid) activation(linear) {dilation_rate = 1 : i64, strides = 1 : i64} : (tensor<?x9x4xf32>, tensor<3x4x6xf32>, tensor<4xf32>) -> tensor<?x7x6xf32>
  return
}

// -----

func.func @conv_length(%x: tensor<?x9x4xf32>, %k: tensor<3x4x6xf32>) {
  // expected-error @+1 {{'seq.conv1d' op result shape (?, 9, 6) does not match the expected (?, 4, 6)}}
  %0 = seq.conv1d %x, %k padding(valid) activation(linear) {dilation_rate = 1 : i64, strides = 2 : i64} : (tensor<?x9x4xf32>, tensor<3x4x6xf32>) -> tensor<?x9x6xf32>
  return
}

// -----

func.func @conv_span(%x: tensor<?x3x4xf32>, %k: tensor<3x4x6xf32>) {
  // expected-error @+1 {{'seq.conv1d' op kernel span is longer than the 3 timesteps}}
  %0 = seq.conv1d %x, %k padding(valid) activation(linear) {dilation_rate = 2 : i64, strides = 1 : i64} : (tensor<?x3x4xf32>, tensor<3x4x6xf32>) -> tensor<?x1x6xf32>
  return
}

// -----

func.func @conv_strides(%x: tensor<?x9x4xf32>, %k: tensor<3x4x6xf32>) {
  // expected-error @+1 {{'seq.conv1d' op attribute 'strides' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = seq.conv1d %x, %k padding(valid) activation(linear) {dilation_rate = 1 : i64, strides = 0 : i64} : (tensor<?x9x4xf32>, tensor<3x4x6xf32>) -> tensor<?x7x6xf32>
  return
}

// -----

func.func @conv_alpha(%x: tensor<?x9x4xf32>, %k: tensor<3x4x6xf32>) {
  // expected-error @+1 {{'seq.conv1d' op activation 'elu' needs an 'alpha' attribute}}
  %0 = seq.conv1d %x, %k padding(valid) activation(elu) {dilation_rate = 1 : i64, strides = 1 : i64} : (tensor<?x9x4xf32>, tensor<3x4x6xf32>) -> tensor<?x7x6xf32>
  return
}

// -----

func.func @pool_causal(%x: tensor<?x9x4xf32>) {
  // expected-error @+1 {{'seq.max_pool1d' op padding 'causal' is only valid for conv1d}}
  %0 = seq.max_pool1d %x padding(causal) {pool_size = 2 : i64, strides = 2 : i64} : tensor<?x9x4xf32> -> tensor<?x5x4xf32>
  return
}

// -----

func.func @pool_size(%x: tensor<?x3x4xf32>) {
  // expected-error @+1 {{'seq.avg_pool1d' op pool_size 4 is larger than the 3 timesteps}}
  %0 = seq.avg_pool1d %x padding(valid) {pool_size = 4 : i64, strides = 1 : i64} : tensor<?x3x4xf32> -> tensor<?x1x4xf32>
  return
}

// -----

func.func @pool_rank(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'seq.max_pool1d' op input must have rank 3, got 'tensor<?x4xf32>'}}
  %0 = seq.max_pool1d %x padding(valid) {pool_size = 2 : i64, strides = 2 : i64} : tensor<?x4xf32> -> tensor<?x2xf32>
  return
}

// -----

func.func @pool_result(%x: tensor<?x9x4xf32>) {
  // expected-error @+1 {{'seq.max_pool1d' op result shape (?, 5, 4) does not match the expected (?, 4, 4)}}
  %0 = seq.max_pool1d %x padding(valid) {pool_size = 2 : i64, strides = 2 : i64} : tensor<?x9x4xf32> -> tensor<?x5x4xf32>
  return
}

// -----

func.func @global_pool_rank(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'seq.global_avg_pool1d' op input must have rank 3, got 'tensor<?x4xf32>'}}
  %0 = seq.global_avg_pool1d %x : tensor<?x4xf32> -> tensor<?xf32>
  return
}

// -----

func.func @global_pool_keepdims(%x: tensor<?x9x4xf32>) {
  // expected-error @+1 {{'seq.global_max_pool1d' op result shape (?, 4) does not match the expected (?, 1, 4)}}
  %0 = seq.global_max_pool1d %x {keepdims} : tensor<?x9x4xf32> -> tensor<?x4xf32>
  return
}

// -----

func.func @batch_norm_gamma(%x: tensor<?x4xf32>, %p: tensor<4xf32>, %q: tensor<5xf32>) {
  // expected-error @+1 {{'seq.batch_norm' op gamma size (5) must equal channels (4)}}
  %0 = seq.batch_norm %x, %q, %p, %p, %p {epsilon = 1.0e-3 : f32} : (tensor<?x4xf32>, tensor<5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @batch_norm_variance(%x: tensor<?x4xf32>, %p: tensor<4xf32>, %q: tensor<5xf32>) {
  // expected-error @+1 {{'seq.batch_norm' op moving_variance size (5) must equal channels (4)}}
  %0 = seq.batch_norm %x, %p, %p, %p, %q {epsilon = 1.0e-3 : f32} : (tensor<?x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<5xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @batch_norm_epsilon(%x: tensor<?x4xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{'seq.batch_norm' op epsilon must be non-negative, got -1}}
  %0 = seq.batch_norm %x, %p, %p, %p, %p {epsilon = -1.0 : f32} : (tensor<?x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @batch_norm_rank(%x: tensor<4xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{'seq.batch_norm' op input must have rank >= 2, got 'tensor<4xf32>'}}
  %0 = seq.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-3 : f32} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @batch_norm_type(%x: tensor<?x4xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{'seq.batch_norm' op failed to verify that all of {input, output} have same type}}
  %0 = seq.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-3 : f32} : (tensor<?x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @layer_norm_beta(%x: tensor<?x4xf32>, %p: tensor<4xf32>, %q: tensor<3xf32>) {
  // expected-error @+1 {{'seq.layer_norm' op beta size (3) must equal channels (4)}}
  %0 = seq.layer_norm %x, %p, %q {epsilon = 1.0e-3 : f32} : (tensor<?x4xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @layer_norm_epsilon(%x: tensor<?x4xf32>, %p: tensor<4xf32>) {
  // expected-error @+1 {{'seq.layer_norm' op epsilon must be positive, got -1}}
  %0 = seq.layer_norm %x, %p, %p {epsilon = -1.0 : f32} : (tensor<?x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @dropout_rate(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'seq.dropout' op rate must be in [0, 1), got 1.5}}
  %0 = seq.dropout %x {rate = 1.5 : f32} : tensor<?x4xf32>
  return
}

// -----

func.func @embedding_ids(%ids: tensor<?x6xindex>, %t: tensor<10x4xf32>) {
  // expected-error @+1 {{'seq.embedding' op ids must hold integers or floats, got 'tensor<?x6xindex>'}}
  %0 = seq.embedding %ids, %t : (tensor<?x6xindex>, tensor<10x4xf32>) -> tensor<?x6x4xf32>
  return
}

// -----

func.func @embedding_table(%ids: tensor<?x6xi32>, %t: tensor<10xf32>) {
  // expected-error @+1 {{'seq.embedding' op table must have rank 2, got 'tensor<10xf32>'}}
  %0 = seq.embedding %ids, %t : (tensor<?x6xi32>, tensor<10xf32>) -> tensor<?x6x4xf32>
  return
}

// -----

func.func @embedding_result(%ids: tensor<?x6xi32>, %t: tensor<10x4xf32>) {
  // expected-error @+1 {{'seq.embedding' op result shape (?, 6, 5) does not match the expected (?, 6, 4)}}
  %0 = seq.embedding %ids, %t : (tensor<?x6xi32>, tensor<10x4xf32>) -> tensor<?x6x5xf32>
  return
}

// -----

func.func @flatten_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{'seq.flatten' op input must have rank >= 2, got 'tensor<4xf32>'}}
  %0 = seq.flatten %x : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @flatten_result(%x: tensor<?x6x4xf32>) {
  // expected-error @+1 {{'seq.flatten' op result shape (?, 20) does not match the expected (?, 24)}}
  %0 = seq.flatten %x : tensor<?x6x4xf32> -> tensor<?x20xf32>
  return
}

// -----

func.func @reshape_two_inferred(%x: tensor<?x6x4xf32>) {
  // expected-error @+1 {{'seq.reshape' op target_shape may hold at most one -1}}
  %0 = seq.reshape %x [-1, -1] : tensor<?x6x4xf32> -> tensor<?x12x2xf32>
  return
}

// -----

func.func @reshape_nonpositive(%x: tensor<?x6x4xf32>) {
  // expected-error @+1 {{'seq.reshape' op target_shape sizes must be positive or -1, got 0}}
  %0 = seq.reshape %x [0, 24] : tensor<?x6x4xf32> -> tensor<?x0x24xf32>
  return
}

// -----

func.func @reshape_size(%x: tensor<?x6x4xf32>) {
  // expected-error @+1 {{'seq.reshape' op cannot reshape (6, 4) (24 values per sample) into (5, -1)}}
  %0 = seq.reshape %x [5, -1] : tensor<?x6x4xf32> -> tensor<?x5x5xf32>
  return
}

// -----

func.func @reshape_result(%x: tensor<?x6x4xf32>) {
  // expected-error @+1 {{'seq.reshape' op result shape (?, 8, 3) does not match the expected (?, 3, 8)}}
  %0 = seq.reshape %x [3, 8] : tensor<?x6x4xf32> -> tensor<?x8x3xf32>
  return
}

// -----

func.func @reshape_rank(%x: tensor<24xf32>) {
  // expected-error @+1 {{'seq.reshape' op input must have rank >= 2, got 'tensor<24xf32>'}}
  %0 = seq.reshape %x [3, 8] : tensor<24xf32> -> tensor<3x8xf32>
  return
}

// -----

func.func @repeat_rank(%x: tensor<?x3x4xf32>) {
  // expected-error @+1 {{'seq.repeat_vector' op input must have rank 2, got 'tensor<?x3x4xf32>'}}
  %0 = seq.repeat_vector %x {n = 5 : i64} : tensor<?x3x4xf32> -> tensor<?x5x4xf32>
  return
}

// -----

func.func @repeat_result(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'seq.repeat_vector' op result shape (?, 4, 4) does not match the expected (?, 5, 4)}}
  %0 = seq.repeat_vector %x {n = 5 : i64} : tensor<?x4xf32> -> tensor<?x4x4xf32>
  return
}

// -----

func.func @activation_alpha(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'seq.activation' op activation 'leaky_relu' needs an 'alpha' attribute}}
  %0 = seq.activation leaky_relu %x : tensor<?x4xf32>
  return
}

// -----

// expected-error @+1 {{'seq.metadata' must be a dictionary}}
module attributes {seq.metadata = "v1"} {}

// -----

// expected-error @+1 {{'seq.metadata' entry 'version' must be a string}}
module attributes {seq.metadata = {version = 3 : i64}} {}

// -----

// expected-error @+1 {{unknown seq dialect attribute 'seq.meta'}}
module attributes {seq.meta = {}} {}

// -----

// expected-error @+1 {{'seq.metadata' must be attached to a builtin.module}}
func.func @metadata_on_func() attributes {seq.metadata = {}} {
  return
}

// -----

func.func @activation_axis_not_softmax(%x: tensor<?x4x6xf32>) {
  // expected-error @+1 {{'seq.activation' op 'axis' is only meaningful for softmax and log_softmax, not 'relu'}}
  %0 = seq.activation relu %x {axis = 1 : i64} : tensor<?x4x6xf32>
  return
}

// -----

func.func @activation_axis_batch(%x: tensor<?x4x6xf32>) {
  // expected-error @+1 {{'seq.activation' op axis 0 is not a non-batch axis of a rank-3 input}}
  %0 = seq.activation softmax %x {axis = 0 : i64} : tensor<?x4x6xf32>
  return
}

// -----

func.func @activation_axis_past_rank(%x: tensor<?x4x6xf32>) {
  // expected-error @+1 {{'seq.activation' op axis 3 is not a non-batch axis of a rank-3 input}}
  %0 = seq.activation log_softmax %x {axis = 3 : i64} : tensor<?x4x6xf32>
  return
}

// -----

func.func @celu_alpha(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'seq.activation' op activation 'celu' needs an 'alpha' attribute}}
  %0 = seq.activation celu %x : tensor<?x4xf32>
  return
}

// -----

func.func @relu_negative_max(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'seq.relu' op max_value must be >= 0, got -1}}
  %0 = seq.relu %x {max_value = -1.0 : f32, negative_slope = 0.0 : f32, threshold = 0.0 : f32} : tensor<?x4xf32>
  return
}

// -----

func.func @clip_empty(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'seq.clip' op min must be at most max, got 1.000000e+00 and 5.000000e-01}}
  %0 = seq.clip %x {max = 0.5 : f32, min = 1.0 : f32} : tensor<?x4xf32>
  return
}

// -----

func.func @prelu_rank(%x: tensor<?x4x6xf32>, %a: tensor<6xf32>) {
  // expected-error @+1 {{'seq.prelu' op alpha must have rank 2, got 'tensor<6xf32>'}}
  %0 = seq.prelu %x, %a : tensor<?x4x6xf32>, tensor<6xf32>
  return
}

// -----

func.func @prelu_shape(%x: tensor<?x?x6xf32>, %a: tensor<4x6xf32>) {
  // expected-error @+1 {{'seq.prelu' op alpha axis 0 has size 4 but input axis 1 has size ? (alpha's axes are the input's or 1 where shared)}}
  %0 = seq.prelu %x, %a : tensor<?x?x6xf32>, tensor<4x6xf32>
  return
}

// -----

func.func @conv2d_rank(%x: tensor<?x8x4xf32>, %k: tensor<3x3x4x6xf32>) {
  // expected-error @+1 {{'seq.conv2d' op input must have rank 4, got 'tensor<?x8x4xf32>'}}
  %0 = seq.conv2d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<?x6x6xf32>
  return
}

// -----

func.func @conv3d_kernel_rank(%x: tensor<?x4x4x4x2xf32>, %k: tensor<2x2x2x3xf32>) {
  // expected-error @+1 {{'seq.conv3d' op kernel must have rank 5, got 'tensor<2x2x2x3xf32>'}}
  %0 = seq.conv3d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1, 1>, strides = array<i64: 1, 1, 1>} : (tensor<?x4x4x4x2xf32>, tensor<2x2x2x3xf32>) -> tensor<?x3x3x3x3xf32>
  return
}

// -----

func.func @conv2d_strides_count(%x: tensor<?x8x8x4xf32>, %k: tensor<3x3x4x6xf32>) {
  // expected-error @+1 {{'seq.conv2d' op strides must hold 2 sizes (one per spatial axis), got 1}}
  %0 = seq.conv2d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1>} : (tensor<?x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<?x6x6x6xf32>
  return
}

// -----

func.func @conv2d_dilation_positive(%x: tensor<?x8x8x4xf32>, %k: tensor<3x3x4x6xf32>) {
  // expected-error @+1 {{'seq.conv2d' op dilation_rate must be positive, got 0}}
  %0 = seq.conv2d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 0>, strides = array<i64: 1, 1>} : (tensor<?x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<?x6x6x6xf32>
  return
}

// -----

func.func @conv2d_causal(%x: tensor<?x8x8x4xf32>, %k: tensor<3x3x4x6xf32>) {
  // expected-error @+1 {{'seq.conv2d' op padding 'causal' is only valid for conv1d}}
  %0 = seq.conv2d %x, %k padding(causal) activation(linear) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<?x8x8x6xf32>
  return
}

// -----

func.func @conv2d_groups_channels(%x: tensor<?x8x8x4xf32>, %k: tensor<3x3x4x6xf32>) {
  // expected-error @+1 {{'seq.conv2d' op kernel input channels x groups (8) must equal input channels (4)}}
  %0 = seq.conv2d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, groups = 2 : i64, strides = array<i64: 1, 1>} : (tensor<?x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<?x6x6x6xf32>
  return
}

// -----

func.func @conv2d_groups_filters(%x: tensor<?x8x8x4xf32>, %k: tensor<3x3x2x5xf32>) {
  // expected-error @+1 {{'seq.conv2d' op kernel filters (5) must be a multiple of groups (2)}}
  %0 = seq.conv2d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, groups = 2 : i64, strides = array<i64: 1, 1>} : (tensor<?x8x8x4xf32>, tensor<3x3x2x5xf32>) -> tensor<?x6x6x5xf32>
  return
}

// -----

func.func @conv2d_groups_positive(%x: tensor<?x8x8x4xf32>, %k: tensor<3x3x4x6xf32>) {
  // expected-error @+1 {{'seq.conv2d' op attribute 'groups' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = seq.conv2d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, groups = 0 : i64, strides = array<i64: 1, 1>} : (tensor<?x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<?x6x6x6xf32>
  return
}

// -----

func.func @conv2d_bias(%x: tensor<?x8x8x4xf32>, %k: tensor<3x3x4x6xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{'seq.conv2d' op bias size (5) must equal kernel filters (6)}}
  %0 = seq.conv2d %x, %k, %b padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x8x8x4xf32>, tensor<3x3x4x6xf32>, tensor<5xf32>) -> tensor<?x6x6x6xf32>
  return
}

// -----

func.func @conv2d_alpha(%x: tensor<?x8x8x4xf32>, %k: tensor<3x3x4x6xf32>) {
  // expected-error @+1 {{'seq.conv2d' op activation 'leaky_relu' needs an 'alpha' attribute}}
  %0 = seq.conv2d %x, %k padding(valid) activation(leaky_relu) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<?x6x6x6xf32>
  return
}

// -----

func.func @conv2d_span(%x: tensor<?x8x2x4xf32>, %k: tensor<3x3x4x6xf32>) {
  // expected-error @+1 {{'seq.conv2d' op kernel span along spatial axis 1 is longer than the input's 2}}
  %0 = seq.conv2d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x8x2x4xf32>, tensor<3x3x4x6xf32>) -> tensor<?x6x1x6xf32>
  return
}

// -----

func.func @conv2d_result(%x: tensor<?x8x8x4xf32>, %k: tensor<3x3x4x6xf32>) {
  // expected-error @+1 {{'seq.conv2d' op result shape (?, 8, 8, 6) does not match the expected (?, 4, 4, 6)}}
  %0 = seq.conv2d %x, %k padding(same) activation(linear) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x8x8x4xf32>, tensor<3x3x4x6xf32>) -> tensor<?x8x8x6xf32>
  return
}

// -----

func.func @pool2d_rank(%x: tensor<?x8x4xf32>) {
  // expected-error @+1 {{'seq.max_pool2d' op input must have rank 4, got 'tensor<?x8x4xf32>'}}
  %0 = seq.max_pool2d %x padding(valid) {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<?x8x4xf32> -> tensor<?x4x4xf32>
  return
}

// -----

func.func @pool3d_size_count(%x: tensor<?x4x4x4x2xf32>) {
  // expected-error @+1 {{'seq.avg_pool3d' op pool_size must hold 3 sizes (one per spatial axis), got 2}}
  %0 = seq.avg_pool3d %x padding(valid) {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2, 2>} : tensor<?x4x4x4x2xf32> -> tensor<?x2x2x2x2xf32>
  return
}

// -----

func.func @pool2d_causal(%x: tensor<?x8x8x4xf32>) {
  // expected-error @+1 {{'seq.avg_pool2d' op padding 'causal' is only valid for conv1d}}
  %0 = seq.avg_pool2d %x padding(causal) {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<?x8x8x4xf32> -> tensor<?x4x4x4xf32>
  return
}

// -----

func.func @pool2d_window(%x: tensor<?x8x1x4xf32>) {
  // expected-error @+1 {{'seq.max_pool2d' op pool_size along spatial axis 1 is longer than the input's 1}}
  %0 = seq.max_pool2d %x padding(valid) {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<?x8x1x4xf32> -> tensor<?x4x1x4xf32>
  return
}

// -----

func.func @pool3d_result(%x: tensor<?x4x4x4x2xf32>) {
  // expected-error @+1 {{'seq.max_pool3d' op result shape (?, 2, 2, 3, 2) does not match the expected (?, 2, 2, 2, 2)}}
  %0 = seq.max_pool3d %x padding(valid) {pool_size = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>} : tensor<?x4x4x4x2xf32> -> tensor<?x2x2x3x2xf32>
  return
}

// -----

func.func @global_pool2d_rank(%x: tensor<?x8x4xf32>) {
  // expected-error @+1 {{'seq.global_max_pool2d' op input must have rank 4, got 'tensor<?x8x4xf32>'}}
  %0 = seq.global_max_pool2d %x : tensor<?x8x4xf32> -> tensor<?x4xf32>
  return
}

// -----

func.func @global_pool3d_keepdims(%x: tensor<?x4x4x4x2xf32>) {
  // expected-error @+1 {{'seq.global_avg_pool3d' op result shape (?, 1, 2) does not match the expected (?, 1, 1, 1, 2)}}
  %0 = seq.global_avg_pool3d %x {keepdims} : tensor<?x4x4x4x2xf32> -> tensor<?x1x2xf32>
  return
}

// -----

func.func @zero_padding_count(%x: tensor<?x4x4x3xf32>) {
  // expected-error @+1 {{'seq.zero_padding' op low and high must hold one size per axis after the batch axis (3), got 2 and 3}}
  %0 = seq.zero_padding %x low [1, 1] high [1, 1, 0] : tensor<?x4x4x3xf32> -> tensor<?x6x6x3xf32>
  return
}

// -----

func.func @zero_padding_negative(%x: tensor<?x4x3xf32>) {
  // expected-error @+1 {{'seq.zero_padding' op low and high must be >= 0, got -1 and 0 on axis 1}}
  %0 = seq.zero_padding %x low [-1, 0] high [0, 0] : tensor<?x4x3xf32> -> tensor<?x3x3xf32>
  return
}

// -----

func.func @zero_padding_result(%x: tensor<?x4x3xf32>) {
  // expected-error @+1 {{'seq.zero_padding' op result shape (?, 4, 3) does not match the expected (?, 7, 3)}}
  %0 = seq.zero_padding %x low [1, 0] high [2, 0] : tensor<?x4x3xf32> -> tensor<?x4x3xf32>
  return
}

// -----

func.func @cropping_all(%x: tensor<?x4x3xf32>) {
  // expected-error @+1 {{'seq.cropping' op cropping 2 + 2 leaves nothing of axis 1 (size 4)}}
  %0 = seq.cropping %x low [2, 0] high [2, 0] : tensor<?x4x3xf32> -> tensor<?x0x3xf32>
  return
}

// -----

func.func @reverse_axis(%x: tensor<?x?x3xf32>) {
  // expected-error @+1 {{'seq.reverse' op axis 3 is not an axis after the batch axis of a rank-3 input}}
  %0 = seq.reverse %x axis 3 : tensor<?x?x3xf32>
  return
}

// -----

func.func @reverse_batch(%x: tensor<?x?x3xf32>) {
  // expected-error @+1 {{'seq.reverse' op attribute 'axis' failed to satisfy constraint}}
  %0 = seq.reverse %x axis 0 : tensor<?x?x3xf32>
  return
}

// -----

func.func @slice_counts(%x: tensor<?x?x3xf32>) {
  // expected-error @+1 {{'seq.slice' op starts and sizes must hold one value per axis after the batch axis (2), got 1 and 2}}
  %0 = seq.slice %x starts [0] sizes [1, 3] : tensor<?x?x3xf32> -> tensor<?x1x3xf32>
  return
}

// -----

func.func @slice_empty(%x: tensor<?x?x3xf32>) {
  // expected-error @+1 {{'seq.slice' op sizes must be >= 1, got 0 on axis 1}}
  %0 = seq.slice %x starts [0, 0] sizes [0, 3] : tensor<?x?x3xf32> -> tensor<?x0x3xf32>
  return
}

// -----

func.func @slice_past_end(%x: tensor<?x?x3xf32>) {
  // expected-error @+1 {{'seq.slice' op a window of 3 from -2 runs past the end of axis 1}}
  %0 = seq.slice %x starts [-2, 0] sizes [3, 3] : tensor<?x?x3xf32> -> tensor<?x3x3xf32>
  return
}

// -----

func.func @slice_short_axis(%x: tensor<?x4x3xf32>) {
  // expected-error @+1 {{'seq.slice' op the window from -5 of 1 needs 5 elements of axis 1 (size 4)}}
  %0 = seq.slice %x starts [-5, 0] sizes [1, 3] : tensor<?x4x3xf32> -> tensor<?x1x3xf32>
  return
}

// -----

func.func @slice_result(%x: tensor<?x?x3xf32>) {
  // expected-error @+1 {{'seq.slice' op result shape (?, 2, 3) does not match the expected (?, 1, 3)}}
  %0 = seq.slice %x starts [-1, 0] sizes [1, 3] : tensor<?x?x3xf32> -> tensor<?x2x3xf32>
  return
}

// -----

func.func @upsampling_count(%x: tensor<?x4x3xf32>) {
  // expected-error @+1 {{'seq.upsampling' op size must hold one factor per axis after the batch axis (2), got 1}}
  %0 = seq.upsampling nearest %x [2] : tensor<?x4x3xf32> -> tensor<?x8x3xf32>
  return
}

// -----

func.func @upsampling_positive(%x: tensor<?x4x3xf32>) {
  // expected-error @+1 {{'seq.upsampling' op size factors must be positive, got 0}}
  %0 = seq.upsampling nearest %x [0, 1] : tensor<?x4x3xf32> -> tensor<?x0x3xf32>
  return
}

// -----

func.func @upsampling_result(%x: tensor<?x4x3xf32>) {
  // expected-error @+1 {{'seq.upsampling' op result shape (?, 4, 3) does not match the expected (?, 8, 3)}}
  %0 = seq.upsampling bilinear %x [2, 1] : tensor<?x4x3xf32> -> tensor<?x4x3xf32>
  return
}

// -----

func.func @permute_dims(%x: tensor<?x4x5x3xf32>) {
  // expected-error @+1 {{'seq.permute' op dims must be a permutation of 1..3 (the axes after the batch axis), got (2, 2, 3)}}
  %0 = seq.permute %x [2, 2, 3] : tensor<?x4x5x3xf32> -> tensor<?x5x5x3xf32>
  return
}

// -----

func.func @permute_result(%x: tensor<?x4x5x3xf32>) {
  // expected-error @+1 {{'seq.permute' op result shape (?, 4, 5, 3) does not match the expected (?, 3, 4, 5)}}
  %0 = seq.permute %x [3, 1, 2] : tensor<?x4x5x3xf32> -> tensor<?x4x5x3xf32>
  return
}

// -----

func.func @mask_rank(%x: tensor<?x5x12xf32>, %k: tensor<12x16xf32>, %r: tensor<4x16xf32>, %m: tensor<?x5x1xf32>) {
  // expected-error @+1 {{'seq.lstm' op mask must have rank 2, got 'tensor<?x5x1xf32>'}}
  %0 = seq.lstm %x, %k, %r mask(%m) activation(tanh, sigmoid) : (tensor<?x5x12xf32>, tensor<12x16xf32>, tensor<4x16xf32>, tensor<?x5x1xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @mask_batch(%x: tensor<2x5x12xf32>, %k: tensor<12x4xf32>, %r: tensor<4x4xf32>, %m: tensor<3x5xf32>) {
  // expected-error @+1 {{'seq.simple_rnn' op mask batch (3) must equal input batch (2)}}
  %0 = seq.simple_rnn %x, %k, %r mask(%m) activation(tanh) : (tensor<2x5x12xf32>, tensor<12x4xf32>, tensor<4x4xf32>, tensor<3x5xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @mask_steps(%p: tensor<?x5x12xf32>, %r: tensor<4x12xf32>, %m: tensor<?x6xf32>) {
  // expected-error @+1 {{'seq.gru_recurrence' op mask steps (6) must equal input steps (5)}}
  %0 = seq.gru_recurrence %p, %r mask(%m) activation(tanh, sigmoid) : (tensor<?x5x12xf32>, tensor<4x12xf32>, tensor<?x6xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @zero_output_without_mask(%p: tensor<?x5x16xf32>, %r: tensor<4x16xf32>) {
  // expected-error @+1 {{'seq.lstm_recurrence' op has zero_output_for_mask but no mask}}
  %0 = seq.lstm_recurrence %p, %r activation(tanh, sigmoid) {zero_output_for_mask} : (tensor<?x5x16xf32>, tensor<4x16xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @initial_state_rank(%x: tensor<2x5x12xf32>, %k: tensor<12x16xf32>, %r: tensor<4x16xf32>, %s: tensor<2x4xf32>) {
  // expected-error @+1 {{'seq.lstm' op initial_state must have rank 3, got 'tensor<2x4xf32>'}}
  %0 = seq.lstm %x, %k, %r initial_state(%s) activation(tanh, sigmoid) : (tensor<2x5x12xf32>, tensor<12x16xf32>, tensor<4x16xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @initial_state_states(%x: tensor<2x5x12xf32>, %k: tensor<12x16xf32>, %r: tensor<4x16xf32>, %s: tensor<1x2x4xf32>) {
  // expected-error @+1 {{'seq.lstm' op initial_state states (1) must equal the cell's state count (2)}}
  %0 = seq.lstm %x, %k, %r initial_state(%s) activation(tanh, sigmoid) : (tensor<2x5x12xf32>, tensor<12x16xf32>, tensor<4x16xf32>, tensor<1x2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @initial_state_batch(%p: tensor<2x5x12xf32>, %r: tensor<4x12xf32>, %s: tensor<1x3x4xf32>) {
  // expected-error @+1 {{'seq.gru_recurrence' op initial_state batch (3) must equal input batch (2)}}
  %0 = seq.gru_recurrence %p, %r initial_state(%s) activation(tanh, sigmoid) : (tensor<2x5x12xf32>, tensor<4x12xf32>, tensor<1x3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @final_state_units(%p: tensor<2x5x4xf32>, %r: tensor<4x4xf32>, %s: tensor<1x2x4xf32>) {
  // expected-error @+1 {{'seq.simple_rnn_recurrence' op final_state units (5) must equal units (4)}}
  %0, %1 = seq.simple_rnn_recurrence %p, %r initial_state(%s) activation(tanh) : (tensor<2x5x4xf32>, tensor<4x4xf32>, tensor<1x2x4xf32>) -> (tensor<2x4xf32>, tensor<1x2x5xf32>)
  return
}

// -----

func.func @global_avg_pool_mask(%x: tensor<?x5x3xf32>, %m: tensor<?x4xf32>) {
  // expected-error @+1 {{'seq.global_avg_pool1d' op mask steps (4) must equal input steps (5)}}
  %0 = seq.global_avg_pool1d %x mask(%m : tensor<?x4xf32>) : tensor<?x5x3xf32> -> tensor<?x3xf32>
  return
}

// -----

func.func @sequence_mask_element(%x: tensor<?x5xindex>) {
  // expected-error @+1 {{'seq.sequence_mask' op input must hold integers or floats, got 'tensor<?x5xindex>'}}
  %0 = seq.sequence_mask %x {mask_value = 0.0 : f32} : tensor<?x5xindex> -> tensor<?x5xf32>
  return
}

// -----

func.func @sequence_mask_rank(%x: tensor<?x5x3x2xf32>) {
  // expected-error @+1 {{'seq.sequence_mask' op input must be (batch, time) ids or (batch, time, features), got 'tensor<?x5x3x2xf32>'}}
  %0 = seq.sequence_mask %x {mask_value = 0.0 : f32} : tensor<?x5x3x2xf32> -> tensor<?x5xf32>
  return
}

// -----

func.func @sequence_mask_result(%x: tensor<?x5x3xf32>) {
  // expected-error @+1 {{'seq.sequence_mask' op result shape (?, 5, 3) does not match the expected (?, 5)}}
  %0 = seq.sequence_mask %x {mask_value = 0.0 : f32} : tensor<?x5x3xf32> -> tensor<?x5x3xf32>
  return
}

// -----

func.func @apply_mask_rank(%x: tensor<?x5xf32>, %m: tensor<?x5xf32>) {
  // expected-error @+1 {{'seq.apply_mask' op input must have rank >= 3, got 'tensor<?x5xf32>'}}
  %0 = seq.apply_mask %x, %m : tensor<?x5xf32>, tensor<?x5xf32>
  return
}

// -----

func.func @merge_one_input(%a: tensor<?x3xf32>) {
  // expected-error @+1 {{'seq.merge' op needs at least two inputs, got 1}}
  %0 = seq.merge add %a : tensor<?x3xf32> -> tensor<?x3xf32>
  return
}

// -----

func.func @subtract_three(%a: tensor<?x3xf32>) {
  // expected-error @+1 {{'seq.merge' op subtract takes exactly two inputs, got 3}}
  %0 = seq.merge subtract %a, %a, %a : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  return
}

// -----

func.func @merge_rank(%a: tensor<?x3xf32>, %b: tensor<?x3x1xf32>) {
  // expected-error @+1 {{'seq.merge' op input 1 must have rank 2, got 'tensor<?x3x1xf32>'}}
  %0 = seq.merge maximum %a, %b : tensor<?x3xf32>, tensor<?x3x1xf32> -> tensor<?x3xf32>
  return
}

// -----

func.func @merge_shape(%a: tensor<?x3xf32>, %b: tensor<?x4xf32>) {
  // expected-error @+1 {{'seq.merge' op input 1 axis 1 (4) must equal the other inputs' axis 1 or 1 (3)}}
  %0 = seq.merge add %a, %b : tensor<?x3xf32>, tensor<?x4xf32> -> tensor<?x3xf32>
  return
}

// -----

func.func @merge_broadcast_result(%a: tensor<?x5x3xf32>, %b: tensor<?x1x3xf32>) {
  // expected-error @+1 {{'seq.merge' op result shape (?, 1, 3) does not match the expected (?, 5, 3)}}
  %0 = seq.merge add %a, %b : tensor<?x5x3xf32>, tensor<?x1x3xf32> -> tensor<?x1x3xf32>
  return
}

// -----

func.func @concatenate_one_input(%a: tensor<?x3xf32>) {
  // expected-error @+1 {{'seq.concatenate' op needs at least two inputs, got 1}}
  %0 = seq.concatenate %a {axis = 1 : i64} : tensor<?x3xf32> -> tensor<?x3xf32>
  return
}

// -----

func.func @concatenate_axis(%a: tensor<?x3xf32>) {
  // expected-error @+1 {{'seq.concatenate' op axis 2 is not a non-batch axis of rank 2 inputs}}
  %0 = seq.concatenate %a, %a {axis = 2 : i64} : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x6xf32>
  return
}

// -----

func.func @concatenate_batch_axis(%a: tensor<?x3xf32>) {
  // expected-error @+1 {{'seq.concatenate' op attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = seq.concatenate %a, %a {axis = 0 : i64} : tensor<?x3xf32>, tensor<?x3xf32> -> tensor<?x3xf32>
  return
}

// -----

func.func @concatenate_rank(%a: tensor<?x5x3xf32>, %b: tensor<?x5xf32>) {
  // expected-error @+1 {{'seq.concatenate' op input 1 must have rank 3, got 'tensor<?x5xf32>'}}
  %0 = seq.concatenate %a, %b {axis = 2 : i64} : tensor<?x5x3xf32>, tensor<?x5xf32> -> tensor<?x5x4xf32>
  return
}

// -----

func.func @concatenate_off_axis(%a: tensor<?x5x3xf32>, %b: tensor<?x6x2xf32>) {
  // expected-error @+1 {{'seq.concatenate' op input 1 axis 1 (6) must equal input 0 axis 1 (5)}}
  %0 = seq.concatenate %a, %b {axis = 2 : i64} : tensor<?x5x3xf32>, tensor<?x6x2xf32> -> tensor<?x5x5xf32>
  return
}

// -----

func.func @concatenate_result(%a: tensor<?x5x3xf32>, %b: tensor<?x5x2xf32>) {
  // expected-error @+1 {{'seq.concatenate' op result shape (?, 5, 6) does not match the expected (?, 5, 5)}}
  %0 = seq.concatenate %a, %b {axis = 2 : i64} : tensor<?x5x3xf32>, tensor<?x5x2xf32> -> tensor<?x5x6xf32>
  return
}
// -----

func.func @conv_transpose2d_input_rank(%x: tensor<?x4x4xf32>, %k: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'seq.conv_transpose2d' op input must have rank 4, got 'tensor<?x4x4xf32>'}}
  %0 = seq.conv_transpose2d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x4x4xf32>, tensor<3x3x2x4xf32>) -> tensor<?x6x6x2xf32>
  return
}

// -----

func.func @conv_transpose1d_strides_count(%x: tensor<?x4x3xf32>, %k: tensor<3x2x3xf32>) {
  // expected-error @+1 {{'seq.conv_transpose1d' op strides must hold 1 sizes (one per spatial axis), got 2}}
  %0 = seq.conv_transpose1d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1>, strides = array<i64: 1, 1>} : (tensor<?x4x3xf32>, tensor<3x2x3xf32>) -> tensor<?x6x2xf32>
  return
}

// -----

func.func @conv_transpose1d_causal(%x: tensor<?x4x3xf32>, %k: tensor<3x2x3xf32>) {
  // expected-error @+1 {{'seq.conv_transpose1d' op padding 'causal' is only valid for conv1d}}
  %0 = seq.conv_transpose1d %x, %k padding(causal) activation(linear) {dilation_rate = array<i64: 1>, strides = array<i64: 1>} : (tensor<?x4x3xf32>, tensor<3x2x3xf32>) -> tensor<?x6x2xf32>
  return
}

// -----

func.func @conv_transpose2d_output_padding_count(%x: tensor<?x4x4x4xf32>, %k: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'seq.conv_transpose2d' op output_padding must hold 2 sizes (one per spatial axis), got 1}}
  %0 = seq.conv_transpose2d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, output_padding = array<i64: 1>, strides = array<i64: 2, 2>} : (tensor<?x4x4x4xf32>, tensor<3x3x2x4xf32>) -> tensor<?x10x10x2xf32>
  return
}

// -----

func.func @conv_transpose2d_output_padding_fit(%x: tensor<?x4x4x4xf32>, %k: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'seq.conv_transpose2d' op output_padding 2 on spatial axis 0 gives an output that the convolution does not map back onto the input (valid needs 0 <= p < stride, same needs 1 <= span % 2 + p <= stride)}}
  %0 = seq.conv_transpose2d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, output_padding = array<i64: 2, 0>, strides = array<i64: 2, 2>} : (tensor<?x4x4x4xf32>, tensor<3x3x2x4xf32>) -> tensor<?x11x9x2xf32>
  return
}

// -----

func.func @conv_transpose2d_kernel_channels(%x: tensor<?x4x4x3xf32>, %k: tensor<3x3x2x4xf32>) {
  // expected-error @+1 {{'seq.conv_transpose2d' op kernel input channels (4) must equal input channels (3)}}
  %0 = seq.conv_transpose2d %x, %k padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x4x4x3xf32>, tensor<3x3x2x4xf32>) -> tensor<?x6x6x2xf32>
  return
}

// -----

func.func @conv_transpose2d_bias(%x: tensor<?x4x4x4xf32>, %k: tensor<3x3x2x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'seq.conv_transpose2d' op bias size (4) must equal kernel filters (2)}}
  %0 = seq.conv_transpose2d %x, %k, %b padding(valid) activation(linear) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x4x4x4xf32>, tensor<3x3x2x4xf32>, tensor<4xf32>) -> tensor<?x6x6x2xf32>
  return
}

// -----

func.func @conv_transpose3d_result(%x: tensor<?x2x3x4x2xf32>, %k: tensor<2x2x2x3x2xf32>) {
  // expected-error @+1 {{'seq.conv_transpose3d' op result shape (?, 3, 4, 5, 3) does not match the expected (?, 4, 6, 8, 3)}}
  %0 = seq.conv_transpose3d %x, %k padding(same) activation(linear) {dilation_rate = array<i64: 1, 1, 1>, strides = array<i64: 2, 2, 2>} : (tensor<?x2x3x4x2xf32>, tensor<2x2x2x3x2xf32>) -> tensor<?x3x4x5x3xf32>
  return
}

// -----

func.func @group_norm_rank(%x: tensor<6xf32>, %g: tensor<6xf32>) {
  // expected-error @+1 {{'seq.group_norm' op input must have rank >= 2, got 'tensor<6xf32>'}}
  %0 = seq.group_norm %x, %g, %g {epsilon = 1.0e-3 : f32, groups = 2 : i64} : (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @group_norm_groups(%x: tensor<?x4x6xf32>, %g: tensor<6xf32>) {
  // expected-error @+1 {{'seq.group_norm' op groups (4) must divide the input channels (6)}}
  %0 = seq.group_norm %x, %g, %g {epsilon = 1.0e-3 : f32, groups = 4 : i64} : (tensor<?x4x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<?x4x6xf32>
  return
}

// -----

func.func @group_norm_epsilon(%x: tensor<?x4x6xf32>, %g: tensor<6xf32>) {
  // expected-error @+1 {{'seq.group_norm' op epsilon must be positive, got 0}}
  %0 = seq.group_norm %x, %g, %g {epsilon = 0.0 : f32, groups = 3 : i64} : (tensor<?x4x6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<?x4x6xf32>
  return
}

// -----

func.func @group_norm_gamma(%x: tensor<?x4x6xf32>, %g: tensor<4xf32>, %b: tensor<6xf32>) {
  // expected-error @+1 {{'seq.group_norm' op gamma size (4) must equal channels (6)}}
  %0 = seq.group_norm %x, %g, %b {epsilon = 1.0e-3 : f32, groups = 3 : i64} : (tensor<?x4x6xf32>, tensor<4xf32>, tensor<6xf32>) -> tensor<?x4x6xf32>
  return
}

// -----

func.func @unit_norm_rank(%x: tensor<6xf32>) {
  // expected-error @+1 {{'seq.unit_norm' op input must have rank >= 2, got 'tensor<6xf32>'}}
  %0 = seq.unit_norm %x : tensor<6xf32>
  return
}

// -----

func.func @unit_norm_epsilon(%x: tensor<?x6xf32>) {
  // expected-error @+1 {{'seq.unit_norm' op epsilon must be positive, got 0}}
  %0 = seq.unit_norm %x {epsilon = 0.0 : f32} : tensor<?x6xf32>
  return
}

// -----

func.func @rms_norm_rank(%x: tensor<6xf32>, %s: tensor<6xf32>) {
  // expected-error @+1 {{'seq.rms_norm' op input must have rank >= 2, got 'tensor<6xf32>'}}
  %0 = seq.rms_norm %x, %s {epsilon = 1.0e-6 : f32} : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @rms_norm_epsilon(%x: tensor<?x6xf32>, %s: tensor<6xf32>) {
  // expected-error @+1 {{'seq.rms_norm' op epsilon must be positive, got -1}}
  %0 = seq.rms_norm %x, %s {epsilon = -1.0 : f32} : (tensor<?x6xf32>, tensor<6xf32>) -> tensor<?x6xf32>
  return
}

// -----

func.func @rms_norm_scale(%x: tensor<?x6xf32>, %s: tensor<5xf32>) {
  // expected-error @+1 {{'seq.rms_norm' op scale size (5) must equal channels (6)}}
  %0 = seq.rms_norm %x, %s {epsilon = 1.0e-6 : f32} : (tensor<?x6xf32>, tensor<5xf32>) -> tensor<?x6xf32>
  return
}

// -----

func.func @resize_rank(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'seq.resize' op input must have rank >= 3, got 'tensor<?x4xf32>'}}
  %0 = seq.resize nearest %x [2] : tensor<?x4xf32> -> tensor<?x2xf32>
  return
}

// -----

func.func @resize_count(%x: tensor<?x4x5x3xf32>) {
  // expected-error @+1 {{'seq.resize' op size must hold one size per spatial axis (2), got 1}}
  %0 = seq.resize nearest %x [2] : tensor<?x4x5x3xf32> -> tensor<?x2x5x3xf32>
  return
}

// -----

func.func @resize_dynamic(%x: tensor<?x?x5x3xf32>) {
  // expected-error @+1 {{'seq.resize' op input spatial axis 1 must have a static size, got 'tensor<?x?x5x3xf32>'}}
  %0 = seq.resize bilinear %x [2, 2] : tensor<?x?x5x3xf32> -> tensor<?x2x2x3xf32>
  return
}

// -----

func.func @resize_positive(%x: tensor<?x4x5x3xf32>) {
  // expected-error @+1 {{'seq.resize' op sizes must be positive, got 0}}
  %0 = seq.resize bilinear %x [0, 2] : tensor<?x4x5x3xf32> -> tensor<?x0x2x3xf32>
  return
}

// -----

func.func @resize_result(%x: tensor<?x4x5x3xf32>) {
  // expected-error @+1 {{'seq.resize' op result shape (?, 2, 2, 3) does not match the expected (?, 3, 2, 3)}}
  %0 = seq.resize bilinear %x [3, 2] : tensor<?x4x5x3xf32> -> tensor<?x2x2x3xf32>
  return
}

// -----

func.func @adaptive_pool_rank(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'seq.adaptive_max_pool' op input must have rank >= 3, got 'tensor<?x4xf32>'}}
  %0 = seq.adaptive_max_pool %x [2] : tensor<?x4xf32> -> tensor<?x2xf32>
  return
}

// -----

func.func @adaptive_pool_count(%x: tensor<?x4x5x3xf32>) {
  // expected-error @+1 {{'seq.adaptive_avg_pool' op output_size must hold one size per spatial axis (2), got 3}}
  %0 = seq.adaptive_avg_pool %x [2, 2, 2] : tensor<?x4x5x3xf32> -> tensor<?x2x2x3xf32>
  return
}

// -----

func.func @adaptive_pool_dynamic(%x: tensor<?x9x?x2xf32>) {
  // expected-error @+1 {{'seq.adaptive_avg_pool' op input spatial axis 2 must have a static size, got 'tensor<?x9x?x2xf32>'}}
  %0 = seq.adaptive_avg_pool %x [3, 2] : tensor<?x9x?x2xf32> -> tensor<?x3x2x2xf32>
  return
}

// -----

func.func @adaptive_pool_dynamic_axis(%x: tensor<?x?x3xf32>) {
  // expected-error @+1 {{'seq.adaptive_max_pool' op input spatial axis 1 must have a static size, got 'tensor<?x?x3xf32>'}}
  %0 = seq.adaptive_max_pool %x [3] : tensor<?x?x3xf32> -> tensor<?x3x3xf32>
  return
}

// -----

func.func @adaptive_pool_positive(%x: tensor<?x4x5x3xf32>) {
  // expected-error @+1 {{'seq.adaptive_max_pool' op sizes must be positive, got 0}}
  %0 = seq.adaptive_max_pool %x [2, 0] : tensor<?x4x5x3xf32> -> tensor<?x2x0x3xf32>
  return
}

// -----

func.func @adaptive_pool_result(%x: tensor<?x4x5x3xf32>) {
  // expected-error @+1 {{'seq.adaptive_avg_pool' op result shape (?, 2, 2, 3) does not match the expected (?, 3, 2, 3)}}
  %0 = seq.adaptive_avg_pool %x [3, 2] : tensor<?x4x5x3xf32> -> tensor<?x2x2x3xf32>
  return
}

// -----

func.func @discretize_boundaries(%x: tensor<?x4xf32>, %b: tensor<2x2xf32>) {
  // expected-error @+1 {{'seq.discretize' op boundaries must have rank 1, got 'tensor<2x2xf32>'}}
  %0 = seq.discretize %x, %b : (tensor<?x4xf32>, tensor<2x2xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @category_encoding_rank(%x: tensor<?x3x2xf32>) {
  // expected-error @+1 {{'seq.category_encoding' op input must have rank 2, got 'tensor<?x3x2xf32>'}}
  %0 = seq.category_encoding count %x {num_tokens = 5 : i64} : tensor<?x3x2xf32> -> tensor<?x5xf32>
  return
}

// -----

func.func @category_encoding_result(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'seq.category_encoding' op result shape (?, 5) does not match the expected (?, 3, 5)}}
  %0 = seq.category_encoding one_hot %x {num_tokens = 5 : i64} : tensor<?x3xf32> -> tensor<?x5xf32>
  return
}

// -----

func.func @category_encoding_tokens(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'seq.category_encoding' op attribute 'num_tokens' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = seq.category_encoding count %x {num_tokens = 0 : i64} : tensor<?x3xf32> -> tensor<?x0xf32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<?x3xf32>, %b: tensor<?x3x4xf32>) {
  // expected-error @+1 {{'seq.matmul' op a must have rank 3, got 'tensor<?x3xf32>'}}
  %0 = seq.matmul %a, %b : (tensor<?x3xf32>, tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x5x3xf32>, %b: tensor<4x3x4xf32>) {
  // expected-error @+1 {{'seq.matmul' op b batch (4) must equal a batch (2)}}
  %0 = seq.matmul %a, %b : (tensor<2x5x3xf32>, tensor<4x3x4xf32>) -> tensor<2x5x4xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<?x5x3xf32>, %b: tensor<?x4x3xf32>) {
  // expected-error @+1 {{'seq.matmul' op b contraction size (4) must equal a contraction size (3)}}
  %0 = seq.matmul %a, %b : (tensor<?x5x3xf32>, tensor<?x4x3xf32>) -> tensor<?x5x3xf32>
  return
}

// -----

func.func @matmul_result(%a: tensor<?x5x3xf32>, %b: tensor<?x4x3xf32>) {
  // expected-error @+1 {{'seq.matmul' op result shape (?, 5, 3) does not match the expected (?, 5, 4)}}
  %0 = seq.matmul %a, %b {transpose_b} : (tensor<?x5x3xf32>, tensor<?x4x3xf32>) -> tensor<?x5x3xf32>
  return
}

// -----

func.func @attention_rank(%q: tensor<?x5x4xf32>, %k: tensor<?x5x1x4xf32>) {
  // expected-error @+1 {{'seq.attention' op query must have rank 4, got 'tensor<?x5x4xf32>'}}
  %0 = seq.attention dot %q, %k, %k : tensor<?x5x4xf32>, tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32> -> tensor<?x5x1x4xf32>
  return
}

// -----

func.func @attention_batch(%q: tensor<2x5x1x4xf32>, %k: tensor<3x5x1x4xf32>) {
  // expected-error @+1 {{'seq.attention' op key batch (3) must equal query batch (2)}}
  %0 = seq.attention dot %q, %k, %k : tensor<2x5x1x4xf32>, tensor<3x5x1x4xf32>, tensor<3x5x1x4xf32> -> tensor<2x5x1x4xf32>
  return
}

// -----

func.func @attention_value_batch(%q: tensor<2x5x1x4xf32>, %k: tensor<2x5x1x4xf32>, %v: tensor<3x5x1x4xf32>) {
  // expected-error @+1 {{'seq.attention' op value batch (3) must equal query batch (2)}}
  %0 = seq.attention dot %q, %k, %v : tensor<2x5x1x4xf32>, tensor<2x5x1x4xf32>, tensor<3x5x1x4xf32> -> tensor<2x5x1x4xf32>
  return
}

// -----

func.func @attention_steps(%q: tensor<?x5x1x4xf32>, %k: tensor<?x6x1x4xf32>, %v: tensor<?x7x1x4xf32>) {
  // expected-error @+1 {{'seq.attention' op value steps (7) must equal key steps (6)}}
  %0 = seq.attention dot %q, %k, %v : tensor<?x5x1x4xf32>, tensor<?x6x1x4xf32>, tensor<?x7x1x4xf32> -> tensor<?x5x1x4xf32>
  return
}

// -----

func.func @attention_value_heads(%q: tensor<?x5x2x4xf32>, %k: tensor<?x6x2x4xf32>, %v: tensor<?x6x1x4xf32>) {
  // expected-error @+1 {{'seq.attention' op value heads (1) must equal key heads (2)}}
  %0 = seq.attention dot %q, %k, %v : tensor<?x5x2x4xf32>, tensor<?x6x2x4xf32>, tensor<?x6x1x4xf32> -> tensor<?x5x2x4xf32>
  return
}

// -----

func.func @attention_features(%q: tensor<?x5x1x4xf32>, %k: tensor<?x6x1x3xf32>) {
  // expected-error @+1 {{'seq.attention' op key features (3) must equal query features (4)}}
  %0 = seq.attention dot %q, %k, %k : tensor<?x5x1x4xf32>, tensor<?x6x1x3xf32>, tensor<?x6x1x3xf32> -> tensor<?x5x1x3xf32>
  return
}

// -----

func.func @attention_heads(%q: tensor<?x5x3x4xf32>, %k: tensor<?x6x2x4xf32>) {
  // expected-error @+1 {{'seq.attention' op query heads (3) must be a multiple of key heads (2)}}
  %0 = seq.attention dot %q, %k, %k : tensor<?x5x3x4xf32>, tensor<?x6x2x4xf32>, tensor<?x6x2x4xf32> -> tensor<?x5x3x4xf32>
  return
}

// -----

func.func @attention_dot_weight(%q: tensor<?x5x1x4xf32>) {
  // expected-error @+1 {{'seq.attention' op feature_scale and score_weight belong to additive scores}}
  %0 = seq.attention dot %q, %q, %q {score_weight = 2.0 : f32} : tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32> -> tensor<?x5x1x4xf32>
  return
}

// -----

func.func @attention_feature_scale(%q: tensor<?x5x1x4xf32>, %w: tensor<3xf32>) {
  // expected-error @+1 {{'seq.attention' op feature_scale size (3) must equal query features (4)}}
  %0 = seq.attention additive %q, %q, %q feature_scale(%w : tensor<3xf32>) : tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32> -> tensor<?x5x1x4xf32>
  return
}

// -----

func.func @attention_result(%q: tensor<?x5x1x4xf32>, %v: tensor<?x5x1x2xf32>) {
  // expected-error @+1 {{'seq.attention' op result shape (?, 5, 1, 4) does not match the expected (?, 5, 1, 2)}}
  %0 = seq.attention dot %q, %q, %v : tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32>, tensor<?x5x1x2xf32> -> tensor<?x5x1x4xf32>
  return
}

// -----

func.func @attention_window(%q: tensor<?x5x1x4xf32>) {
  // expected-error @+1 {{'seq.attention' op attribute 'window' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = seq.attention dot %q, %q, %q {window = 0} : tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32> -> tensor<?x5x1x4xf32>
  return
}

// -----

func.func @attention_mask_rank(%q: tensor<?x5x1x4xf32>, %m: tensor<?x5x1xf32>) {
  // expected-error @+1 {{'seq.attention' op query_mask must have rank 2, got 'tensor<?x5x1xf32>'}}
  %0 = seq.attention dot %q, %q, %q query_mask(%m : tensor<?x5x1xf32>) : tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32>, tensor<?x5x1x4xf32> -> tensor<?x5x1x4xf32>
  return
}

// -----

func.func @attention_mask_batch(%q: tensor<2x5x1x4xf32>, %m: tensor<3x5xf32>) {
  // expected-error @+1 {{'seq.attention' op query_mask batch (3) must equal query batch (2)}}
  %0 = seq.attention dot %q, %q, %q query_mask(%m : tensor<3x5xf32>) : tensor<2x5x1x4xf32>, tensor<2x5x1x4xf32>, tensor<2x5x1x4xf32> -> tensor<2x5x1x4xf32>
  return
}

// -----

func.func @attention_key_mask_steps(%q: tensor<?x5x1x4xf32>, %k: tensor<?x7x1x4xf32>, %m: tensor<?x5xf32>) {
  // expected-error @+1 {{'seq.attention' op key_mask steps (5) must equal key steps (7)}}
  %0 = seq.attention dot %q, %k, %k key_mask(%m : tensor<?x5xf32>) : tensor<?x5x1x4xf32>, tensor<?x7x1x4xf32>, tensor<?x7x1x4xf32> -> tensor<?x5x1x4xf32>
  return
}

// -----

func.func @stack_shape(%a: tensor<?x4xf32>, %b: tensor<?x3xf32>) {
  // expected-error @+1 {{'seq.stack' op input 1 axis 1 (3) must equal input 0 axis 1 (4)}}
  %0 = seq.stack %a, %b : tensor<?x4xf32>, tensor<?x3xf32> -> tensor<2x?x4xf32>
  return
}

// -----

func.func @stack_rank(%a: tensor<?x4xf32>, %b: tensor<?x4x1xf32>) {
  // expected-error @+1 {{'seq.stack' op input 1 must have rank 2, got 'tensor<?x4x1xf32>'}}
  %0 = seq.stack %a, %b : tensor<?x4xf32>, tensor<?x4x1xf32> -> tensor<2x?x4xf32>
  return
}

// -----

func.func @stack_result(%a: tensor<?x4xf32>) {
  // expected-error @+1 {{'seq.stack' op result shape (3, ?, 4) does not match the expected (2, ?, 4)}}
  %0 = seq.stack %a, %a : tensor<?x4xf32>, tensor<?x4xf32> -> tensor<3x?x4xf32>
  return
}

// -----

func.func @stack_none() {
  // expected-error @+1 {{'seq.stack' op needs at least one input}}
  %0 = "seq.stack"() : () -> tensor<0x4xf32>
  return
}

// -----

func.func @unstack_index(%a: tensor<2x?x4xf32>) {
  // expected-error @+1 {{'seq.unstack' op index 2 is outside the 2 slices of the input}}
  %0 = seq.unstack %a[2] : tensor<2x?x4xf32> -> tensor<?x4xf32>
  return
}

// -----

func.func @unstack_rank(%a: tensor<4xf32>) {
  // expected-error @+1 {{'seq.unstack' op input must have rank >= 2, got 'tensor<4xf32>'}}
  %0 = seq.unstack %a[0] : tensor<4xf32> -> tensor<f32>
  return
}

// -----

func.func @unstack_result(%a: tensor<2x?x4xf32>) {
  // expected-error @+1 {{'seq.unstack' op result shape (?, 3) does not match the expected (?, 4)}}
  %0 = seq.unstack %a[1] : tensor<2x?x4xf32> -> tensor<?x3xf32>
  return
}

// -----

func.func @attention_mask_shape(%q: tensor<?x5x2x4xf32>, %m: tensor<?x5x6xf32>) {
  // expected-error @+1 {{'seq.attention' op attention_mask axis 2 (6) must equal key steps (5)}}
  %0 = seq.attention dot %q, %q, %q attention_mask(%m : tensor<?x5x6xf32>) : tensor<?x5x2x4xf32>, tensor<?x5x2x4xf32>, tensor<?x5x2x4xf32> -> tensor<?x5x2x4xf32>
  return
}

// -----

func.func @attention_mask_rank(%q: tensor<?x5x2x4xf32>, %m: tensor<?x5xf32>) {
  // expected-error @+1 {{'seq.attention' op attention_mask must have rank 3, got 'tensor<?x5xf32>'}}
  %0 = seq.attention dot %q, %q, %q attention_mask(%m : tensor<?x5xf32>) : tensor<?x5x2x4xf32>, tensor<?x5x2x4xf32>, tensor<?x5x2x4xf32> -> tensor<?x5x2x4xf32>
  return
}

// -----

// With weights the result is the softmax weights (batch, heads, tq, tk).
func.func @attention_weights_shape(%q: tensor<?x5x2x4xf32>, %k: tensor<?x6x2x4xf32>) {
  // expected-error @+1 {{'seq.attention' op result shape (?, 5, 2, 6) does not match the expected (?, 2, 5, 6)}}
  %0 = seq.attention dot %q, %k, %k {weights} : tensor<?x5x2x4xf32>, tensor<?x6x2x4xf32>, tensor<?x6x2x4xf32> -> tensor<?x5x2x6xf32>
  return
}

// -----

func.func @conv_lstm_rank(%x: tensor<?x4x3xf32>, %k: tensor<3x3x8xf32>, %r: tensor<3x2x8xf32>) {
  // expected-error @+1 {{'seq.conv_lstm' op input must have rank >= 4, got 'tensor<?x4x3xf32>'}}
  %0 = seq.conv_lstm %x, %k, %r padding(valid) activation(tanh, hard_sigmoid_keras2) {dilation_rate = array<i64: 1>, strides = array<i64: 1>} : (tensor<?x4x3xf32>, tensor<3x3x8xf32>, tensor<3x2x8xf32>) -> tensor<?x2xf32>
  return
}

// -----

func.func @conv_lstm_spatial_axes(%x: tensor<?x4x2x2x2x2x3xf32>, %k: tensor<3x3x3x8xf32>, %r: tensor<3x3x2x8xf32>) {
  // expected-error @+1 {{'seq.conv_lstm' op input must have 1 to 3 spatial axes (rank 4 to 6), got 'tensor<?x4x2x2x2x2x3xf32>'}}
  %0 = seq.conv_lstm %x, %k, %r padding(valid) activation(tanh, hard_sigmoid_keras2) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x4x2x2x2x2x3xf32>, tensor<3x3x3x8xf32>, tensor<3x3x2x8xf32>) -> tensor<?x2xf32>
  return
}

// -----

func.func @conv_lstm_kernel_rank(%x: tensor<?x4x8x8x3xf32>, %k: tensor<3x3x8xf32>, %r: tensor<3x3x2x8xf32>) {
  // expected-error @+1 {{'seq.conv_lstm' op kernel must have rank 4, got 'tensor<3x3x8xf32>'}}
  %0 = seq.conv_lstm %x, %k, %r padding(valid) activation(tanh, hard_sigmoid_keras2) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x4x8x8x3xf32>, tensor<3x3x8xf32>, tensor<3x3x2x8xf32>) -> tensor<?x6x6x2xf32>
  return
}

// -----

func.func @conv_lstm_recurrent_rank(%x: tensor<?x4x8x8x3xf32>, %k: tensor<3x3x3x8xf32>, %r: tensor<3x2x8xf32>) {
  // expected-error @+1 {{'seq.conv_lstm' op recurrent_kernel must have rank 4, got 'tensor<3x2x8xf32>'}}
  %0 = seq.conv_lstm %x, %k, %r padding(valid) activation(tanh, hard_sigmoid_keras2) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x4x8x8x3xf32>, tensor<3x3x3x8xf32>, tensor<3x2x8xf32>) -> tensor<?x6x6x2xf32>
  return
}

// -----

func.func @conv_lstm_strides_count(%x: tensor<?x4x8x8x3xf32>, %k: tensor<3x3x3x8xf32>, %r: tensor<3x3x2x8xf32>) {
  // expected-error @+1 {{'seq.conv_lstm' op strides must hold 2 sizes (one per spatial axis), got 1}}
  %0 = seq.conv_lstm %x, %k, %r padding(valid) activation(tanh, hard_sigmoid_keras2) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1>} : (tensor<?x4x8x8x3xf32>, tensor<3x3x3x8xf32>, tensor<3x3x2x8xf32>) -> tensor<?x6x6x2xf32>
  return
}

// -----

func.func @conv_lstm_initial_state_positions(%x: tensor<?x4x8x8x3xf32>, %k: tensor<3x3x3x8xf32>, %r: tensor<3x3x2x8xf32>, %s: tensor<2x?x6x5x2xf32>) {
  // expected-error @+1 {{'seq.conv_lstm' op initial_state axis 3 (5) must equal the state's positions along it (6)}}
  %0 = seq.conv_lstm %x, %k, %r initial_state(%s) padding(valid) activation(tanh, sigmoid) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x4x8x8x3xf32>, tensor<3x3x3x8xf32>, tensor<3x3x2x8xf32>, tensor<2x?x6x5x2xf32>) -> tensor<?x6x6x2xf32>
  return
}

// -----

func.func @conv_lstm_final_state_states(%x: tensor<?x4x8x8x3xf32>, %k: tensor<3x3x3x8xf32>, %r: tensor<3x3x2x8xf32>) {
  // expected-error @+1 {{'seq.conv_lstm' op final_state states (1) must equal the cell's state count (2)}}
  %0, %1 = seq.conv_lstm %x, %k, %r padding(valid) activation(tanh, sigmoid) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x4x8x8x3xf32>, tensor<3x3x3x8xf32>, tensor<3x3x2x8xf32>) -> (tensor<?x6x6x2xf32>, tensor<1x?x6x6x2xf32>)
  return
}

// -----

func.func @conv_lstm_causal(%x: tensor<?x4x8x8x3xf32>, %k: tensor<3x3x3x8xf32>, %r: tensor<3x3x2x8xf32>) {
  // expected-error @+1 {{'seq.conv_lstm' op padding 'causal' is only valid for conv1d}}
  %0 = seq.conv_lstm %x, %k, %r padding(causal) activation(tanh, hard_sigmoid_keras2) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x4x8x8x3xf32>, tensor<3x3x3x8xf32>, tensor<3x3x2x8xf32>) -> tensor<?x6x6x2xf32>
  return
}

// -----

// The cell activations are elementwise.
func.func @conv_lstm_softmax(%x: tensor<?x4x8x8x3xf32>, %k: tensor<3x3x3x8xf32>, %r: tensor<3x3x2x8xf32>) {
  // expected-error @+1 {{'seq.conv_lstm' op activation 'softmax' is not supported in a ConvLSTM cell}}
  %0 = seq.conv_lstm %x, %k, %r padding(valid) activation(softmax, sigmoid) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x4x8x8x3xf32>, tensor<3x3x3x8xf32>, tensor<3x3x2x8xf32>) -> tensor<?x6x6x2xf32>
  return
}

// -----

func.func @conv_lstm_channels(%x: tensor<?x4x8x8x3xf32>, %k: tensor<3x3x4x8xf32>, %r: tensor<3x3x2x8xf32>) {
  // expected-error @+1 {{'seq.conv_lstm' op kernel input channels (4) must equal input channels (3)}}
  %0 = seq.conv_lstm %x, %k, %r padding(valid) activation(tanh, hard_sigmoid_keras2) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x4x8x8x3xf32>, tensor<3x3x4x8xf32>, tensor<3x3x2x8xf32>) -> tensor<?x6x6x2xf32>
  return
}

// -----

func.func @conv_lstm_kernel_gates(%x: tensor<?x4x8x8x3xf32>, %k: tensor<3x3x3x6xf32>, %r: tensor<3x3x2x8xf32>) {
  // expected-error @+1 {{'seq.conv_lstm' op kernel columns (6) must equal 4 x filters (8)}}
  %0 = seq.conv_lstm %x, %k, %r padding(valid) activation(tanh, hard_sigmoid_keras2) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x4x8x8x3xf32>, tensor<3x3x3x6xf32>, tensor<3x3x2x8xf32>) -> tensor<?x6x6x2xf32>
  return
}

// -----

func.func @conv_lstm_recurrent_gates(%x: tensor<?x4x8x8x3xf32>, %k: tensor<3x3x3x8xf32>, %r: tensor<3x3x2x6xf32>) {
  // expected-error @+1 {{'seq.conv_lstm' op recurrent_kernel columns (6) must equal 4 x filters (8)}}
  %0 = seq.conv_lstm %x, %k, %r padding(valid) activation(tanh, hard_sigmoid_keras2) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x4x8x8x3xf32>, tensor<3x3x3x8xf32>, tensor<3x3x2x6xf32>) -> tensor<?x6x6x2xf32>
  return
}

// -----

func.func @conv_lstm_bias(%x: tensor<?x4x8x8x3xf32>, %k: tensor<3x3x3x8xf32>, %r: tensor<3x3x2x8xf32>, %b: tensor<6xf32>) {
  // expected-error @+1 {{'seq.conv_lstm' op bias size (6) must equal 4 x filters (8)}}
  %0 = seq.conv_lstm %x, %k, %r, %b padding(valid) activation(tanh, hard_sigmoid_keras2) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x4x8x8x3xf32>, tensor<3x3x3x8xf32>, tensor<3x3x2x8xf32>, tensor<6xf32>) -> tensor<?x6x6x2xf32>
  return
}

// -----

func.func @conv_lstm_window(%x: tensor<?x4x2x8x3xf32>, %k: tensor<3x3x3x8xf32>, %r: tensor<3x3x2x8xf32>) {
  // expected-error @+1 {{'seq.conv_lstm' op kernel span along spatial axis 0 is longer than the input's 2}}
  %0 = seq.conv_lstm %x, %k, %r padding(valid) activation(tanh, hard_sigmoid_keras2) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x4x2x8x3xf32>, tensor<3x3x3x8xf32>, tensor<3x3x2x8xf32>) -> tensor<?x0x6x2xf32>
  return
}

// -----

// With return_sequences the time axis stays.
func.func @conv_lstm_result(%x: tensor<?x4x8x8x3xf32>, %k: tensor<3x3x3x8xf32>, %r: tensor<3x3x2x8xf32>) {
  // expected-error @+1 {{'seq.conv_lstm' op result shape (?, 6, 6, 2) does not match the expected (?, 4, 6, 6, 2)}}
  %0 = seq.conv_lstm %x, %k, %r padding(valid) activation(tanh, hard_sigmoid_keras2) {dilation_rate = array<i64: 1, 1>, strides = array<i64: 1, 1>, return_sequences} : (tensor<?x4x8x8x3xf32>, tensor<3x3x3x8xf32>, tensor<3x3x2x8xf32>) -> tensor<?x6x6x2xf32>
  return
}
