#ifndef SEQ_PASSES_TD
#define SEQ_PASSES_TD

include "mlir/Pass/PassBase.td"

def StripDropout : Pass<"seq-strip-dropout"> {
  let summary = "Removes seq.dropout ops (the identity at inference)";
  let description = [{
    Keras' Dropout and SpatialDropout1D do nothing at inference; this pass
    replaces every `seq.dropout` with its input.
  }];
  let dependentDialects = ["::seq::SeqDialect"];
}

#endif // SEQ_PASSES_TD
