//===- LayersAction.cpp - seq-compile --list-layers -----------------------===//
//
//   seq-compile --list-layers
//
// prints the table of supported Keras layer classes that docs/Usage.md
// holds (from the importer's registry; test/Docs/layer-table.test checks
// that the docs are up to date).
//
//===----------------------------------------------------------------------===//

#include "Actions.h"

#include "seq/Frontend/Keras/LayerRegistry.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

cl::opt<bool> listLayers("list-layers",
                         cl::desc("Print the Keras layer classes the importer supports "
                                  "(docs/Usage.md's table)"),
                         cl::cat(seqc::seqCompileCategory));

std::optional<int> runListLayers() {
  if (!listLayers)
    return std::nullopt;
  outs() << seq::keras::supportedLayerTable();
  outs().flush();
  return 0;
}

seqc::RegisterAction listLayersAction(5, seqc::StandaloneAction(runListLayers));

} // namespace
