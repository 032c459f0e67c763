// The CUDA emitter's internals, shared by CudaEmitter.cpp (ops -> launches)
// and HostLauncher.cpp (the rest of the .cu: weights, shapes, create, the C
// API). Not installed.
#ifndef SEQ_LIB_TARGET_CUDA_MODELEMITTER_H
#define SEQ_LIB_TARGET_CUDA_MODELEMITTER_H

#include "seq/Target/CUDA/CudaEmitter.h"

#include "seq/Dialect/Seq/IR/ModelIO.h"
#include "seq/Dialect/Seq/IR/SeqOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>
#include <vector>

namespace seq::cuda::detail {

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;
using mlir::ModuleOp;
using mlir::Operation;
using mlir::ShapedType;
using mlir::Value;
namespace func = mlir::func;

/// One C++ expression per axis.
using Dims = llvm::SmallVector<std::string, 4>;

/// Weights are 64-float (256-byte) aligned in the blob.
constexpr int64_t kWeightAlignment = 64;

// Text helpers (EmitHelpers.cpp).
/// The kernels' enumerator of seq's `name` (stringify's snake case): the
/// kernels spell every seq enum value in camel case ("seqc::Act::LeakyRelu").
std::string kernelEnumName(StringRef type, StringRef name);
std::string actName(Activation a);
std::string paddingName(Padding p);
/// A float literal that reads back to exactly `v`.
std::string floatLiteral(float v);
std::string floatLiteral(std::optional<llvm::APFloat> v);
/// A C string literal holding `text` (for the user's options only: text from
/// the model file goes through Emitter::text, as bytes).
std::string cString(llvm::StringRef text);
/// "{104, 105, 0}": the bytes of `text` and a terminating 0, as an array
/// initialiser.
std::string byteList(llvm::StringRef text);
/// `text` with every character outside [A-Za-z0-9_.-] replaced by '_': what
/// of a name from the model file may appear in a comment.
std::string commentSafe(llvm::StringRef text);
/// A C identifier from a weight's name ("lstm/kernel" -> "lstm_kernel").
std::string identifier(llvm::StringRef name);
/// "a * b * c"; "1" for none.
std::string product(llvm::ArrayRef<std::string> dims);
/// "(?, 10, 12)".
std::string shapeText(mlir::ShapedType type);
/// The GEMM rows of `value` for comments: its leading axes, "?x5".
std::string rowsText(mlir::Value value);
/// "-1, 10, 12" (-1 for dynamic).
std::string dimsList(mlir::ShapedType type);
/// "seqc::Sizes3{2, {(int)a, (int)b, 1}}" (up to three spatial sizes).
std::string sizes3(llvm::ArrayRef<std::string> values);
std::string sizes3(llvm::ArrayRef<int64_t> values);
/// "seqc::Shape5{4, {(int64_t)a, ..., 1}}" (up to five axes).
std::string shape5(llvm::ArrayRef<std::string> values);
/// "3x3" of {3, 3} and "x".
std::string joined(llvm::ArrayRef<int64_t> values, llvm::StringRef separator);

/// A Conv1D/2D/3D for Emitter::emitConvolution: what seqc's direct kernel
/// and cuDNN both need, its spatial axes as cuDNN sees them (a Conv1D's: a
/// unit height, then time).
struct ConvolutionLayer {
  unsigned x, y;
  Dims in;  // x's dims as cuDNN sees them: batch, spatial sizes, channels
  Dims out; // y's spatial sizes
  Dims key; // the spatial sizes a measured choice is made per (with the batch)
  llvm::SmallVector<int64_t, 3> kernel, strides, dilations;
  llvm::SmallVector<Padding, 3> paddings;
  llvm::SmallVector<int64_t, 3> staticIn; // the input's spatial sizes, or dynamic
  int64_t channels, filters, groups;
  std::string weights, bias, alpha;
  Activation act;
  std::string direct; // the direct kernel's launch (yields a cudaError_t)
};

struct Buffer {
  std::string name;    // "v3"
  Dims dims;           // expressions
  std::string storage; // the buffer whose memory this one uses
  std::string what;    // for comments: "lstm output"
};

struct Weight {
  std::string name;
  int64_t offset = 0, count = 0;
  std::string shape;
};

enum class Cell { Lstm, GruResetAfter, GruResetBefore, SimpleRnn };

llvm::StringRef cellName(Cell c);
int gatesOf(Cell c);

/// What a recurrence needs, from either level of IR.
struct RecurrenceSpec {
  Cell cell;
  int64_t units = 0;
  std::string recurrentKernel; // weight expression
  std::string recurrentBias = "nullptr";
  Activation activation = Activation::Tanh;
  Activation recurrentActivation = Activation::Sigmoid;
  bool returnSequences = false, goBackwards = false;
  std::string mask = "nullptr"; // (batch, steps) buffer expression
  bool zeroOutputForMask = false;
  /// A stateful layer's state: where it starts and where the final one goes.
  std::string initialState = "nullptr", finalState = "nullptr";
};

/// The template arguments of a recurrence's kernels: "seqc::Cell::Lstm,
/// seqc::Act::Tanh, seqc::Act::Sigmoid" (SimpleRNN's unused recurrent
/// activation is Sigmoid, so its layers share one instance).
std::string cellTemplateArguments(const RecurrenceSpec &spec);

/// What emitFusedRecurrence made for one recurrence.
struct FusedRecurrence {
  RecurrenceSpec spec;
  unsigned projection = 0, output = 0, h = 0;
  std::optional<unsigned> cellState;
};

/// A chain of fused recurrences with the same cell, each feeding the next
/// its whole sequence through a linear input projection, emitted as one
/// stacked launch with the layer-by-layer code as its fallback
/// (StackEmitter.cpp).
struct RecurrentStack {
  llvm::SmallVector<Operation *, 4> recurrences;
  /// projections[i] (a seq.linear) feeds recurrences[i + 1].
  llvm::SmallVector<Operation *, 4> projections;
};

class Emitter {
public:
  Emitter(ModuleOp module, const CudaEmitOptions &options)
      : module(module), options(options) {}

  Expected<CudaModule> run();

private:
  // ---- diagnostics ----
  Error fail(Operation *op, const Twine &message) const;

  // ---- buffers, shapes, weights ----
  unsigned newBuffer(Dims dims, StringRef what,
                     std::optional<unsigned> aliasOf = std::nullopt);
  std::string dim(unsigned buffer, unsigned axis) const {
    return "D." + buffers[buffer].name + "[" + std::to_string(axis) + "]";
  }
  Dims dimsOf(unsigned buffer) const {
    Dims d;
    for (unsigned i = 0; i < buffers[buffer].dims.size(); ++i)
      d.push_back(dim(buffer, i));
    return d;
  }
  unsigned rank(unsigned buffer) const { return buffers[buffer].dims.size(); }
  std::string ptr(unsigned buffer) const { return "m->" + buffers[buffer].storage; }
  Expected<unsigned> operand(Operation *op, Value value);
  /// operand() of each value, in order.
  Expected<std::vector<unsigned>> operands(Operation *op, mlir::ValueRange values);
  Expected<std::string> weight(Operation *op, Value value, StringRef role);
  Expected<std::string> optionalWeight(Operation *op, Value value, StringRef role) {
    if (!value)
      return std::string("nullptr");
    return weight(op, value, role);
  }
  void checkInDims(const Twine &condition, const Twine &message);
  /// A launch copying `floats` floats from device address `from` to `to`.
  static std::string deviceCopy(const Twine &to, const Twine &from, const Twine &floats) {
    return "cudaMemcpyAsync(" + to.str() + ", " + from.str() + ", " + floats.str() +
           " * sizeof(float), cudaMemcpyDeviceToDevice, m->stream)";
  }

  // ---- code ----
  void comment(Operation *op, const Twine &text);
  std::string tryLaunch(Operation *op, const Twine &call) const;
  std::string layer(Operation *op) const;
  /// The layer's name for comments (commentSafe).
  std::string tag(Operation *op) const { return commentSafe(layer(op)); }
  /// The name of a static byte array holding `s` (NUL-terminated), for text
  /// from the model file that the generated code needs at run time: such
  /// text is data, never a string literal. Cast to const char * to use it.
  std::string text(llvm::StringRef s) const;

  // ---- ops ----
  Error emitOp(Operation *op);
  Error emitLinear(Operation *op, Value input, Value kernel, Value bias,
                   Activation act, std::optional<llvm::APFloat> alpha);
  Error emitRecurrenceOp(Operation *op);
  Error emitRecurrentLayer(Operation *op);
  Expected<unsigned> emitFusedRecurrence(Operation *op, unsigned projection,
                                         const RecurrenceSpec &spec);
  Error emitCudnnRecurrence(Operation *op, unsigned input, int64_t features,
                            const RecurrenceSpec &spec, StringRef kernel,
                            StringRef inputBias);
  Error bindMask(Operation *op, Value mask, RecurrenceSpec &spec);
  /// A stateful layer's initial and final state: the slot of @predict's
  /// state argument, in the model's state and next-state buffers.
  Error bindState(Operation *op, Value initialState, Value finalState,
                  RecurrenceSpec &spec);
  Error checkCudnnSupport(Operation *op, const RecurrenceSpec &spec) const;
  /// The chains of recurrences in `func` that run as stacks, by first op.
  llvm::DenseMap<Operation *, RecurrentStack> findRecurrentStacks(func::FuncOp func) const;
  /// Wraps the layer-by-layer code of `stack`, forwardCode from
  /// `fallbackStart` on, in the stacked launch's else branch.
  Error emitStack(const RecurrentStack &stack, size_t fallbackStart);
  Error emitTimeDistributed(TimeDistributedOp op);
  /// Conv2D/3D, the 2-D/3-D and global poolings, zero padding, cropping,
  /// upsampling, permute (SpatialEmitter.cpp).
  Error emitSpatial(Operation *op);
  /// A convolution on the direct kernel, on cuDNN or on the faster of the
  /// two, as --conv-backend says (ConvolutionEmitter.cpp).
  void emitConvolution(Operation *op, const ConvolutionLayer &c);
  /// Sets up `c` on cuDNN reading buffer `x` (dims `in`) with `pads` on each
  /// spatial axis; returns the call that runs it, which yields nullptr or a
  /// failure message.
  std::string emitCudnnConvolution(Operation *op, const ConvolutionLayer &c, unsigned x,
                                   const Dims &in, llvm::ArrayRef<int64_t> pads);
  void markCudnnProjections(func::FuncOp func);

  std::string assemble() const;

  ModuleOp module;
  const CudaEmitOptions &options;
  std::string sourceName;

  std::vector<Buffer> buffers;
  llvm::DenseMap<Value, unsigned> bufferOf;
  std::vector<Weight> weights;
  llvm::DenseMap<Value, unsigned> weightOf;
  llvm::StringSet<> weightNames;
  std::vector<float> blob;

  std::string dimsCode, modelFields, createCode, destroyCode, forwardCode;
  std::vector<std::string> summary;
  /// Emitter::text's strings, by number.
  mutable std::vector<std::string> texts;
  mutable llvm::StringMap<unsigned> textIndex;
  std::vector<std::pair<std::string, std::string>> embeddings; // name text, ids buffer
  std::vector<int64_t> embeddingVocab;
  bool usesCudnn = false;
  /// A recurrence runs on cuDNN (the .cu needs seqc_cudnn_rnn.cuh too).
  bool usesCudnnRnn = false;
  /// @predict's state slots (a stateful model's) and their arguments.
  std::vector<StateSlot> stateSlots;
  llvm::DenseMap<Value, int64_t> stateOffsetOf;
  size_t boundStates = 0;
  /// The model's inputs and outputs (Keras' order) and their buffers.
  std::vector<ModelPort> inputPorts, outputPorts;
  std::vector<unsigned> inputBuffers, outputBuffers;
  /// Whether some input's time axis is dynamic.
  bool dynamicTime() const {
    return llvm::any_of(inputPorts, [](const ModelPort &p) { return p.steps() < 0; });
  }
  /// Input GEMMs whose only users run on cuDNN (which projects itself).
  llvm::DenseSet<Operation *> skipped;
  /// The buffers of every recurrence on the fused kernels, for stacks.
  llvm::DenseMap<Operation *, FusedRecurrence> fusedRecurrences;
};

} // namespace seq::cuda::detail

#endif
