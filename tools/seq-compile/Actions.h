// seq-compile is a thin driver: each feature lives in its own file here,
// defines its flags in `seqCompileCategory`, and registers an action that
// main() offers the imported model to. An action returns std::nullopt when
// its flags were not given, else the exit code.
#ifndef SEQ_TOOLS_SEQ_COMPILE_ACTIONS_H
#define SEQ_TOOLS_SEQ_COMPILE_ACTIONS_H

#include "seq/Frontend/Keras/Importer.h"
#include "seq/Runtime/Engine.h"
#include "seq/Runtime/RowSource.h"
#include "seq/Runtime/Tensor.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <string>

namespace seqc {

extern llvm::cl::OptionCategory seqCompileCategory;
/// The model file (positional; "" when not given).
extern llvm::cl::opt<std::string> inputPath;
/// -o (default "-").
extern llvm::cl::opt<std::string> outputPath;
/// --emit=KIND; "seq" (the default) is handled by main.
extern llvm::cl::opt<std::string> emitKind;
/// --target=NAME ("" when not given); each backend's action claims its name.
extern llvm::cl::opt<std::string> targetKind;

// Shared by the actions that run models (Inputs.cpp, RunAction.cpp).
/// --input (repeatable): x.npy, data.h5:/dataset, x.csv, x.tsv, a directory
/// of such shards, or a quoted glob ('shards/*.npy').
extern llvm::cl::list<std::string> inputSpecs;
/// --engine (default "eager").
extern llvm::cl::opt<std::string> engineName;
/// Reads an --input value whole as float32, batch-major (for --compare).
llvm::Expected<seq::rt::Tensor> readInput(llvm::StringRef spec);
/// The --input values as a list of single inputs: directories and globs
/// expanded (in name order).
llvm::Expected<std::vector<std::string>>
expandInputs(llvm::ArrayRef<std::string> specs);
/// One input, streamed. `csvRowShape` reshapes each CSV/TSV line (the model's
/// input shape without the batch axis).
llvm::Expected<std::unique_ptr<seq::rt::RowSource>>
openInput(llvm::StringRef spec, const std::vector<int64_t> &csvRowShape);
/// Registers every engine linked into seq-compile with the engine registry.
void registerEngines();

// --run's settings, shared with --run --ray (RunAction.cpp, RayAction.cpp).
/// An --input of --run, checked: what names it, and its shape.
struct RunShard {
  std::string spec;
  std::vector<int64_t> shape;
};
/// The --input values expanded (directories, globs), each opened and checked
/// against `module` (rows, shape) before anything runs: the error names the
/// bad shard.
llvm::Expected<std::vector<RunShard>> checkRunShards(mlir::ModuleOp module);
/// --batch (0 when not given) and --progress (auto, always, never).
unsigned runBatchSize();
llvm::StringRef runProgressMode();
/// The engine options of --run (--threads N, default 0: one per core), and
/// whether --threads was given.
seq::rt::EngineOptions runEngineOptions();
bool runThreadsGiven();
/// -o names a directory (an existing one, or a path ending in '/'): one
/// output per input shard, DIR/<shard name>.npy.
bool outputIsDirectory();

/// The --input values of a model with several inputs, NAME=FILE each,
/// in the model's input order; an error names what is missing or unknown.
llvm::Expected<std::vector<std::string>> namedInputSpecs(const seq::ModelIO &io);
/// --run of a model with several inputs or outputs (RunPorts.cpp): -o DIR/
/// gets one <output name>.npy per output. Returns the exit code.
int runModelPorts(seq::rt::Engine &engine, std::optional<int64_t> fixedBatch);

struct Session {
  mlir::MLIRContext &context;
  seq::keras::ImportedModel &model;
  /// How the model was imported (path, --config, --input-shape, --metadata).
  const seq::keras::ImportOptions &options;
};

/// Prints "seq-compile: error: <message>" and returns `code`.
int fail(const llvm::Twine &message, int code = 1);

/// Writes `text` to -o (stdout for "-") through a temporary file, so that a
/// failed run leaves nothing half-written. Returns the exit code.
int writeOutput(llvm::StringRef text);

using ModelAction = std::function<std::optional<int>(Session &)>;
/// Actions that need no model (e.g. --doctor) run before importing.
using StandaloneAction = std::function<std::optional<int>()>;

/// Lower `order` runs first. Use from a static initializer:
///   static seqc::RegisterAction r(10, runMyFeature);
struct RegisterAction {
  RegisterAction(int order, ModelAction action);
  RegisterAction(int order, StandaloneAction action);
};

} // namespace seqc

#endif
