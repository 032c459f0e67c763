#ifndef SEQ_CONVERSION_PASSES_TD
#define SEQ_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertSeqToLinalg : Pass<"seq-to-linalg", "mlir::ModuleOp"> {
  let summary = "Lowers every seq op to linalg, tensor, scf, arith and math on tensors";
  let description = [{
    Works on layer-level and kernel-level seq IR alike, so any model lowers
    with or without the fusion passes having run:

    - `seq.linear` / `seq.dense`: leading axes collapsed into GEMM rows, the
      bias broadcast into the accumulator, one `linalg.matmul`, the
      activation as an elementwise `linalg.generic` (softmax as row
      reductions), then the leading axes expanded again.
    - `seq.lstm_recurrence` / `gru_recurrence` / `simple_rnn_recurrence`:
      an `scf.for` over time whose `iter_args` carry the state (h, c), a gate
      scratch buffer and the output sequence, so bufferization updates them in
      place. Each step is one `linalg.matmul` of h with the recurrent kernel
      for all gates, accumulating onto the step's slice of the input
      projection, then one `linalg.generic` cell. (A GRU without
      `reset_after` needs `(r * h) @ U_h`, so its step has a second matmul.)
    - The layer-level `seq.lstm` / `gru` / `simple_rnn` become their input
      projection (one matmul over batch*time rows) plus the recurrence; so
      does a recurrence whose projection is a `seq.linear` for it alone. At
      a batch of 32 rows or more, where a row of that projection takes
      `--seq-stepwise-projection-row-floats` (8192; for an LSTM or a
      SimpleRNN at most 1024) floats or more or the steps are not known,
      each step computes its own rows instead (a branch between the two
      loops when the batch is dynamic): an LSTM or a SimpleRNN into the
      gates' buffer, right before the recurrent matmul onto it (the GEMM
      kernel fuses the two), a GRU into a buffer of its own.
    - conv1d, pooling, global pooling, normalisation, embedding, bidirectional
      merge, repeat_vector, flatten, reshape, activation: `linalg.generic`,
      `linalg.fill` and tensor reshapes; `seq.time_distributed` becomes an
      `scf.for` over time around its body; `seq.dropout` disappears.

    Embedding ids are clamped into the table; a model with an Embedding also
    gets a count of out-of-range ids reported through
    `func.call @seqc_report_error(site, count)` so that runtimes can turn it
    into an error (the site names are in the module attribute
    `seqc.error_sites`).
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::func::FuncDialect",
    "::mlir::bufferization::BufferizationDialect"
  ];
}

#endif // SEQ_CONVERSION_PASSES_TD
