#include "seq/Target/CPU/AotCompiler.h"

#include "AotSupport.h"
#include "LoweredModel.h"
#include "ModelSignature.h"
#include "seq/Dialect/Seq/IR/Metadata.h"
#include "seq/Target/CPU/Pipeline.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <optional>
#include <cstdlib>

using namespace mlir;
using llvm::Error;
using llvm::StringRef;

namespace {

struct EmbeddedFile {
  const char *name;
  const char *text;
};
const EmbeddedFile kRuntimeFiles[] = {
#include "RuntimeSources.inc"
};

/// runtime/seqc_model_api.c and seqc_arena.c, compiled once when seqc was
/// built (lib/Target/CPU/CMakeLists.txt): one relocatable object.
const unsigned char kSupportObject[] = {
#include "SupportObject.inc"
};
#ifdef SEQ_AARCH64_SUPPORT
/// The same, compiled for AArch64 Linux.
const unsigned char kSupportObjectAArch64[] = {
#include "SupportObjectAArch64.inc"
};
#endif

/// The largest input / output rank of a library (SEQC_MAX_RANK in
/// runtime/seqc_model_api.c, whose descriptors have this many sizes).
constexpr size_t kMaxAotRank = 8;
/// The most inputs, and outputs, of a library (SEQC_MAX_PORTS there).
constexpr size_t kMaxAotPorts = 16;

StringRef runtimeFile(StringRef name) {
  for (const EmbeddedFile &f : kRuntimeFiles)
    if (name == f.name)
      return f.text;
  llvm::report_fatal_error("runtime file missing from the build: " + name);
}

Error failure(const llvm::Twine &message) {
  return llvm::createStringError(message.str());
}

int64_t defaultSeqLen(const seq::cpu::ModelSignature &s,
                      const seq::cpu::AotOptions &options) {
  bool dynamic = false;
  for (const seq::ModelPort &input : s.io.inputs)
    dynamic |= input.shape.size() >= 2 && input.shape[1] < 0;
  const std::vector<int64_t> &first = s.io.inputs[0].shape;
  if (!dynamic)
    return first.size() >= 2 ? first[1] : 0;
  return options.defaultMaxSeqLen > 0 ? options.defaultMaxSeqLen : 512;
}

/// `text` with every character outside [A-Za-z0-9._-] replaced by '_': what
/// may appear of a file name in generated text.
std::string whitelisted(StringRef text) {
  std::string out;
  for (char c : text)
    out += llvm::isAlnum(c) || c == '.' || c == '_' || c == '-' ? c : '_';
  return out;
}

/// The batch bound of seqc_model_create: the model's own batch when it is
/// fixed (a stateful model's).
int64_t defaultBatch(const seq::cpu::ModelSignature &s,
                     const seq::cpu::AotOptions &options) {
  int64_t batch = s.io.inputs[0].shape[0];
  return batch >= 0 ? batch : options.defaultMaxBatch;
}

/// Adds the model's data that runtime/seqc_model_api.c reads, as hidden
/// constant globals with fixed names (the support code declares them
/// extern). Strings from the model file are bytes in an array, never text
/// that a compiler parses.
void addModelData(llvm::Module &m, const seq::cpu::ModelSignature &s,
                  StringRef metadata, const seq::cpu::AotOptions &options) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::Type *i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Type *i64 = llvm::Type::getInt64Ty(ctx);
  auto define = [&](StringRef name, llvm::Constant *init) {
    auto *gv = new llvm::GlobalVariable(m, init->getType(), /*isConstant=*/true,
                                        llvm::GlobalValue::ExternalLinkage, init,
                                        name);
    gv->setVisibility(llvm::GlobalValue::HiddenVisibility);
    return gv;
  };
  auto dims = [&](const std::vector<int64_t> &d) {
    std::vector<uint64_t> words(d.begin(), d.end());
    if (words.empty())
      words.push_back(0);
    return llvm::ConstantDataArray::get(ctx, llvm::ArrayRef<uint64_t>(words));
  };
  auto string = [&](StringRef text) {
    // A private array of the bytes and a terminating 0.
    auto *gv = new llvm::GlobalVariable(
        m, llvm::ArrayType::get(llvm::Type::getInt8Ty(ctx), text.size() + 1),
        /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantDataArray::getString(ctx, text, /*AddNull=*/true),
        "seqc.string");
    gv->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    return gv;
  };
  llvm::PointerType *ptr = llvm::PointerType::getUnqual(ctx);
  auto strings = [&](llvm::ArrayRef<std::string> texts) {
    std::vector<llvm::Constant *> pointers;
    for (const std::string &text : texts)
      pointers.push_back(string(text));
    pointers.push_back(llvm::ConstantPointerNull::get(ptr));
    return llvm::ConstantArray::get(llvm::ArrayType::get(ptr, pointers.size()),
                                    pointers);
  };
  // Each port list: count, ranks, all dimensions, names.
  auto ports = [&](StringRef kind, const std::vector<seq::ModelPort> &list) {
    std::vector<uint32_t> ranks;
    std::vector<int64_t> all;
    std::vector<std::string> names;
    for (const seq::ModelPort &port : list) {
      ranks.push_back(port.shape.size());
      all.insert(all.end(), port.shape.begin(), port.shape.end());
      names.push_back(port.name);
    }
    std::string prefix = ("seqc_" + kind).str();
    define(prefix + "_count", llvm::ConstantInt::get(i32, list.size()));
    define(prefix + "_ranks",
           llvm::ConstantDataArray::get(ctx, llvm::ArrayRef<uint32_t>(ranks)));
    define(prefix + "_dims", dims(all));
    define(prefix + "_names", strings(names));
  };
  ports("input", s.io.inputs);
  ports("output", s.io.outputs);
  define("seqc_metadata", llvm::ConstantDataArray::getString(ctx, metadata, true));
  define("seqc_error_site_count", llvm::ConstantInt::get(i32, s.errorSites.size()));
  define("seqc_error_sites", strings(s.errorSites));
  define("seqc_default_max_batch",
         llvm::ConstantInt::get(i64, defaultBatch(s, options)));
  define("seqc_default_max_seq_len",
         llvm::ConstantInt::get(i64, defaultSeqLen(s, options)));

  // The state slots: count, each one's offset in the flat state and its
  // layer's name, and the total.
  std::vector<std::string> layers;
  std::vector<int64_t> offsets;
  for (const seq::StateSlot &slot : s.io.state) {
    layers.push_back(slot.layer);
    offsets.push_back(slot.offset);
  }
  offsets.push_back(seq::stateSize(s.io.state));
  define("seqc_state_count", llvm::ConstantInt::get(i32, s.io.state.size()));
  define("seqc_state_offsets", dims(offsets));
  define("seqc_state_layers", strings(layers));
}

/// seqc_model_predict(result, input, state): the one entry the C API calls,
/// whether @predict takes a state (then `result` holds the output's and
/// the state's descriptors) or not (then `state` is unused).
std::string replaceAll(std::string text, StringRef key, StringRef value) {
  for (size_t at = text.find(key.str()); at != std::string::npos;
       at = text.find(key.str(), at + value.size()))
    text.replace(at, key.size(), value.str());
  return text;
}

/// The public header: the fixed template with numbers, whitelisted names
/// and `target` (targetText) only. Nothing from the model file (metadata,
/// names) goes into it.
std::string publicHeader(const seq::cpu::ModelSignature &s, StringRef headerPath,
                         StringRef libraryPath, StringRef target,
                         const seq::cpu::AotOptions &options) {
  std::string name = whitelisted(llvm::sys::path::filename(headerPath));
  std::string guard = "SEQC_";
  for (char c : name)
    guard += std::isalnum(static_cast<unsigned char>(c))
                 ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                 : '_';
  std::string text = runtimeFile("seqc_model.h.in").str();
  text = replaceAll(text, "@HEADER_NAME@", name);
  text = replaceAll(text, "@GUARD@", guard);
  // Shapes only: the ports' names come from the file and stay out of text.
  auto shapes = [](const std::vector<seq::ModelPort> &ports) {
    std::string text;
    for (const seq::ModelPort &port : ports)
      text += (text.empty() ? "" : ", ") + seq::shapeText(port.shape);
    return text;
  };
  text = replaceAll(text, "@INPUTS@", shapes(s.io.inputs));
  text = replaceAll(text, "@OUTPUTS@", shapes(s.io.outputs));
  text = replaceAll(text, "@TARGET_CPU@", target);
  text = replaceAll(text, "@LIBRARY@",
                    whitelisted(llvm::sys::path::filename(libraryPath)));
  text = replaceAll(text, "@DEFAULT_BATCH@", std::to_string(defaultBatch(s, options)));
  text = replaceAll(text, "@DEFAULT_SEQ_LEN@", std::to_string(defaultSeqLen(s, options)));
  text = replaceAll(text, "@STATE@",
                    s.io.state.empty()
                        ? std::string("none (the model is stateless)")
                        : std::to_string(seq::stateSize(s.io.state)) + " floats of " +
                              std::to_string(s.io.state.size()) +
                              " stateful layer(s), kept by each instance");
  return text;
}

Error emitObject(llvm::Module &m, llvm::TargetMachine &tm,
                 llvm::SmallVectorImpl<char> &object) {
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
    return failure("the target machine cannot emit object files");
  pm.run(m);
  return Error::success();
}

/// One compilation of the model inside a library: for the CPU `cpu`, its
/// entry named `entry`.
struct CodeVariant {
  std::string cpu;
  std::string entry;
};

/// A portable library (the default, on an x86-64 host): x86-64-v3 code
/// (AVX2, any x86-64 CPU since 2015) and x86-64-v4 code (AVX-512), behind a
/// seqc_model_predict that picks one when called (runtime/seqc_cpu.c). Any
/// other `cpu` ("native" included) is one variant.
std::vector<CodeVariant> codeVariants(StringRef cpu, StringRef triple) {
  llvm::Triple target(triple.empty() ? llvm::sys::getProcessTriple()
                                     : llvm::Triple::normalize(triple));
  if ((cpu.empty() || cpu == "portable") && target.getArch() == llvm::Triple::x86_64)
    return {{"x86-64-v3", "seqc_model_predict_x86_64_v3"},
            {"x86-64-v4", "seqc_model_predict_x86_64_v4"}};
  return {{cpu == "portable" ? "" : cpu.str(), "seqc_model_predict"}};
}

/// What the header says the library runs on (names are LLVM's, never the
/// model file's).
std::string targetText(const std::vector<CodeVariant> &variants,
                       const llvm::TargetMachine &baseline) {
  if (baseline.getTargetTriple().isAArch64())
    return "aarch64-linux-gnu, " + whitelisted(baseline.getTargetCPU()) +
           " (NEON)";
  if (variants.size() == 1)
    return whitelisted(baseline.getTargetCPU());
  return "portable: x86-64-v3 (AVX2) code, and x86-64-v4\n"
         " *           (AVX-512) code that runs where the CPU has AVX-512\n"
         " *           (SEQC_CPU=x86-64-v3 in the environment forces the former)";
}

/// Links `code` (another variant of the model) into `into`: everything but
/// its entry is internal (renamed where names meet), and each constant it
/// has twice (the weights: every variant packs them alike) is kept once.
Error linkVariant(llvm::Module &into, std::unique_ptr<llvm::Module> code) {
  for (llvm::Module *m : {&into, code.get()})
    for (llvm::GlobalValue &gv : m->global_values()) {
      if (gv.isDeclaration() || gv.getName().starts_with("seqc_model_predict"))
        continue;
      gv.setLinkage(llvm::GlobalValue::InternalLinkage);
      if (auto *var = llvm::dyn_cast<llvm::GlobalVariable>(&gv);
          var && var->isConstant())
        var->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    }
  if (llvm::Linker::linkModules(into, std::move(code)))
    return failure("linking the model's code variants failed");
  // Constants are uniqued per LLVMContext: equal weights share a pointer.
  llvm::DenseMap<std::pair<llvm::Constant *, unsigned>, llvm::GlobalVariable *> kept;
  for (llvm::GlobalVariable &var : llvm::make_early_inc_range(into.globals())) {
    if (!var.isConstant() || !var.hasLocalLinkage() || !var.hasInitializer() ||
        !var.hasGlobalUnnamedAddr() || var.hasSection())
      continue;
    auto key = std::make_pair(var.getInitializer(), unsigned(var.getAlign().valueOrOne().value()));
    auto [it, inserted] = kept.try_emplace(key, &var);
    if (inserted)
      continue;
    var.replaceAllUsesWith(it->second);
    var.eraseFromParent();
  }
  return Error::success();
}

/// seqc_model_predict: calls the x86-64-v4 variant's entry where the CPU
/// has AVX-512, else the x86-64-v3 one's.
void addDispatchEntry(llvm::Module &m, const std::vector<CodeVariant> &variants) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::PointerType *ptr = llvm::PointerType::getUnqual(ctx);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr, ptr},
                                       false);
  auto *entry = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                       "seqc_model_predict", m);
  entry->addFnAttr("target-cpu", variants.front().cpu);
  llvm::FunctionCallee hasAvx512 = m.getOrInsertFunction(
      "seqc_cpu_has_avx512", llvm::FunctionType::get(llvm::Type::getInt32Ty(ctx), false));
  auto *start = llvm::BasicBlock::Create(ctx, "entry", entry);
  auto *wide = llvm::BasicBlock::Create(ctx, "avx512", entry);
  auto *narrow = llvm::BasicBlock::Create(ctx, "avx2", entry);
  llvm::IRBuilder<> b(start);
  b.CreateCondBr(b.CreateICmpNE(b.CreateCall(hasAvx512), b.getInt32(0)), wide, narrow);
  llvm::SmallVector<llvm::Value *> args;
  for (llvm::Argument &arg : entry->args())
    args.push_back(&arg);
  for (auto [block, variant] : {std::pair{wide, &variants[1]},
                                std::pair{narrow, &variants[0]}}) {
    b.SetInsertPoint(block);
    llvm::Function *callee = m.getFunction(variant->entry);
    b.CreateCall(callee, args);
    b.CreateRetVoid();
    callee->setLinkage(llvm::GlobalValue::InternalLinkage);
  }
}

} // namespace

namespace {

std::string aarch64Sysroot() {
#ifdef SEQ_AARCH64_SYSROOT
  return SEQ_AARCH64_SYSROOT;
#else
  return "";
#endif
}

/// The linker driver and its target flags: the C compiler for the host;
/// clang with lld for AArch64.
llvm::Expected<std::vector<std::string>> linkerCommand(bool aarch64) {
  if (!aarch64) {
    llvm::Expected<std::string> cc = seq::cpu::findCCompiler();
    if (!cc)
      return cc.takeError();
    return std::vector<std::string>{*cc};
  }
  for (StringRef name : {"clang-22", "clang"})
    if (llvm::ErrorOr<std::string> clang = llvm::sys::findProgramByName(name))
      return std::vector<std::string>{*clang, "--target=aarch64-linux-gnu",
                                      "-fuse-ld=lld"};
  return failure(llvm::Twine("no clang found to link an AArch64 library: install "
                             "clang-22 and lld"));
}

} // namespace

std::string seq::cpu::defaultHeaderPath(StringRef outputPath) {
  llvm::SmallString<256> path(outputPath);
  llvm::sys::path::replace_extension(path, ".h");
  return path.str().str();
}

Error seq::cpu::compileAot(ModuleOp module, AotArtifact kind,
                           StringRef outputPath, StringRef headerPath,
                           const AotOptions &options) {
#ifndef SEQ_AARCH64_SUPPORT
  if (!options.targetTriple.empty() &&
      llvm::Triple(llvm::Triple::normalize(options.targetTriple)).isAArch64())
    return failure(llvm::Twine("this seqc was built without AArch64 libraries: install "
                               "clang-22, lld and libc6-dev-arm64-cross (scripts/setup.sh "
                               "does) and rebuild it"));
#endif
  std::vector<CodeVariant> variants = codeVariants(options.cpu, options.targetTriple);
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> linked;
  std::unique_ptr<llvm::TargetMachine> baseline;
  std::optional<ModelSignature> firstSignature;
  for (const CodeVariant &variant : variants) {
    llvm::Expected<std::unique_ptr<llvm::TargetMachine>> tm =
        createTargetMachine(variant.cpu, options.targetTriple);
    if (!tm)
      return tm.takeError();
    llvm::Expected<LoweredModel> lowered =
        lowerModel(module, options.fuse, VectorTarget::of(**tm));
    if (!lowered)
      return lowered.takeError();
    llvm::Expected<std::unique_ptr<llvm::Module>> code =
        translateToLLVMIR(*lowered->module, context, **tm);
    if (!code)
      return code.takeError();
    seq::cpu::addPredictEntry(**code, lowered->signature, variant.entry);
    if (!linked) {
      linked = std::move(*code);
      baseline = std::move(*tm);
      firstSignature = std::move(lowered->signature);
      continue;
    }
    if (Error e = linkVariant(*linked, std::move(*code)))
      return e;
  }
  if (variants.size() > 1)
    addDispatchEntry(*linked, variants);
  const ModelSignature &signature = *firstSignature;
  for (const std::vector<seq::ModelPort> *ports :
       {&signature.io.inputs, &signature.io.outputs}) {
    if (ports->size() > kMaxAotPorts)
      return failure("the model has " + llvm::Twine(ports->size()) +
                     (ports == &signature.io.inputs ? " inputs" : " outputs") +
                     "; an AOT library supports at most " + llvm::Twine(kMaxAotPorts));
    for (const seq::ModelPort &port : *ports)
      if (port.shape.size() > kMaxAotRank)
        return failure("the model's " + llvm::Twine(port.name) + " has rank " +
                       llvm::Twine(port.shape.size()) +
                       "; an AOT library supports at most " + llvm::Twine(kMaxAotRank));
  }
  addModelData(*linked, signature, metadataToJson(module), options);
  // Only the C API leaves the library: several models can live in one
  // process without their code or allocation hooks meeting.
  for (llvm::GlobalValue &gv : linked->global_values())
    if (!gv.isDeclaration() && !gv.hasLocalLinkage())
      gv.setVisibility(llvm::GlobalValue::HiddenVisibility);

  if (kind == AotArtifact::LLVMIR) {
    std::string text;
    llvm::raw_string_ostream os(text);
    linked->print(os, nullptr);
    return writeFileAtomically(outputPath, text);
  }

  llvm::Expected<TempDir> dir = TempDir::create("seqc-aot");
  if (!dir)
    return dir.takeError();
  llvm::SmallString<0> object;
  if (Error e = emitObject(*linked, *baseline, object))
    return e;
  std::string header =
      headerPath.empty() ? defaultHeaderPath(outputPath) : headerPath.str();
  std::string headerText =
      publicHeader(signature, header, outputPath, targetText(variants, *baseline), options);
  bool aarch64 = baseline->getTargetTriple().isAArch64();
  StringRef support(reinterpret_cast<const char *>(kSupportObject), sizeof kSupportObject);
#ifdef SEQ_AARCH64_SUPPORT
  if (aarch64)
    support = StringRef(reinterpret_cast<const char *>(kSupportObjectAArch64),
                        sizeof kSupportObjectAArch64);
#endif
  for (auto [name, bytes] : std::initializer_list<std::pair<StringRef, StringRef>>{
           {"model.o", StringRef(object.data(), object.size())},
           {"seqc_support.o", support}})
    if (Error e = writeFile(dir->file(name), bytes))
      return e;

  // Only linking: no C source is compiled per model.
  llvm::Expected<std::vector<std::string>> linker = linkerCommand(aarch64);
  if (!linker)
    return linker.takeError();
  std::vector<std::string> args = *linker;
  std::string built;
  if (kind == AotArtifact::SharedLibrary) {
    built = dir->file("model.so");
    args.insert(args.end(), {"-shared", "-o", built, dir->file("model.o"),
                             dir->file("seqc_support.o")});
    if (aarch64)
      args.insert(args.end(),
                  {"-nostdlib", "-L" + aarch64Sysroot() + "/lib", "-lc", "-lm"});
    else
      args.insert(args.end(), {"-lm", "-lpthread"});
  } else {
    built = dir->file("combined.o");
    args.insert(args.end(), {"-r", "-nostdlib", "-o", built, dir->file("model.o"),
                             dir->file("seqc_support.o")});
  }
  if (Error e = runTool(args, *dir))
    return e;
  if (Error e = writeFile(dir->file("header.h"), headerText))
    return e;
  return installFiles({{built, outputPath.str()}, {dir->file("header.h"), header}});
}
