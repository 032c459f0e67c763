#include "Mode.h"

#include "Actions.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"

#include <functional>
#include <vector>

using namespace llvm;

namespace seqc {
namespace {

Plan decided;

cl::Option *option(StringRef name) {
  return cl::getRegisteredOptions().lookup(name);
}

bool given(StringRef name) {
  cl::Option *o = option(name);
  return o && o->getNumOccurrences() > 0;
}

std::string engine() { return engineName; }

bool compiledCpuEngine() {
  return engine() == "jit" || engine() == "aot";
}

bool cudaEngine() { return engine() == "cuda" || engine() == "cudnn"; }

bool isCompile(Emit e) { return decided.mode == Mode::Compile && decided.emit == e; }

bool cpuArtifact() {
  return isCompile(Emit::Object) || isCompile(Emit::SharedLibrary) ||
         isCompile(Emit::StaticArchive);
}

/// Which flags each mode uses. A flag outside its owners' modes is an error
/// naming the owners, so the message says what to write instead.
struct Ownership {
  const char *flag;
  const char *owners; ///< For the message: "--run or --compare".
  std::function<bool()> uses;
};

const std::vector<Ownership> &ownerships() {
  auto running = [] {
    return decided.mode == Mode::Run || decided.mode == Mode::Compare;
  };
  static const std::vector<Ownership> table = {
      {"input", "--run or --compare", running},
      {"engine", "--run or --compare", running},
      {"jit", "--run or --compare with --engine=jit",
       [=] { return running() && engine() == "jit"; }},
      {"batch", "--run", [] { return decided.mode == Mode::Run; }},
      // With --ray, each worker splits its batches across the CPUs Ray
      // gives it (seqc.ray.Predictor), on engines of one thread each.
      {"threads", "--run without --ray",
       [] { return decided.mode == Mode::Run && !given("ray"); }},
      {"progress", "--run", [] { return decided.mode == Mode::Run; }},
      {"ray", "--run", [] { return decided.mode == Mode::Run; }},
      {"ray-workers", "--run --ray",
       [] { return decided.mode == Mode::Run && given("ray"); }},
      {"iterations", "--compare", [] { return decided.mode == Mode::Compare; }},
      {"json", "--compare", [] { return decided.mode == Mode::Compare; }},
      {"report", "--compare", [] { return decided.mode == Mode::Compare; }},
      {"atol", "--compare", [] { return decided.mode == Mode::Compare; }},
      {"rtol", "--compare", [] { return decided.mode == Mode::Compare; }},
      {"max-slowdown", "--compare", [] { return decided.mode == Mode::Compare; }},
      {"max-growth", "--compare", [] { return decided.mode == Mode::Compare; }},
      {"min-slowdown-us", "--compare",
       [] { return decided.mode == Mode::Compare; }},
      {"min-slowdown-pct", "--compare",
       [] { return decided.mode == Mode::Compare; }},
      {"header", "-o lib.so, -o model.o or -o model.a", cpuArtifact},
      {"cpu", "-o lib.so, -o model.o, -o model.a or --emit=llvm",
       [] { return cpuArtifact() || isCompile(Emit::LLVM); }},
      {"target-triple", "-o lib.so, -o model.o, -o model.a or --emit=llvm",
       [] { return cpuArtifact() || isCompile(Emit::LLVM); }},
      {"no-fuse",
       "the CPU backend (-o lib.so, --emit=obj|llvm|linalg, --engine=jit|aot)",
       [=] {
         return cpuArtifact() || isCompile(Emit::LLVM) ||
                isCompile(Emit::Linalg) || (running() && compiledCpuEngine());
       }},
      {"dot-before", "--emit=fused", [] { return isCompile(Emit::Fused); }},
      {"dot-after", "--emit=fused", [] { return isCompile(Emit::Fused); }},
      {"elide-weights", "--emit=seq|fused|linalg",
       [] {
         return isCompile(Emit::Seq) || isCompile(Emit::Fused) ||
                isCompile(Emit::Linalg);
       }},
  };
  static const std::vector<Ownership> withCuda = [&] {
    std::vector<Ownership> all = table;
    auto cuda = [=] {
      return isCompile(Emit::CudaLibrary) || isCompile(Emit::CudaSource) ||
             (running() && cudaEngine());
    };
    for (const char *flag : {"rnn-backend", "cuda-arch", "nvcc",
                             "cuda-max-batch", "cuda-max-seq-len",
                             "cuda-skip-fusion"})
      all.push_back({flag, "--target=cuda or --engine=cuda|cudnn", cuda});
    for (const char *flag : {"conv-backend", "cuda-math"})
      all.push_back({flag, "--target=cuda (-o lib.so or --emit=cuda)", [] {
                       return isCompile(Emit::CudaLibrary) || isCompile(Emit::CudaSource);
                     }});
    all.push_back({"cuda-weights", "--emit=cuda",
                   [] { return isCompile(Emit::CudaSource); }});
    return all;
  }();
  return withCuda;
}

/// Output kinds known by their suffix.
std::optional<Emit> emitForSuffix(StringRef suffix, bool cuda) {
  return StringSwitch<std::optional<Emit>>(suffix)
      .Case(".so", cuda ? Emit::CudaLibrary : Emit::SharedLibrary)
      .Case(".o", Emit::Object)
      .Case(".a", Emit::StaticArchive)
      .Case(".ll", Emit::LLVM)
      .Case(".cu", Emit::CudaSource)
      .Default(std::nullopt);
}

/// Suffixes that are data, not compiler output.
bool isDataSuffix(StringRef suffix) {
  return suffix == ".npy" || suffix == ".npz" || suffix == ".h5" ||
         suffix == ".hdf5" || suffix == ".csv" || suffix == ".tsv";
}

/// Binary outputs that a text mode (summary, metadata, report) must not
/// write into.
bool isBinarySuffix(StringRef suffix) {
  return isDataSuffix(suffix) || suffix == ".so" || suffix == ".o" ||
         suffix == ".a" || suffix == ".keras";
}

/// What -o names, for messages.
std::string describeSuffix(StringRef suffix) {
  return StringSwitch<std::string>(suffix)
      .Case(".so", "a shared library")
      .Case(".o", "an object file")
      .Case(".a", "a static archive")
      .Case(".ll", "LLVM IR")
      .Case(".cu", "CUDA source")
      .Case(".h", "a C header")
      .Case(".mlir", "MLIR text")
      .Case(".npy", "a .npy array")
      .Case(".npz", "a .npz archive")
      .Case(".keras", "a Keras model")
      .Default(("a " + suffix.drop_front() + " file").str());
}

/// The suffixes that fit each emit kind ("" = any suffix not known to mean
/// something else).
bool suffixFits(Emit emit, StringRef suffix, bool known) {
  switch (emit) {
  case Emit::Seq:
  case Emit::Fused:
  case Emit::Linalg:
    return suffix == ".mlir" || !known;
  case Emit::LLVM:
    return suffix == ".ll" || !known;
  case Emit::CudaSource:
  case Emit::CudaRuntime:
    return suffix == ".cu" || !known;
  case Emit::Object:
    return suffix == ".o";
  case Emit::SharedLibrary:
  case Emit::CudaLibrary:
    return suffix == ".so";
  case Emit::StaticArchive:
    return suffix == ".a";
  }
  return false;
}

int usage(const Twine &message) { return fail(message, 2); }

std::optional<int> decideCompile(bool cuda, StringRef suffix) {
  bool known = emitForSuffix(suffix, cuda) || isDataSuffix(suffix) ||
               suffix == ".h" || suffix == ".mlir" || suffix == ".keras";
  if (suffix == ".h")
    return usage("-o " + outputPath +
                 ": the C header is written beside the library; name the "
                 "library instead (-o libmodel.so writes libmodel.h too)");
  if (isDataSuffix(suffix))
    return usage("-o " + outputPath + " names " + describeSuffix(suffix) +
                 ", which only --run writes: add --run --input x.npy");
  if (suffix == ".keras")
    return usage("-o " + outputPath + " names a Keras model, which seqc does "
                                      "not write");
  if (!emitKind.getNumOccurrences()) {
    // An explicit --target means a library, whatever -o is called.
    std::optional<Emit> bySuffix = emitForSuffix(suffix, cuda);
    decided.emit = bySuffix            ? *bySuffix
                   : cuda              ? Emit::CudaLibrary
                   : targetKind.empty() ? Emit::Seq
                                        : Emit::SharedLibrary;
  } else {
    std::optional<Emit> named =
        StringSwitch<std::optional<Emit>>(emitKind)
            .Case("seq", Emit::Seq)
            .Case("fused", Emit::Fused)
            .Case("linalg", Emit::Linalg)
            .Case("llvm", Emit::LLVM)
            .Case("obj", Emit::Object)
            .Case("lib", cuda ? Emit::CudaLibrary : Emit::SharedLibrary)
            .Case("archive", Emit::StaticArchive)
            .Case("cuda", Emit::CudaSource)
            .Case("cuda-runtime", Emit::CudaRuntime)
            .Default(std::nullopt);
    if (!named)
      return usage("unknown --emit=" + emitKind +
                   " (known: seq, fused, linalg, llvm, obj, lib, archive, "
                   "cuda, cuda-runtime)");
    decided.emit = *named;
    if (outputPath != "-" && !suffixFits(decided.emit, suffix, known))
      return usage("--emit=" + emitKind + " does not write " +
                   describeSuffix(suffix) + " (-o " + outputPath +
                   "): change the suffix or drop --emit");
  }
  bool cudaKind = decided.emit == Emit::CudaLibrary ||
                  decided.emit == Emit::CudaSource || decided.emit == Emit::CudaRuntime;
  bool cpuKind = decided.emit == Emit::LLVM || decided.emit == Emit::Object ||
                 decided.emit == Emit::SharedLibrary ||
                 decided.emit == Emit::StaticArchive ||
                 decided.emit == Emit::Linalg;
  if (cuda && cpuKind)
    return usage("--target=cuda does not write " +
                 std::string(emitName(decided.emit)) +
                 " output: use -o libmodel.so or --emit=cuda");
  if (targetKind == "cpu" && cudaKind)
    return usage("--emit=cuda is CUDA output: use --target=cuda, not cpu");
  bool binary = decided.emit == Emit::Object ||
                decided.emit == Emit::SharedLibrary ||
                decided.emit == Emit::StaticArchive ||
                decided.emit == Emit::CudaLibrary;
  if (decided.emit == Emit::CudaLibrary && outputPath == "-")
    return usage("--target=cuda builds a shared library: give -o "
                 "libmodel.so (or --emit=cuda for the CUDA source)");
  if (binary && outputPath == "-")
    return usage("--emit=" + std::string(emitName(decided.emit)) +
                 " writes a binary file: give it with -o");
  return std::nullopt;
}

} // namespace

StringRef emitName(Emit emit) {
  switch (emit) {
  case Emit::Seq:
    return "seq";
  case Emit::Fused:
    return "fused";
  case Emit::Linalg:
    return "linalg";
  case Emit::LLVM:
    return "llvm";
  case Emit::Object:
    return "obj";
  case Emit::SharedLibrary:
  case Emit::CudaLibrary:
    return "lib";
  case Emit::StaticArchive:
    return "archive";
  case Emit::CudaSource:
    return "cuda";
  case Emit::CudaRuntime:
    return "cuda-runtime";
  }
  return "seq";
}

const Plan &plan() { return decided; }

std::optional<int> decidePlan() {
  if (given("compare-worker")) {
    decided.mode = Mode::Worker;
    return std::nullopt;
  }
  std::vector<std::pair<const char *, Mode>> modes;
  for (auto [flag, mode] : {std::pair{"doctor", Mode::Doctor},
                            std::pair{"summary", Mode::Summary},
                            std::pair{"print-metadata", Mode::PrintMetadata},
                            std::pair{"run", Mode::Run},
                            std::pair{"compare", Mode::Compare}})
    if (given(flag))
      modes.emplace_back(flag, mode);
  if (modes.size() > 1)
    return usage(std::string("--") + modes[0].first + " and --" +
                 modes[1].first + " are two modes: run seq-compile once for "
                 "each");
  decided.mode = modes.empty() ? Mode::Compile : modes[0].second;

  if (!targetKind.empty() && targetKind != "cpu" && targetKind != "cuda")
    return usage("unknown --target=" + targetKind + " (known: cpu, cuda)");
  bool cuda = targetKind == "cuda";
  if (!targetKind.empty() && decided.mode != Mode::Compile)
    return usage("--target belongs to compiling (-o lib.so, --emit=...); "
                 "--run and --compare choose with --engine");
  if (emitKind.getNumOccurrences() && decided.mode != Mode::Compile)
    return usage("--emit belongs to compiling, not --" +
                 std::string(modes[0].first) + ": drop it");

  StringRef suffix = outputPath == "-" ? StringRef()
                                       : sys::path::extension(outputPath);
  switch (decided.mode) {
  case Mode::Compile:
    if (std::optional<int> code = decideCompile(cuda, suffix))
      return code;
    break;
  case Mode::Run:
    if (outputPath != "-" && !suffix.empty() && suffix != ".npy" &&
        (isBinarySuffix(suffix) || emitForSuffix(suffix, cuda) ||
         suffix == ".mlir" || suffix == ".h"))
      return usage("--run writes a .npy array, not " + describeSuffix(suffix) +
                   " (-o " + outputPath + "): use -o y.npy");
    break;
  case Mode::Doctor:
    if (outputPath.getNumOccurrences())
      return usage("--doctor prints to the terminal: drop -o");
    break;
  default: // summary, metadata, compare: text (or JSON) output
    if (isBinarySuffix(suffix) || emitForSuffix(suffix, cuda))
      return usage("--" + std::string(modes[0].first) + " writes text, not " +
                   describeSuffix(suffix) + " (-o " + outputPath + ")");
    break;
  }

  for (const Ownership &o : ownerships())
    if (given(o.flag) && !o.uses())
      return usage(std::string("--") + o.flag + " belongs to " + o.owners +
                   ": drop it, or add what it belongs to");
  return std::nullopt;
}

} // namespace seqc
