// Threads of the CPU engines (EngineOptions::threads): the worker pool, and
// the jit engine's calls split across it, bitwise identical to one thread
// for even and uneven chunks, batches 0 and 1, concurrent callers and bad
// input in several chunks.
#include "WorkerPool.h"

#include "seq/Frontend/Keras/Importer.h"
#include "seq/Runtime/Eager.h"
#include "seq/Runtime/Engine.h"
#include "seq/Runtime/Npy.h"
#include "seq/Target/CPU/JitEngine.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/bit.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

using seq::rt::Tensor;

namespace {

std::string fixture(llvm::StringRef name) {
  return (llvm::Twine(SEQ_FIXTURES_DIR) + "/" + name).str();
}

TEST(WorkerPoolTest, RunsEveryChunkOnceOnItsOwnThread) {
  seq::cpu::WorkerPool pool(3);
  ASSERT_EQ(pool.size(), 3);
  for (int round = 0; round < 100; ++round) {
    int chunks = 1 + round % 3;
    std::atomic<int> runs[3] = {0, 0, 0};
    std::thread::id ids[3];
    ASSERT_TRUE(pool.tryRun(chunks, [&](int i) {
      ++runs[i];
      ids[i] = std::this_thread::get_id();
    }));
    std::set<std::thread::id> distinct;
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(runs[i], i < chunks ? 1 : 0);
      if (i < chunks)
        distinct.insert(ids[i]);
    }
    EXPECT_EQ(int(distinct.size()), chunks);
    EXPECT_EQ(ids[0], std::this_thread::get_id());
  }
}

TEST(WorkerPoolTest, ABusyPoolRefusesASecondCall) {
  seq::cpu::WorkerPool pool(2);
  bool inner = true;
  ASSERT_TRUE(pool.tryRun(2, [&](int i) {
    if (i == 0)
      inner = pool.tryRun(2, [](int) {});
  }));
  EXPECT_FALSE(inner);
  EXPECT_GE(seq::cpu::onlineCores(), 1);
}

TEST(WorkerPoolTest, AForkedChildRunsAlone) {
  seq::cpu::WorkerPool pool(2);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The pool's threads stayed in the parent: no call, no hang.
    bool ran = pool.tryRun(2, [](int) {});
    _exit(ran ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(pool.tryRun(2, [](int) {}));
}

class JitThreadsTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    seq::rt::registerEagerEngine();
    seq::registerJitEngine();
  }
  mlir::OwningOpRef<mlir::ModuleOp> import(llvm::StringRef model) {
    seq::keras::ImportOptions options;
    options.modelPath = fixture(model);
    llvm::Expected<seq::keras::ImportedModel> imported =
        seq::keras::importKerasModel(context, options);
    if (!imported) {
      ADD_FAILURE() << llvm::toString(imported.takeError());
      return {};
    }
    return std::move(imported->module);
  }
  std::unique_ptr<seq::rt::Engine> jit(mlir::ModuleOp module, int threads) {
    seq::rt::EngineOptions options;
    options.threads = threads;
    auto e = seq::rt::createEngine("jit", module, options);
    if (!e) {
      ADD_FAILURE() << llvm::toString(e.takeError());
      return nullptr;
    }
    return std::move(*e);
  }
  /// `rows` rows of the fixture's input, row i being its row i % n.
  static Tensor rowsOf(const Tensor &input, int64_t rows) {
    Tensor t;
    t.shape = input.shape;
    t.shape[0] = rows;
    size_t row = input.data.size() / input.shape[0];
    for (int64_t i = 0; i < rows; ++i) {
      auto from = input.data.begin() + (i % input.shape[0]) * row;
      t.data.insert(t.data.end(), from, from + row);
    }
    return t;
  }
  mlir::MLIRContext context;
};

TEST_F(JitThreadsTest, SplitCallsAreBitwiseIdenticalToOneThread) {
  for (llvm::StringRef name : {"seed_build_dynamic", "lstm_return_sequences",
                               "dense_3d", "conv2d_cnn", "embedding_lstm"}) {
    SCOPED_TRACE(name.str());
    mlir::OwningOpRef<mlir::ModuleOp> module = import(name.str() + ".h5");
    ASSERT_TRUE(module);
    llvm::Expected<Tensor> input = seq::rt::readNpy(fixture(name.str() + ".input.npy"));
    ASSERT_TRUE(bool(input)) << llvm::toString(input.takeError());
    std::unique_ptr<seq::rt::Engine> one = jit(*module, 1);
    ASSERT_TRUE(one);
    for (int threads : {2, 3, 0}) {
      std::unique_ptr<seq::rt::Engine> many = jit(*module, threads);
      ASSERT_TRUE(many);
      for (int64_t batch : {0, 1, 2, 7, 64}) {
        Tensor x = rowsOf(*input, batch);
        llvm::Expected<Tensor> expected = one->run(x);
        llvm::Expected<Tensor> got = many->run(x);
        ASSERT_TRUE(bool(expected)) << llvm::toString(expected.takeError());
        ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
        ASSERT_EQ(got->shape, expected->shape) << threads << " threads, batch " << batch;
        // Bitwise, NaN and -0 included; an empty batch's null data pointer
        // may not be given to memcmp.
        EXPECT_TRUE(std::equal(got->data.begin(), got->data.end(), expected->data.begin(),
                               [](float a, float b) {
                                 return llvm::bit_cast<uint32_t>(a) ==
                                        llvm::bit_cast<uint32_t>(b);
                               }))
            << threads << " threads, batch " << batch;
      }
    }
  }
}

TEST_F(JitThreadsTest, ConcurrentCallersShareThePool) {
  mlir::OwningOpRef<mlir::ModuleOp> module = import("seed_build_dynamic.h5");
  ASSERT_TRUE(module);
  llvm::Expected<Tensor> input = seq::rt::readNpy(fixture("seed_build_dynamic.input.npy"));
  ASSERT_TRUE(bool(input));
  Tensor x = rowsOf(*input, 33);
  std::unique_ptr<seq::rt::Engine> one = jit(*module, 1), two = jit(*module, 2);
  ASSERT_TRUE(one && two);
  llvm::Expected<Tensor> expected = one->run(x);
  ASSERT_TRUE(bool(expected));
  std::atomic<int> different{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        llvm::Expected<Tensor> got = two->run(x);
        if (!got) {
          llvm::consumeError(got.takeError());
          ++different;
        } else if (got->data != expected->data) {
          ++different;
        }
      }
    });
  for (std::thread &t : callers)
    t.join();
  EXPECT_EQ(different, 0);
}

TEST_F(JitThreadsTest, BadIdsInTwoChunksAreCountedAsOnOneThread) {
  mlir::OwningOpRef<mlir::ModuleOp> module = import("embedding_lstm.h5");
  ASSERT_TRUE(module);
  llvm::Expected<Tensor> input = seq::rt::readNpy(fixture("embedding_lstm.input.npy"));
  ASSERT_TRUE(bool(input));
  Tensor x = rowsOf(*input, 64);
  int64_t row = x.data.size() / 64;
  x.data[3 * row] = 10;  // chunk 0 of 2
  x.data[60 * row] = -1; // chunk 1
  std::string messages[2];
  for (int threads : {1, 2}) {
    std::unique_ptr<seq::rt::Engine> e = jit(*module, threads);
    ASSERT_TRUE(e);
    llvm::Expected<Tensor> out = e->run(x);
    ASSERT_FALSE(bool(out));
    messages[threads - 1] = llvm::toString(out.takeError());
  }
  EXPECT_NE(messages[1].find("(2 values)"), std::string::npos) << messages[1];
  EXPECT_EQ(messages[0], messages[1]);
}

TEST_F(JitThreadsTest, ABadThreadCountIsAnError) {
  mlir::OwningOpRef<mlir::ModuleOp> module = import("dense_3d.h5");
  ASSERT_TRUE(module);
  for (int threads : {-1, 257}) {
    seq::rt::EngineOptions options;
    options.threads = threads;
    auto e = seq::rt::createEngine("jit", *module, options);
    ASSERT_FALSE(bool(e));
    EXPECT_NE(llvm::toString(e.takeError()).find("(0: one per core)"), std::string::npos);
  }
}

} // namespace
