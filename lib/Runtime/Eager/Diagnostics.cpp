//===- Diagnostics.cpp - Errors of the eager interpreter ------------------===//

#include "Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <vector>

using namespace mlir;

namespace seq::rt::eager {

/// The Keras layer names in `loc`, outermost first.
static void collectNames(Location loc, std::vector<std::string> &names) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    names.push_back(name.getName().str());
    return;
  }
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location inner : fused.getLocations())
      collectNames(inner, names);
    return;
  }
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    collectNames(callSite.getCallee(), names);
}

/// The first file position in `loc`, if any.
static std::optional<std::string> filePosition(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().str() + ":" + std::to_string(file.getLine()) +
            ":" + std::to_string(file.getColumn()));
  if (auto name = dyn_cast<NameLoc>(loc))
    return filePosition(name.getChildLoc());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::optional<std::string> position = filePosition(inner))
        return position;
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return filePosition(callSite.getCallee());
  return std::nullopt;
}

std::string describeLocation(Location loc) {
  std::vector<std::string> names;
  collectNames(loc, names);
  if (!names.empty()) {
    std::string text = names.size() == 1 ? "layer " : "layers ";
    for (size_t i = 0; i < names.size(); ++i)
      text += (i ? ", '" : "'") + names[i] + "'";
    return text;
  }
  if (std::optional<std::string> position = filePosition(loc))
    return *position;
  return "an unknown location";
}

std::string describeOp(Operation *op) {
  return op->getName().getStringRef().str() + " (" +
         describeLocation(op->getLoc()) + ")";
}

llvm::Error opError(Operation *op, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 describeOp(op) + ": " + message);
}

} // namespace seq::rt::eager
