// The CPU backend in seq-compile:
//
//   seq-compile model.h5 -o libmodel.so [--header libmodel.h] [--cpu=NAME]
//   seq-compile model.h5 --emit=obj -o model.o     (object + header)
//   seq-compile model.h5 --emit=llvm -o model.ll   (optimised LLVM IR)
//   seq-compile model.h5 --emit=linalg             (after --seq-to-linalg)
//   seq-compile model.h5 --run --engine=jit|aot ... [--jit=off]
//
// It also registers the engines "jit" and "aot"; --jit=off makes "jit" the
// eager interpreter, to rule the compiled path in or out of a problem.
#include "Actions.h"
#include "Mode.h"

#include "seq/Conversion/Passes.h"
#include "seq/Dialect/Seq/Transforms/Pipelines.h"
#include "seq/Target/CPU/AotCompiler.h"
#include "seq/Target/CPU/JitEngine.h"
#include "seq/Target/CPU/Pipeline.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"

#include "seq/Runtime/OutputFile.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

enum class Toggle { On, Off };

cl::opt<Toggle> jit("jit",
                    cl::desc("Compiled execution for --engine=jit (off: run "
                             "the eager interpreter instead)"),
                    cl::values(clEnumValN(Toggle::On, "on", "compile (default)"),
                               clEnumValN(Toggle::Off, "off", "use eager")),
                    cl::init(Toggle::On), cl::cat(seqc::seqCompileCategory));
cl::opt<std::string> cpu("cpu",
                         cl::desc("Target CPU of -o lib.so / --emit=obj|llvm: "
                                  "portable (the default: x86-64-v3 code plus "
                                  "AVX-512 code picked at load time), native "
                                  "(this machine's) or an LLVM name, e.g. znver4"),
                         cl::value_desc("name"), cl::init(""),
                         cl::cat(seqc::seqCompileCategory));
cl::opt<std::string> targetTriple(
    "target-triple",
    cl::desc("Target of -o lib.so / -o model.o|.a / --emit=llvm: this machine's (the "
             "default) or aarch64-linux-gnu (an AArch64 Linux library: NEON code, "
             "linked with clang and lld)"),
    cl::value_desc("triple"), cl::init(""), cl::cat(seqc::seqCompileCategory));
cl::opt<std::string> header("header",
                            cl::desc("C header path for -o lib.so / --emit=obj "
                                     "(default: the output with .h)"),
                            cl::value_desc("path"), cl::cat(seqc::seqCompileCategory));
cl::opt<bool> noFuse("no-fuse",
                     cl::desc("CPU backend: lower the layer-level IR without "
                              "the seq fusion pipeline"),
                     cl::cat(seqc::seqCompileCategory));

std::optional<seq::cpu::AotArtifact> requestedArtifact() {
  if (seqc::plan().mode != seqc::Mode::Compile)
    return std::nullopt;
  switch (seqc::plan().emit) {
  case seqc::Emit::Object:
  case seqc::Emit::StaticArchive:
    return seq::cpu::AotArtifact::Object;
  case seqc::Emit::LLVM:
    return seq::cpu::AotArtifact::LLVMIR;
  case seqc::Emit::SharedLibrary:
    return seq::cpu::AotArtifact::SharedLibrary;
  default:
    return std::nullopt;
  }
}

std::optional<int> registerCpuEngines() {
  seq::registerJitEngine();
  seq::registerAotEngine();
  seq::cpu::setJitEnabled(jit == Toggle::On);
  return std::nullopt;
}

bool elideWeights() {
  cl::Option *option = cl::getRegisteredOptions().lookup("elide-weights");
  return option && option->getNumOccurrences();
}

std::optional<int> emitLinalg(seqc::Session &session) {
  mlir::ModuleOp module = *session.model.module;
  mlir::DialectRegistry registry;
  seq::cpu::registerPipelineDialects(registry);
  session.context.appendDialectRegistry(registry);
  mlir::OwningOpRef<mlir::ModuleOp> lowered = module.clone();
  mlir::PassManager pm(&session.context);
  if (!noFuse)
    seq::buildFusePipeline(pm);
  pm.addPass(seq::createConvertSeqToLinalg());
  if (mlir::failed(pm.run(*lowered)))
    return seqc::fail("lowering to linalg failed (see the diagnostics above)");
  std::string text;
  raw_string_ostream os(text);
  // Weights included: the output parses back (seq-opt, --emit=... again).
  mlir::OpPrintingFlags flags;
  flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  if (elideWeights())
    flags.elideLargeResourceString(0);
  lowered->print(os, flags);
  return seqc::writeOutput(text);
}

/// -o model.a: the relocatable object of --emit=obj in a static archive,
/// installed together with its header.
std::optional<int> writeStaticArchive(seqc::Session &session) {
  SmallString<128> dir;
  if (std::error_code ec = sys::fs::createUniqueDirectory("seqc-archive", dir))
    return seqc::fail("cannot create a temporary directory: " + ec.message());
  llvm::scope_exit cleanup([&] { sys::fs::remove_directories(dir); });
  std::string object = (dir + "/model.o").str();
  std::string objectHeader = (dir + "/model.h").str();
  std::string archive = (dir + "/model.a").str();
  seq::cpu::AotOptions options;
  options.cpu = cpu;
  options.targetTriple = targetTriple;
  options.fuse = !noFuse;
  if (Error e = seq::cpu::compileAot(*session.model.module,
                                     seq::cpu::AotArtifact::Object, object,
                                     objectHeader, options))
    return seqc::fail(toString(std::move(e)));
  Expected<NewArchiveMember> member =
      NewArchiveMember::getFile(object, /*Deterministic=*/true);
  if (!member)
    return seqc::fail(toString(member.takeError()));
  std::vector<NewArchiveMember> members;
  members.push_back(std::move(*member));
  if (Error e = writeArchive(archive, members, SymtabWritingMode::NormalSymtab,
                             object::Archive::K_GNU, /*Deterministic=*/true,
                             /*Thin=*/false))
    return seqc::fail(toString(std::move(e)));
  std::string headerPath = header.empty()
                               ? seq::cpu::defaultHeaderPath(seqc::outputPath)
                               : std::string(header);
  if (Error e = seq::rt::installOutputFiles(
          {{archive, seqc::outputPath}, {objectHeader, headerPath}}))
    return seqc::fail(toString(std::move(e)));
  return 0;
}

std::optional<int> compileForCpu(seqc::Session &session) {
  if (seqc::plan().mode == seqc::Mode::Compile &&
      seqc::plan().emit == seqc::Emit::Linalg)
    return emitLinalg(session);
  if (seqc::plan().mode == seqc::Mode::Compile &&
      seqc::plan().emit == seqc::Emit::StaticArchive)
    return writeStaticArchive(session);
  std::optional<seq::cpu::AotArtifact> artifact = requestedArtifact();
  if (!artifact)
    return std::nullopt;
  seq::cpu::AotOptions options;
  options.cpu = cpu;
  options.targetTriple = targetTriple;
  options.fuse = !noFuse;
  if (Error e = seq::cpu::compileAot(*session.model.module, *artifact,
                                     seqc::outputPath, header, options))
    return seqc::fail(toString(std::move(e)));
  return 0;
}

seqc::RegisterAction engines(5, seqc::StandaloneAction(registerCpuEngines));
seqc::RegisterAction compile(40, seqc::ModelAction(compileForCpu));

} // namespace
