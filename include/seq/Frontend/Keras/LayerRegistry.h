//===- LayerRegistry.h - The Keras layer classes the importer supports ----===//
//
// What docs/Usage.md's layer table is made of: the layer-family table, the
// classes LayerEmitter imports itself and the merge layers, in one sorted
// list (`seq-compile --list-layers` prints it; test/Docs/layer-table.test
// fails when docs/Usage.md differs).
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_FRONTEND_KERAS_LAYERREGISTRY_H
#define SEQ_FRONTEND_KERAS_LAYERREGISTRY_H

#include <string>
#include <vector>

namespace seq::keras {

/// Every Keras class name the importer accepts (aliases included), sorted.
std::vector<std::string> supportedLayerClasses();

/// docs/Usage.md's generated table of them: a Markdown table of `columns`
/// class names per row, between its begin/end marker lines.
std::string supportedLayerTable(unsigned columns = 4);

} // namespace seq::keras

#endif
