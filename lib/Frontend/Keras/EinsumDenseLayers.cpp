//===- EinsumDenseLayers.cpp - EinsumDense as a Dense between reshapes ----===//
//
// EinsumDense contracts the input's trailing axes with the kernel's leading
// ones and appends the kernel's other axes: "abc,cd->abd",
// "abc,cde->abde", "abcd,cde->abe", "...b,bc->...c". Such an equation is a
// Dense: the contracted axes flattened into one, the kernel read as
// (contracted, free) in its own row-major order, the result unflattened.
// The bias covers the kernel's free axes. Other equations (a letter kept
// by all three, axes reordered) are refused by name.
//
//===----------------------------------------------------------------------===//

#include "LayerFamilies.h"

#include "llvm/ADT/SetOperations.h"

namespace seq::keras {

using namespace emit;

namespace {

struct Equation {
  std::string input, kernel, output;
  bool elided = false; // "...": the input's leading axes are kept as they are
};

std::optional<Equation> parseEquation(StringRef text) {
  std::string s;
  for (char c : text)
    if (c != ' ')
      s += c;
  Equation eq;
  StringRef rest(s);
  auto [lhs, output] = rest.split("->");
  auto [input, kernel] = lhs.split(',');
  if (input.consume_front("...")) {
    if (!output.consume_front("..."))
      return std::nullopt;
    eq.elided = true;
  }
  auto letters = [](StringRef x) {
    return !x.empty() && llvm::all_of(x, [](char c) { return llvm::isAlpha(c); });
  };
  if (!letters(input) || !letters(kernel) || !letters(output))
    return std::nullopt;
  eq.input = input.str();
  eq.kernel = kernel.str();
  eq.output = output.str();
  return eq;
}

int64_t product(ArrayRef<int64_t> sizes) {
  int64_t p = 1;
  for (int64_t s : sizes)
    p = (p == kDynamic || s == kDynamic) ? kDynamic : p * s;
  return p;
}

} // namespace

Expected<Value> emitEinsumDense(EmitContext &c) {
  const LayerConfig &layer = c.layer;
  Expected<std::string> text = layer.getStringOr("equation", "");
  Expected<std::string> biasAxes = layer.getStringOr("bias_axes", "");
  Expected<ActivationSpec> act =
      parseActivation(c.builder, layer, "activation", "linear", c.version.major);
  if (Error e = firstError(text, biasAxes, act))
    return std::move(e);
  std::optional<Equation> eq = parseEquation(*text);
  auto refuse = [&](const Twine &why) {
    return layer.error("equation '" + *text + "' " + why +
                       ": seqc imports EinsumDense equations that contract the "
                       "input's last axes with the kernel's first, in order, and "
                       "append the kernel's other axes (\"abc,cd->abd\")");
  };
  if (!eq)
    return refuse("is not of the form [X],[Y]->[Z] or ...[X],[Y]->...[Z]");
  ArrayRef<int64_t> in = shapeOf(c.input);
  size_t leading = eq->elided ? in.size() - eq->input.size() : 0;
  if (in.size() != leading + eq->input.size() || (eq->elided && leading < 1))
    return refuse("does not match the input's rank " + Twine(in.size()));
  // Contracted: the input's letters the output lacks, a suffix of the
  // input and a prefix of the kernel.
  size_t contracted = 0;
  while (contracted < eq->input.size() &&
         eq->output.find(eq->input[eq->input.size() - 1 - contracted]) == std::string::npos)
    ++contracted;
  std::string kept = eq->input.substr(0, eq->input.size() - contracted);
  std::string summed = eq->input.substr(kept.size());
  if (contracted == 0 || !StringRef(eq->kernel).starts_with(summed))
    return refuse("does not contract the input's last axes with the kernel's first");
  std::string appended = eq->kernel.substr(summed.size());
  if (eq->output != kept + appended || appended.empty())
    return refuse("does not give the input's other axes, then the kernel's");
  for (char ch : kept)
    if (appended.find(ch) != std::string::npos || summed.find(ch) != std::string::npos)
      return refuse("keeps a letter of both the input and the kernel");
  if (!eq->elided && kept.empty())
    return refuse("drops the batch axis");
  if (!biasAxes->empty() && *biasAxes != appended)
    return layer.error("bias_axes '" + *biasAxes + "' is not supported: seqc "
                       "imports a bias over all the kernel's own output axes ('" +
                       appended + "') or none");

  // Sizes: the contracted ones from the input, the appended ones from the
  // kernel in the file.
  ArrayRef<int64_t> summedSizes = in.take_back(contracted);
  if (llvm::is_contained(summedSizes, kDynamic))
    return layer.error("contracts an input axis of unknown size: give the model a "
                       "fixed input shape");
  std::vector<StringRef> roles{"kernel"};
  if (!biasAxes->empty())
    roles.push_back("bias");
  if (Error e = c.weights.expect(roles))
    return std::move(e);
  ArrayRef<int64_t> kernelShape = c.weights.peekShape();
  if (kernelShape.size() != eq->kernel.size())
    return layer.error("kernel has shape " + shapeText(kernelShape) +
                       ", which does not match the equation '" + *text + "'");
  SmallVector<int64_t> appendedSizes(kernelShape.drop_front(contracted));
  int64_t k = product(summedSizes), n = product(appendedSizes);
  SmallVector<int64_t> expectedKernel(summedSizes);
  expectedKernel.append(appendedSizes);
  Expected<Value> kernel = c.weights.next("kernel", expectedKernel, {k, n});
  if (!kernel)
    return kernel.takeError();
  Value bias;
  if (!biasAxes->empty()) {
    Expected<Value> b = c.weights.next("bias", appendedSizes, {n});
    if (!b)
      return b.takeError();
    bias = *b;
  }

  // A reshape to `sizes` (the batch axis first; one other may be unknown).
  auto reshape = [&](Value x, ArrayRef<int64_t> sizes, StringRef part) -> Expected<Value> {
    SmallVector<int64_t> target;
    for (int64_t s : sizes.drop_front())
      target.push_back(s == kDynamic ? -1 : s);
    if (llvm::count(target, -1) > 1)
      return layer.error("keeps two input axes of unknown size: give the model a "
                         "fixed input shape");
    return reshapeTo(c, x, target, part);
  };
  SmallVector<int64_t> rows(in.drop_back(contracted));
  Value x = c.input;
  if (contracted != 1) {
    SmallVector<int64_t> flat(rows);
    flat.push_back(k);
    Expected<Value> r = reshape(x, flat, "flat");
    if (!r)
      return r.takeError();
    x = *r;
  }
  SmallVector<int64_t> dense(shapeOf(x).drop_back());
  dense.push_back(n);
  SmallVector<int64_t> out(rows);
  out.append(appendedSizes);
  bool unflatten = ArrayRef<int64_t>(dense) != ArrayRef<int64_t>(out);
  Value y = DenseOp::create(c.builder,
                            unflatten ? layerLoc(c.builder, layer.getName() + "/flat") : c.loc,
                            tensorType(c.builder, dense), x, *kernel, bias, act->kind,
                            act->alpha)
                .getResult();
  if (!unflatten)
    return y;
  // The layer's last op carries its location.
  Expected<Value> unflattened = reshape(y, out, "unflat");
  if (unflattened)
    unflattened->getDefiningOp()->setLoc(c.loc);
  return unflattened;
}

} // namespace seq::keras
