#include "ModelSignature.h"

#include "seqc_arena.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstring>

using namespace mlir;

std::vector<int64_t> seq::cpu::describe(const float *data,
                                        const std::vector<int64_t> &shape) {
  size_t rank = shape.size();
  std::vector<int64_t> d(descriptorSize(rank));
  auto pointer = reinterpret_cast<int64_t>(data);
  d[0] = d[1] = pointer;
  d[2] = 0;
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    d[3 + i] = shape[i];
    d[3 + rank + i] = stride;
    stride *= shape[i];
  }
  return d;
}

std::string seq::cpu::shapeText(const std::vector<int64_t> &dims) {
  std::string text = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i)
      text += ", ";
    text += dims[i] < 0 ? "?" : std::to_string(dims[i]);
  }
  return text + (dims.size() == 1 ? ",)" : ")");
}

static std::vector<int64_t> dimsOf(RankedTensorType type) {
  std::vector<int64_t> dims;
  for (int64_t d : type.getShape())
    dims.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return dims;
}

llvm::Expected<seq::cpu::ModelSignature>
seq::cpu::ModelSignature::of(ModuleOp module) {
  auto predict = module.lookupSymbol<func::FuncOp>("predict");
  if (!predict)
    return llvm::createStringError("the module has no func.func @predict");
  FunctionType type = predict.getFunctionType();
  llvm::Expected<std::vector<StateSlot>> state = stateSlots(predict);
  if (!state)
    return state.takeError();
  auto in = type.getNumInputs() >= 1
                ? dyn_cast<RankedTensorType>(type.getInput(0))
                : nullptr;
  auto out = type.getNumResults() >= 1
                 ? dyn_cast<RankedTensorType>(type.getResult(0))
                 : nullptr;
  if (!in || !out || !in.getElementType().isF32() ||
      !out.getElementType().isF32() || in.getRank() < 1 || out.getRank() < 1)
    return llvm::createStringError(
        "@predict must take and return one ranked f32 tensor with a batch "
        "axis; the CPU backend cannot compile this module");
  ModelSignature s;
  s.input = dimsOf(in);
  s.output = dimsOf(out);
  s.state = std::move(*state);
  for (size_t i = 2; i < s.input.size(); ++i)
    if (s.input[i] < 0)
      return llvm::createStringError(
          "input axis " + std::to_string(i) + " of " + shapeText(s.input) +
          " is dynamic: only batch and time may be; give the shape with "
          "--input-shape");
  return s;
}

llvm::Error
seq::cpu::ModelSignature::checkInput(const std::vector<int64_t> &shape) const {
  bool fits = shape.size() == input.size();
  for (size_t i = 0; fits && i < shape.size(); ++i)
    fits = input[i] < 0 || input[i] == shape[i];
  if (fits)
    return llvm::Error::success();
  return llvm::createStringError("input has shape " + shapeText(shape) +
                                 " but the model expects " + shapeText(input));
}

llvm::Expected<seq::rt::Tensor>
seq::cpu::ModelSignature::readOutput(const int64_t *d,
                                     const seqc_arena *arena) const {
  if (arena->error_site >= 0) {
    std::string what = size_t(arena->error_site) < errorSites.size()
                           ? errorSites[arena->error_site]
                           : "runtime error " + std::to_string(arena->error_site);
    return llvm::createStringError(what + " (" + std::to_string(arena->error_count) +
                                   " values); check the input");
  }
  size_t rank = output.size();
  const float *base = reinterpret_cast<const float *>(d[1]) + d[2];
  rt::Tensor t;
  t.shape.assign(d + 3, d + 3 + rank);
  t.data.resize(t.numElements());
  if (t.data.empty())
    return t;
  // Row-major copy through the (possibly strided) layout.
  std::vector<int64_t> index(rank, 0);
  const int64_t *strides = d + 3 + rank;
  int64_t inner = t.shape[rank - 1], innerStride = strides[rank - 1];
  for (size_t flat = 0; flat < t.data.size(); flat += inner) {
    int64_t offset = 0;
    for (size_t i = 0; i + 1 < rank; ++i)
      offset += index[i] * strides[i];
    if (innerStride == 1) {
      std::memcpy(&t.data[flat], base + offset, inner * sizeof(float));
    } else {
      for (int64_t j = 0; j < inner; ++j)
        t.data[flat + j] = base[offset + j * innerStride];
    }
    for (size_t i = rank - 1; i-- > 0;) {
      if (++index[i] < t.shape[i])
        break;
      index[i] = 0;
    }
  }
  return t;
}
