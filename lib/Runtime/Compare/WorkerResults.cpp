// The files a compare worker leaves for the parent: samples.jsonl (one
// sample per line, written as it goes), output.npy, and changed.txt when a
// call's output was not the first call's.
#include "seq/Runtime/Compare.h"
#include "seq/Runtime/Npy.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

namespace seq::rt {

static std::string join(llvm::StringRef dir, llvm::StringRef file) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, file);
  return std::string(path);
}

llvm::Expected<SampleLog> SampleLog::open(llvm::StringRef dir) {
  std::string path = join(dir, "samples.jsonl");
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot write '" + path + "': " + strerror(errno));
  return SampleLog(fd);
}

SampleLog::SampleLog(SampleLog &&other) noexcept : fd(other.fd) { other.fd = -1; }

SampleLog::~SampleLog() {
  if (fd >= 0)
    ::close(fd);
}

void SampleLog::write(const Sample &s) {
  std::string line;
  llvm::raw_string_ostream os(line);
  os << llvm::json::Value(llvm::json::Object{{"iteration", s.iteration},
                                             {"latency_us", s.latencyUs},
                                             {"rss", s.rssBytes},
                                             {"heap", s.heapBytes}})
     << "\n";
  // One write per line: what is on disk survives a crash right after.
  (void)!::write(fd, line.data(), line.size());
}

static std::vector<Sample> readSamples(llvm::StringRef path) {
  std::vector<Sample> samples;
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return samples;
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines) {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(line);
    if (!value) {
      llvm::consumeError(value.takeError());
      break; // A line cut short by a crash.
    }
    const llvm::json::Object *o = value->getAsObject();
    if (!o)
      break;
    samples.push_back(Sample{o->getInteger("iteration").value_or(0),
                             o->getNumber("latency_us").value_or(0),
                             o->getInteger("rss").value_or(0),
                             o->getInteger("heap").value_or(0)});
  }
  return samples;
}

EngineRun collectRun(llvm::StringRef engine, llvm::StringRef dir,
                     const ChildStatus &status) {
  EngineRun run;
  run.engine = engine.str();
  run.samples = readSamples(join(dir, "samples.jsonl"));
  if (status.signaled) {
    run.crashed = true;
    run.signal = status.code;
    run.failure = std::string("killed by signal ") + std::to_string(status.code) +
                  " (" + strsignal(status.code) + ") after " +
                  std::to_string(run.samples.size()) + " iterations";
    return run;
  }
  if (status.code != 0) {
    run.crashed = true;
    auto message = llvm::MemoryBuffer::getFile(join(dir, "error.txt"));
    run.failure = "exited with code " + std::to_string(status.code) +
                  (message ? ": " + (*message)->getBuffer().trim().str() : "");
    return run;
  }
  llvm::Expected<Tensor> output = readNpy(join(dir, "output.npy"));
  if (!output) {
    run.crashed = true;
    run.failure = llvm::toString(output.takeError());
    return run;
  }
  run.output = std::move(*output);
  if (auto changed = llvm::MemoryBuffer::getFile(join(dir, "changed.txt")))
    run.changed = (*changed)->getBuffer().trim().str();
  return run;
}

} // namespace seq::rt
