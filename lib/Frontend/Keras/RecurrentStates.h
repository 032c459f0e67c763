// The states of return_state=True recurrent layers in a Functional graph.
// A layer's final state is one (states, batch, units) value per direction
// (LSTM: h then c; ConvLSTM: (2, batch, positions..., filters)). A later layer of the same class may take all of one
// layer's states, in order, as its initial_state: the final state itself.
// Read any other way (as model outputs, one state alone, a Concatenate of
// a Bidirectional's states) each state is a seq.unstack slice, (batch,
// units...), numbered as Keras numbers the layer's outputs (1 the first state).
#ifndef SEQ_LIB_FRONTEND_KERAS_RECURRENTSTATES_H
#define SEQ_LIB_FRONTEND_KERAS_RECURRENTSTATES_H

#include "KerasConfig.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/StringMap.h"

#include <map>

namespace seq::keras {

/// ConvLSTM1D, ConvLSTM2D, ConvLSTM3D.
bool isConvLSTM(llvm::StringRef className);

/// Whether layers of this class take an initial_state (and hand their
/// final state on whole): LSTM, GRU, SimpleRNN, ConvLSTM.
bool handsStatesOn(llvm::StringRef className);

/// The states of one LSTM, GRU or SimpleRNN layer or cell of that class
/// (LSTM, LSTMCell: h and c, 2; the others h, 1).
int64_t stateCountOf(llvm::StringRef recurrentClass);

/// How many states Keras returns after the value of `layer` with
/// return_state=True: LSTM 2, GRU and SimpleRNN 1, an RNN over one cell as
/// that cell's layer, a Bidirectional its layer's forward then backward;
/// an error naming the layer for other classes.
llvm::Expected<int64_t> returnedStateCount(const LayerConfig &layer);

/// The initial state of recurrent `layer` from `states`, values of (batch,
/// units) in Keras' order (LSTM: h then c), as one (states, batch, units)
/// seq.stack; or an error naming what does not fit.
llvm::Expected<mlir::Value> stackedState(mlir::OpBuilder &builder,
                                         const LayerConfig &layer,
                                         llvm::ArrayRef<mlir::Value> states,
                                         bool stateful);

class RecurrentStates {
public:
  /// Records the final states of `layer`'s call, one per direction
  /// (LayerEmitter::finalStates()).
  llvm::Error record(const LayerConfig &layer, llvm::ArrayRef<mlir::Value> finals);

  /// The final state to start `layer` from when `reads`, the (call, output)
  /// pairs it reads after its sequence, are all the states of one earlier
  /// layer of its class in order; null otherwise.
  mlir::Value wholeState(const LayerConfig &layer,
                         llvm::ArrayRef<std::pair<std::string, int64_t>> reads) const;

  /// State `index` (1 for the first) of call `from`, (batch, units); the
  /// error is a clause naming the output ("output 2 of 'gru', which ...").
  llvm::Expected<mlir::Value> state(mlir::OpBuilder &builder, llvm::StringRef from,
                                    int64_t index);

private:
  struct Final {
    llvm::SmallVector<mlir::Value, 2> directions;
    int64_t perDirection = 0;
    std::string className;
    std::string name;
  };
  llvm::StringMap<Final> finals;
  std::map<std::pair<std::string, int64_t>, mlir::Value> slices;
};

} // namespace seq::keras

#endif
