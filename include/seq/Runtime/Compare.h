// Compiled vs eager on the same inputs: the numbers, the latency, the memory
// per iteration, and a crash reported as a result. Each engine runs in its
// own child process (a fresh exec of the tool in worker mode), so a crash in
// compiled code becomes a verdict, and memory is measured per engine.
#ifndef SEQ_RUNTIME_COMPARE_H
#define SEQ_RUNTIME_COMPARE_H

#include "seq/Runtime/Tensor.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace seq::rt {

/// One iteration as a worker measured it.
struct Sample {
  int64_t iteration = 0;
  double latencyUs = 0;
  int64_t rssBytes = 0;  ///< Resident set size after the iteration.
  int64_t heapBytes = 0; ///< Bytes malloc has handed out and not got back.
};

/// What one engine's worker process did.
struct EngineRun {
  std::string engine;
  std::vector<Sample> samples; ///< Up to the crash, if it crashed.
  std::optional<Tensor> output;
  bool crashed = false;
  int signal = 0;           ///< The signal that killed it, if any.
  std::string failure;      ///< Why it failed, in words (empty if it did not).
  /// The first call whose output was not bit for bit the first call's, in
  /// words (empty when every call gave the same bits).
  std::string changed;
};

struct Thresholds {
  double atol = 1e-5;
  double rtol = 1e-5;
  /// Compiled latency may be at most this times eager's: the speed verdict
  /// fails only when the compiled latencies are significantly above eager's
  /// scaled by this plus the minimum meaningful difference (see
  /// SpeedDecision).
  double maxSlowdown = 1.0;
  /// Fitted growth of RSS or heap per iteration allowed, in bytes.
  double maxGrowthBytes = 256;
  /// The minimum meaningful slowdown: the larger of this fraction of eager's
  /// median and `minSlowdownUs` microseconds.
  double minSlowdownFraction = 0.05;
  double minSlowdownUs = 2.0;
  /// One-sided p-value below which a difference counts as measured.
  double significance = 0.001;
};

enum class VerdictKind { Numerics, Speed, Memory, Crash };

struct Verdict {
  VerdictKind kind;
  bool passed;
  std::string detail;
};

struct LatencyStats {
  double medianUs = 0, p99Us = 0;
};

/// How the speed verdict was decided. "Allowed" latencies are eager's times
/// the allowed slowdown; the verdict fails only when the compiled latencies
/// are significantly above the allowed ones plus the minimum meaningful
/// difference (one-sided Mann-Whitney U test of the compiled samples against
/// the allowed samples shifted up by the minimum).
struct SpeedDecision {
  /// One-sided p-values: compiled above allowed + minimum (the failing
  /// test), compiled above allowed, compiled below allowed.
  double pSlower = 1, pAbove = 1, pFaster = 1;
  /// Compiled median minus the allowed median.
  double excessUs = 0;
  /// The minimum meaningful difference that applied, in microseconds.
  double minimumUs = 0;
  /// slower: significantly above allowed + minimum (the verdict fails);
  /// negligible: significantly above allowed, but not beyond the minimum;
  /// faster: significantly below allowed; none: no measurable difference.
  enum Outcome { None, Slower, Negligible, Faster } outcome = None;
};

struct CompareReport {
  EngineRun compiled, eager;
  double maxAbsError = 0, maxRelError = 0;
  LatencyStats compiledLatency, eagerLatency;
  double latencyRatio = 0; ///< compiled median / eager median.
  SpeedDecision speed;
  double compiledRssGrowth = 0, compiledHeapGrowth = 0; ///< bytes/iteration
  double eagerRssGrowth = 0, eagerHeapGrowth = 0;
  std::vector<Verdict> verdicts;
  bool passed() const;
};

// Statistics (Statistics.cpp).
double percentile(std::vector<double> values, double fraction);
/// Least-squares slope of y over x; 0 with fewer than two points.
double fitSlope(const std::vector<double> &x, const std::vector<double> &y);

/// The Mann-Whitney U test of `a` against `b` (normal approximation with tie
/// and continuity corrections; fine from about 8 samples each).
struct RankTest {
  double u = 0;        ///< U of `a`: pairs (a_i, b_j) with a_i > b_j, ties half.
  double z = 0;        ///< Standardized U (0 when every value ties).
  double pGreater = 1; ///< One-sided p-value for "a tends to be greater than b".
  double pLess = 1;    ///< One-sided p-value for "a tends to be less than b".
};
RankTest mannWhitneyU(const std::vector<double> &a, const std::vector<double> &b);

/// The speed decision on per-round latencies (see Thresholds::maxSlowdown).
SpeedDecision decideSpeed(const std::vector<double> &compiledUs,
                          const std::vector<double> &eagerUs, const Thresholds &);

// Memory probes of the calling process (MemoryProbe.cpp).
int64_t residentBytes();
int64_t heapBytesInUse();

/// Builds the report from two runs and applies the thresholds.
CompareReport judge(EngineRun compiled, EngineRun eager, const Thresholds &);

void printReport(const CompareReport &report, llvm::raw_ostream &os);
std::string reportJson(const CompareReport &report);
/// A self-contained page (inline SVG, no scripts) with memory per iteration
/// and the latency distribution of both engines.
std::string reportHtml(const CompareReport &report, llvm::StringRef title);

/// Runs `argv` as a child process, waits, and tells how it ended: exit code
/// or signal. `argv[0]` is the program path.
struct ChildStatus {
  bool signaled = false;
  int code = 0; ///< Exit code, or the signal number when signaled.
};
llvm::Expected<ChildStatus> runChild(const std::vector<std::string> &argv);

/// A compare worker driven round by round, so that the two engines' timing
/// rounds interleave and machine noise hits both alike, while each engine
/// keeps its own process. The parent and the worker share a socket, which
/// the worker finds as file descriptor `kWorkerChannelFd`: the parent sends
/// one byte 'r' per round, the worker runs one timed iteration, records its
/// sample and answers 'd'; 'q', or the socket closing, makes the worker write
/// its output and exit.
constexpr int kWorkerChannelFd = 3;

class WorkerProcess {
public:
  static llvm::Expected<WorkerProcess> start(const std::vector<std::string> &argv);
  /// Runs one round and waits for it; false once the worker has died or
  /// failed, after which it is not driven again.
  bool round();
  bool alive() const { return fd >= 0; }
  /// Tells the worker to finish, waits for it, and tells how it ended.
  llvm::Expected<ChildStatus> finish();

  WorkerProcess(WorkerProcess &&) noexcept;
  WorkerProcess &operator=(WorkerProcess &&) = delete;
  ~WorkerProcess();

private:
  WorkerProcess(int pid, int fd) : pid(pid), fd(fd) {}
  int pid;
  int fd;
};

/// The worker's side of the channel.
enum class WorkerCommand { Round, Finish };
/// Waits for the parent's next command; Finish when the parent is gone.
WorkerCommand nextWorkerCommand();
/// Tells the parent the round is done.
void workerRoundDone();

// Repeatability (Repeatability.cpp): every call of an engine on one input
// gives the same bits.

/// Where `later` is not bit for bit `first`, in words ("element 3 is 0.25,
/// was 0.5"), or nothing when every bit is the same.
std::optional<std::string> bitwiseDifference(const Tensor &first, const Tensor &later);

/// An engine's outputs call by call: the first call's is kept, and the
/// first later call whose output is not bit for bit the same is described,
/// once ("call 5 differs from call 1: element 0 is ..., was ...").
class RepeatCheck {
public:
  /// The description for the first call that differs; nothing for any other.
  std::optional<std::string> next(const Tensor &output);

private:
  std::optional<Tensor> first;
  int64_t calls = 0;
  bool differed = false;
};

/// Reads a worker's results from `dir` (samples.jsonl, output.npy,
/// changed.txt when a call's output changed) and how its process ended.
EngineRun collectRun(llvm::StringRef engine, llvm::StringRef dir,
                     const ChildStatus &status);

/// The worker side: writes one JSON line per sample to `dir`/samples.jsonl,
/// flushed as it goes so that a crash keeps what was measured.
class SampleLog {
public:
  static llvm::Expected<SampleLog> open(llvm::StringRef dir);
  void write(const Sample &sample);
  SampleLog(SampleLog &&) noexcept;
  ~SampleLog();

private:
  explicit SampleLog(int fd) : fd(fd) {}
  int fd;
};

/// Faults a test can inject into the compiled engine's worker through the
/// SEQC_INJECT_FAULT environment variable: leak, slow, corrupt, flaky, crash.
enum class Fault { None, Leak, Slow, Corrupt, Flaky, Crash };
llvm::Expected<Fault> faultFromEnvironment();
/// Applies `fault` after a call of iteration `iteration` produced `output`.
/// A round makes an untimed call and a timed one: the faults of the output
/// (corrupt, flaky) apply to both, the others to the timed one only.
void injectFault(Fault fault, int64_t iteration, Tensor &output, bool timed = true);

} // namespace seq::rt

#endif
