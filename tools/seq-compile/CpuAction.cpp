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

#include "seq/Conversion/Passes.h"
#include "seq/Dialect/Seq/Transforms/Pipelines.h"
#include "seq/Target/CPU/AotCompiler.h"
#include "seq/Target/CPU/JitEngine.h"
#include "seq/Target/CPU/Pipeline.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"

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
                         cl::desc("Target CPU of -o lib.so / --emit=obj|llvm "
                                  "(LLVM name, e.g. znver4; default: this "
                                  "machine's)"),
                         cl::value_desc("name"), cl::init(""),
                         cl::cat(seqc::seqCompileCategory));
cl::opt<std::string> header("header",
                            cl::desc("C header path for -o lib.so / --emit=obj "
                                     "(default: the output with .h)"),
                            cl::value_desc("path"), cl::cat(seqc::seqCompileCategory));
cl::opt<bool> noFuse("no-fuse",
                     cl::desc("CPU backend: lower the layer-level IR without "
                              "the seq fusion pipeline"),
                     cl::cat(seqc::seqCompileCategory));

std::optional<seq::cpu::AotArtifact> requestedArtifact() {
  if (!seqc::targetKind.empty() && seqc::targetKind != "cpu")
    return std::nullopt;
  StringRef emit = seqc::emitKind;
  if (emit == "obj")
    return seq::cpu::AotArtifact::Object;
  if (emit == "llvm")
    return seq::cpu::AotArtifact::LLVMIR;
  // -o x.so means "build a library" unless another action owns -o.
  auto given = [](StringRef flag) {
    cl::Option *option = cl::getRegisteredOptions().lookup(flag);
    return option && option->getNumOccurrences() > 0;
  };
  if (!seqc::emitKind.getNumOccurrences() && !given("run") &&
      !given("compare") && StringRef(seqc::outputPath).ends_with(".so"))
    return seq::cpu::AotArtifact::SharedLibrary;
  return std::nullopt;
}

std::optional<int> registerCpuEngines() {
  seq::registerJitEngine();
  seq::registerAotEngine();
  seq::cpu::setJitEnabled(jit == Toggle::On);
  if (header.getNumOccurrences() && !requestedArtifact())
    return seqc::fail("--header needs -o lib.so or --emit=obj", 2);
  if (!cpu.empty() && !requestedArtifact())
    return seqc::fail("--cpu needs -o lib.so or --emit=obj|llvm (the JIT "
                      "always targets this machine)",
                      2);
  std::optional<seq::cpu::AotArtifact> artifact = requestedArtifact();
  if (artifact && seqc::outputPath == "-" &&
      *artifact != seq::cpu::AotArtifact::LLVMIR)
    return seqc::fail("--emit=obj writes a binary file: give it with -o", 2);
  return std::nullopt;
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
  mlir::OpPrintingFlags flags;
  flags.elideLargeResourceString(0);
  lowered->print(os, flags);
  return seqc::writeOutput(text);
}

std::optional<int> compileForCpu(seqc::Session &session) {
  if (seqc::emitKind == "linalg")
    return emitLinalg(session);
  std::optional<seq::cpu::AotArtifact> artifact = requestedArtifact();
  if (!artifact)
    return std::nullopt;
  seq::cpu::AotOptions options;
  options.cpu = cpu;
  options.fuse = !noFuse;
  if (Error e = seq::cpu::compileAot(*session.model.module, *artifact,
                                     seqc::outputPath, header, options))
    return seqc::fail(toString(std::move(e)));
  return 0;
}

seqc::RegisterAction engines(5, seqc::StandaloneAction(registerCpuEngines));
seqc::RegisterAction compile(40, seqc::ModelAction(compileForCpu));

} // namespace
