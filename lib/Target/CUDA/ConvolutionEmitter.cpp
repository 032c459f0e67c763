//===- ConvolutionEmitter.cpp - Convolutions: direct, cuDNN or the faster -===//
//
// A Conv1D/2D/3D runs on seqc's direct kernel, on cudnnConvolutionForward
// (kernels/seqc_cudnn.cuh) or, with --conv-backend=auto, on whichever of the
// two the first call with each input shape measures faster
// (seqc::run_faster). cuDNN pads both sides of an axis alike: a padding it
// cannot express (an uneven `same`, a causal one) becomes a zero-padded copy
// of the input convolved without padding.
//
//===----------------------------------------------------------------------===//

#include "ModelEmitter.h"

#include "seq/Dialect/Seq/IR/SeqShapes.h"

using namespace mlir;

namespace seq::cuda::detail {

namespace {

/// The zeros a padding adds along one axis: in all, and before the input.
/// Static where the padding, window and stride (or the input's size) fix
/// them, else C++ expressions over the input's size `in`.
struct AxisPadding {
  std::string total, before;
  std::optional<int64_t> staticTotal, staticBefore;
};

AxisPadding axisPadding(Padding padding, const std::string &in, int64_t staticIn, int64_t span,
                        int64_t stride) {
  auto fixed = [](int64_t total, int64_t before) {
    return AxisPadding{std::to_string(total), std::to_string(before), total, before};
  };
  switch (padding) {
  case Padding::Valid:
    return fixed(0, 0);
  case Padding::Causal:
    return fixed(span - 1, span - 1);
  case Padding::Same:
    break;
  }
  if (stride == 1)
    return fixed(span - 1, (span - 1) / 2);
  int64_t out = shapes::conv1dLength(staticIn, span, stride, 1, Padding::Same);
  if (!ShapedType::isDynamic(out)) {
    int64_t total = std::max<int64_t>((out - 1) * stride + span - staticIn, 0);
    return fixed(total, total / 2);
  }
  std::string total = "seqc::same_padding_total(" + in + ", " + std::to_string(span) + ", " +
                      std::to_string(stride) + ")";
  return {total, total + " / 2", std::nullopt, std::nullopt};
}

} // namespace

std::string Emitter::emitCudnnConvolution(Operation *op, const ConvolutionLayer &c, unsigned x,
                                          const Dims &in, ArrayRef<int64_t> pads) {
  usesCudnn = true;
  std::string conv = "conv_" + buffers[c.y].name;
  modelFields += "  seqc::CudnnConv " + conv + "; // " + tag(op) + "\n";
  createCode += "  SEQC_CREATE_CUDNN(" + text(layer(op)) + ", seqc::cudnn_conv_create(m->stream, m->" +
                conv + ", " + std::to_string(c.channels) + ", " + std::to_string(c.filters) +
                ", " + std::to_string(c.groups) + ", " + sizes3(c.kernel) + ", " + sizes3(pads) +
                ", " + sizes3(c.strides) + ", " + sizes3(c.dilations) + ", " + c.weights + "));\n";
  destroyCode += "  seqc::cudnn_conv_destroy(m->" + conv + ");\n";
  Dims spatial{in.begin() + 1, in.end() - 1};
  return "seqc::cudnn_conv_run<" + actName(c.act) + ">(m->cudnn, m->stream, m->" + conv + ", " +
         ptr(x) + ", (int)" + in[0] + ", " + sizes3(spatial) + ", " + sizes3(c.out) + ", " +
         ptr(c.y) + ", " + c.bias + ", " + c.alpha + ")";
}

void Emitter::emitConvolution(Operation *op, const ConvolutionLayer &c) {
  // In the layer's own axes (a Conv1D's unit height left out).
  std::string shape = joined(ArrayRef<int64_t>(c.kernel).take_back(c.key.size()), "x") + ", " +
                      std::to_string(c.groups) + " group(s), ";
  std::string epilogue = ", " + stringifyActivation(c.act).str() + " -> " + buffers[c.y].name;
  if (options.convBackend == ConvBackend::Direct) {
    comment(op, "direct convolution, kernel " + shape +
                    stringifyPadding(c.paddings.back()).str() + epilogue);
    forwardCode += tryLaunch(op, c.direct);
    return;
  }
  const size_t n = c.kernel.size();
  SmallVector<AxisPadding> axes;
  bool symmetric = true;
  for (size_t i = 0; i < n; ++i) {
    axes.push_back(axisPadding(c.paddings[i], c.in[i + 1], c.staticIn[i],
                               c.dilations[i] * (c.kernel[i] - 1) + 1, c.strides[i]));
    symmetric = symmetric && axes.back().staticTotal &&
                *axes.back().staticTotal == 2 * *axes.back().staticBefore;
  }
  unsigned cudnnInput = c.x;
  Dims cudnnIn = c.in;
  SmallVector<int64_t> pads;
  std::string padCopy, padding;
  if (symmetric) {
    for (const AxisPadding &axis : axes)
      pads.push_back(*axis.staticBefore);
    padding = "padding " + joined(ArrayRef<int64_t>(pads).take_back(c.key.size()), "x");
  } else {
    Dims offset{"0"};
    for (size_t i = 0; i < n; ++i) {
      if (axes[i].staticTotal != 0)
        cudnnIn[i + 1] = c.in[i + 1] + " + " + axes[i].total;
      offset.push_back(axes[i].before);
    }
    offset.push_back("0");
    cudnnInput = newBuffer(cudnnIn, tag(op) + " input, zero-padded for cuDNN");
    cudnnIn = dimsOf(cudnnInput);
    padCopy = "seqc::shift_copy(m->stream, " + ptr(c.x) + ", " + ptr(cudnnInput) + ", " +
              shape5(c.in) + ", " + shape5(cudnnIn) + ", " + shape5(offset) + ")";
    pads.assign(n, 0);
    padding = "padding as a zero-padded copy " + buffers[cudnnInput].name +
              " (cuDNN pads both sides alike)";
  }
  std::string cudnn = emitCudnnConvolution(op, c, cudnnInput, cudnnIn, pads);
  std::string layerName = text(layer(op));
  if (options.convBackend == ConvBackend::Cudnn) {
    comment(op, "convolution on cuDNN (cudnnConvolutionForward), kernel " + shape + padding +
                    epilogue);
    if (!padCopy.empty())
      forwardCode += tryLaunch(op, padCopy);
    forwardCode += "  SEQC_TRY_MSG(" + layerName + ", " + cudnn + ");\n";
    return;
  }
  // Auto: the first call with each input shape times both.
  std::string choice = "choice_" + buffers[c.y].name;
  modelFields += "  seqc::MeasuredChoice " + choice + "; // " + tag(op) + "\n";
  comment(op, "convolution on the faster of the direct kernel and cuDNN (timed per input "
              "shape), kernel " +
                  shape + padding + epilogue);
  std::string key = c.in[0];
  for (size_t i = 0; i < 3; ++i)
    key += ", " + (i < c.key.size() ? c.key[i] : std::string("1"));
  forwardCode += "  {\n    const int64_t key[seqc::MeasuredChoice::kKey] = {" + key +
                 "};\n    SEQC_TRY_MSG(" + layerName + ", seqc::run_faster(m->stream, m->" +
                 choice + ", key, " + std::to_string(c.key.size()) + ", (const char *)" +
                 layerName + ", \"direct\", \"cuDNN\",\n        [&] { return seqc::cuda_error(" +
                 c.direct + "); },\n        [&]() -> const char * {\n" +
                 (padCopy.empty() ? ""
                                  : "          if (const char *e = seqc::cuda_error(" + padCopy +
                                        "))\n            return e;\n") +
                 "          return " + cudnn + ";\n        }));\n  }\n";
}

} // namespace seq::cuda::detail
