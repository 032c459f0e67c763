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

llvm::Expected<seq::cpu::ModelSignature>
seq::cpu::ModelSignature::of(ModuleOp module) {
  auto predict = module.lookupSymbol<func::FuncOp>("predict");
  if (!predict)
    return llvm::createStringError("the module has no func.func @predict");
  llvm::Expected<ModelIO> io = modelIO(predict);
  if (!io)
    return llvm::createStringError(llvm::toString(io.takeError()) +
                                   "; the CPU backend cannot compile this module");
  for (const ModelPort &input : io->inputs)
    for (size_t i = 2; i < input.shape.size(); ++i)
      if (input.shape[i] < 0)
        return llvm::createStringError(
            (io->inputs.size() == 1 ? std::string("input")
                                    : "input '" + input.name + "'") +
            " axis " + std::to_string(i) + " of " + shapeText(input.shape) +
            " is dynamic: only batch and time may be; give the shape with "
            "--input-shape");
  ModelSignature s;
  s.io = std::move(*io);
  return s;
}

size_t seq::cpu::ModelSignature::resultWords() const {
  size_t words = io.state.empty() ? 0 : descriptorSize(1);
  for (const ModelPort &output : io.outputs)
    words += descriptorSize(output.shape.size());
  return words;
}

const int64_t *
seq::cpu::ModelSignature::stateResult(const int64_t *results) const {
  for (const ModelPort &output : io.outputs)
    results += descriptorSize(output.shape.size());
  return results;
}

/// Copies the f32 tensor described by `d` (possibly strided), row-major.
static seq::rt::Tensor copyOut(const int64_t *d, size_t rank) {
  const float *base = reinterpret_cast<const float *>(d[1]) + d[2];
  seq::rt::Tensor t;
  t.shape.assign(d + 3, d + 3 + rank);
  t.data.resize(t.numElements());
  if (t.data.empty())
    return t;
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

llvm::Expected<std::vector<seq::rt::Tensor>>
seq::cpu::ModelSignature::readOutputs(const int64_t *results,
                                      const seqc_arena *arena) const {
  if (arena->error_site >= 0)
    return inputError(arena->error_site, arena->error_count);
  std::vector<rt::Tensor> outputs;
  for (const ModelPort &output : io.outputs) {
    outputs.push_back(copyOut(results, output.shape.size()));
    results += descriptorSize(output.shape.size());
  }
  return outputs;
}

llvm::Error seq::cpu::ModelSignature::inputError(int32_t site, int64_t count) const {
  std::string what = site >= 0 && size_t(site) < errorSites.size()
                         ? errorSites[site]
                         : "runtime error " + std::to_string(site);
  return llvm::createStringError(what + " (" + std::to_string(count) +
                                 " values); check the input");
}
