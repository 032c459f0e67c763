// --run --ray ADDRESS: the job of --run on a Ray cluster.
//
//   seq-compile model.h5 --run --input 'data/*.npy' -o out/ --ray auto
//               [--ray-workers N] [--engine=jit] [--batch N] [--progress=...]
//
// Ray is a Python system, so this action checks what it can here (flags, the
// model, every shard: readable, rows, shape), then hands the run to the
// Python package seqc (python-bindings/seqc/_raycli.py) by exec'ing a Python
// that has seqc and ray: $SEQC_PYTHON, else the build's own environment
// (build/venv, beside build/bin), else python3 on PATH. That Python loads the
// model, sends it as bytes to one actor per worker, and writes one .npy per
// input shard into -o DIR/, atomically, with --run's progress bar.
#include "Actions.h"
#include "Mode.h"

#include "seq/Dialect/Seq/IR/ModelIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "seq/Runtime/Engine.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

using namespace llvm;

namespace {

cl::opt<std::string> rayAddress(
    "ray",
    cl::desc("Run --run on a Ray cluster: auto (the cluster this machine "
             "belongs to), HOST:PORT or ray://HOST:PORT, or local (start one "
             "on this machine); needs -o DIR/ and .npy inputs"),
    cl::value_desc("address"), cl::cat(seqc::seqCompileCategory));
cl::opt<unsigned> rayWorkers(
    "ray-workers",
    cl::desc("Ray actors for --ray, one CPU each (default: the cluster's CPUs)"),
    cl::value_desc("N"), cl::init(0), cl::cat(seqc::seqCompileCategory));

// Runs in the chosen Python: a clear line when seqc itself is missing, and
// never the current directory's ./seqc (a source tree) instead of the
// installed package.
constexpr const char *kBootstrap =
    "import sys\n"
    "sys.path = [p for p in sys.path if p not in ('', '.')]\n"
    "try:\n"
    "    from seqc import _raycli\n"
    "except ImportError as e:\n"
    "    sys.stderr.write('seq-compile: error: --ray runs in Python, and ' + "
    "sys.executable + ' cannot import seqc (' + str(e).splitlines()[0] + '): "
    "install the bindings (python-bindings/run-tests.sh installs them into "
    "build/venv), or set SEQC_PYTHON to a Python that has seqc and ray\\n')\n"
    "    sys.exit(1)\n"
    "sys.exit(_raycli.main(sys.argv[1:]))\n";

/// The Python to hand over to, or "" when there is none.
std::string findPython() {
  if (const char *chosen = std::getenv("SEQC_PYTHON"); chosen && *chosen)
    return chosen;
  std::string self = sys::fs::getMainExecutable(nullptr, nullptr);
  if (!self.empty()) {
    SmallString<256> venv(sys::path::parent_path(sys::path::parent_path(self)));
    sys::path::append(venv, "venv", "bin", "python");
    if (sys::fs::can_execute(venv))
      return venv.str().str();
  }
  if (ErrorOr<std::string> onPath = sys::findProgramByName("python3"))
    return *onPath;
  return "";
}

/// "?,12" as --input-shape takes it.
std::string shapeText(const std::vector<int64_t> &shape) {
  std::vector<std::string> sizes;
  for (int64_t d : shape)
    sizes.push_back(d < 0 ? "?" : std::to_string(d));
  return join(sizes, ",");
}

std::optional<int> rayAction(seqc::Session &session) {
  if (seqc::plan().mode != seqc::Mode::Run || !rayAddress.getNumOccurrences())
    return std::nullopt;
  if (rayAddress.empty())
    return seqc::fail("--ray needs an address: auto, HOST:PORT, ray://HOST:PORT "
                      "or local", 2);
  if (!seqc::outputIsDirectory())
    return seqc::fail("--ray writes one output per input shard: give a "
                      "directory, -o " + seqc::outputPath + "/", 2);
  seqc::registerEngines();
  std::vector<std::string> names = seq::rt::engineNames();
  if (!llvm::is_contained(names, seqc::engineName))
    return seqc::fail("unknown engine '" + seqc::engineName +
                      "' (available: " + join(names, ", ") + ")", 2);
  if (seq::fixedBatch(*session.model.module))
    return seqc::fail("--ray runs batches in parallel, but this model's batches depend on "
                      "each other (stateful layers carry their state from one to the next): "
                      "run without --ray", 2);
  Expected<seq::ModelIO> io = seq::modelIO(
      session.model.module->lookupSymbol<mlir::func::FuncOp>("predict"));
  if (!io)
    return seqc::fail(toString(io.takeError()));
  if (io->inputs.size() > 1 || io->outputs.size() > 1)
    return seqc::fail("--ray runs models with one input and one output yet; this one has " +
                      Twine(io->inputs.size()) + " input(s) and " +
                      Twine(io->outputs.size()) + " output(s): run without --ray", 2);
  Expected<std::vector<std::string>> specs = seqc::expandInputs(seqc::inputSpecs);
  if (!specs)
    return seqc::fail(toString(specs.takeError()));
  for (const std::string &spec : *specs)
    if (sys::path::extension(spec) != ".npy" || !sys::fs::is_regular_file(spec))
      return seqc::fail("--ray reads .npy shards, and '" + spec +
                        "' is not one: convert it, or run without --ray", 2);
  Expected<std::vector<seqc::RunShard>> shards =
      seqc::checkRunShards(*session.model.module);
  if (!shards)
    return seqc::fail(toString(shards.takeError()));

  std::string python = findPython();
  if (python.empty())
    return seqc::fail("--ray runs in Python, and no Python was found: set "
                      "SEQC_PYTHON to a Python that has seqc and ray");

  const seq::keras::ImportOptions &options = session.options;
  std::vector<std::string> args = {python, "-c", kBootstrap,
                                   "--model", options.modelPath};
  if (!options.configPath.empty())
    args.insert(args.end(), {"--config", options.configPath});
  if (options.inputShape)
    args.insert(args.end(), {"--input-shape", shapeText(*options.inputShape)});
  for (const auto &[key, value] : options.metadata)
    args.insert(args.end(), {"--metadata", key + "=" + value});
  args.insert(args.end(), {"--engine", seqc::engineName, "--progress",
                           seqc::runProgressMode().str(), "--ray", rayAddress,
                           "-o", seqc::outputPath, "--seqc-version", SEQ_VERSION});
  if (seqc::runBatchSize())
    args.insert(args.end(), {"--batch", std::to_string(seqc::runBatchSize())});
  if (rayWorkers)
    args.insert(args.end(), {"--workers", std::to_string(rayWorkers)});
  args.push_back("--");
  for (const seqc::RunShard &shard : *shards)
    args.push_back(shard.spec);

  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  outs().flush();
  errs().flush();
  execv(python.c_str(), argv.data());
  return seqc::fail("--ray: cannot run '" + python + "': " + std::strerror(errno));
}

seqc::RegisterAction ray(40, seqc::ModelAction(rayAction));

} // namespace
