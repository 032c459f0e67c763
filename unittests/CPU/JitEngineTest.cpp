// The JIT engine's library interface: dynamic batch and sequence lengths,
// state, runtime errors and the --jit=off fallback. (Every good fixture of
// test/fixtures/manifest.json against eager and Keras is a lit sweep:
// test/Compare/all-fixtures.test on the CLI, with every call's output
// checked bit for bit, and test/Transforms/fused-numerics.)
#include "seq/Frontend/Keras/Importer.h"
#include "seq/Runtime/Eager.h"
#include "seq/Runtime/Engine.h"
#include "seq/Runtime/Npy.h"
#include "seq/Target/CPU/JitEngine.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <thread>

using seq::rt::Tensor;

namespace {

std::string fixture(llvm::StringRef name) {
  return (llvm::Twine(SEQ_FIXTURES_DIR) + "/" + name).str();
}

struct Fixture {
  std::string name, model, config, input, expected;
};

std::vector<Fixture> goodFixtures() {
  std::vector<Fixture> fixtures;
  auto buffer = llvm::MemoryBuffer::getFile(fixture("manifest.json"));
  if (!buffer)
    return fixtures;
  llvm::Expected<llvm::json::Value> json = llvm::json::parse((*buffer)->getBuffer());
  if (!json) {
    llvm::consumeError(json.takeError());
    return fixtures;
  }
  auto text = [](const llvm::json::Object *o, llvm::StringRef key) {
    auto v = o->getString(key);
    return v ? v->str() : std::string();
  };
  for (const llvm::json::Value &entry : *json->getAsObject()->getArray("fixtures")) {
    const llvm::json::Object *o = entry.getAsObject();
    fixtures.push_back({text(o, "name"), text(o, "model"), text(o, "config"),
                        text(o, "input"), text(o, "expected")});
  }
  return fixtures;
}

/// numpy.allclose(actual, expected, rtol, atol), with the worst element.
::testing::AssertionResult allClose(const Tensor &actual, const Tensor &expected,
                                    double atol = 1e-5, double rtol = 1e-5) {
  if (actual.shape != expected.shape)
    return ::testing::AssertionFailure()
           << "shape " << actual.shapeString() << " != " << expected.shapeString();
  double worst = 0;
  size_t at = 0;
  bool close = true;
  for (size_t i = 0; i < actual.data.size(); ++i) {
    double diff = std::fabs(double(actual.data[i]) - expected.data[i]);
    if (!(diff <= atol + rtol * std::fabs(expected.data[i])))
      close = false;
    if (!(diff <= worst)) {
      worst = diff;
      at = i;
    }
  }
  if (close)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "max abs error " << worst << " at flat index " << at << ": "
         << actual.data[at] << " vs " << expected.data[at];
}

class CpuTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    seq::rt::registerEagerEngine();
    seq::registerJitEngine();
  }
  seq::keras::ImportedModel import(const Fixture &f) {
    seq::keras::ImportOptions options;
    if (f.config.empty()) {
      options.modelPath = fixture(f.model);
    } else {
      options.modelPath = fixture(f.model);
      options.configPath = fixture(f.config);
    }
    llvm::Expected<seq::keras::ImportedModel> model =
        seq::keras::importKerasModel(context, options);
    if (!model) {
      ADD_FAILURE() << llvm::toString(model.takeError());
      return {};
    }
    return std::move(*model);
  }
  seq::keras::ImportedModel import(llvm::StringRef name) {
    for (const Fixture &f : goodFixtures())
      if (f.name == name)
        return import(f);
    ADD_FAILURE() << "no fixture " << name.str();
    return {};
  }
  std::unique_ptr<seq::rt::Engine> engine(llvm::StringRef name,
                                          mlir::ModuleOp module) {
    auto e = seq::rt::createEngine(name, module);
    if (!e) {
      ADD_FAILURE() << name.str() << ": " << llvm::toString(e.takeError());
      return nullptr;
    }
    return std::move(*e);
  }
  /// One call; for a model with a fixed batch (a stateful one), the
  /// input's batches one after the other from a zero state.
  Tensor run(seq::rt::Engine &e, const Tensor &input) {
    llvm::Expected<std::vector<Tensor>> out = std::vector<Tensor>();
    if (e.stateSlots().empty()) {
      out = e.runAll(input);
    } else {
      e.resetState();
      out = seq::rt::runInBatches(e, seq::rt::views(input),
                                  e.stateSlots().front().shape[1]);
    }
    if (!out) {
      ADD_FAILURE() << llvm::toString(out.takeError());
      return {};
    }
    return std::move(out->front());
  }
  mlir::MLIRContext context;
};

// A stateful model's engine keeps the state between calls, resets it, and
// takes a new one of the right size only; a failed call leaves it as it was.
TEST_F(CpuTest, StatefulEnginesKeepTheirState) {
  seq::keras::ImportedModel model = import("stateful_lstm_keras3");
  ASSERT_TRUE(model.module);
  llvm::Expected<Tensor> input = seq::rt::readNpy(fixture("stateful_lstm_keras3.input.npy"));
  ASSERT_TRUE(bool(input));
  Tensor chunk = *input;
  chunk.shape[0] = 2;
  chunk.data.resize(chunk.numElements());
  for (llvm::StringRef name : {"eager", "jit"}) {
    auto e = engine(name, *model.module);
    ASSERT_TRUE(e);
    ASSERT_EQ(e->stateSlots().size(), 2u) << name.str();
    EXPECT_EQ(e->stateSlots()[1].layer, "lstm_1");
    EXPECT_EQ(e->stateSlots()[1].offset, 20);
    EXPECT_EQ(e->state(), std::vector<float>(36, 0.0f));
    Tensor first = run(*e, chunk);
    llvm::Expected<Tensor> second = e->run(chunk);
    ASSERT_TRUE(bool(second));
    EXPECT_FALSE(allClose(*second, first)) << name.str() << ": the state moved on";
    std::vector<float> kept = e->state();
    llvm::Expected<Tensor> wrong = e->run(Tensor::zeros({1, 4, 3}));
    EXPECT_FALSE(bool(wrong));
    llvm::consumeError(wrong.takeError());
    EXPECT_EQ(e->state(), kept) << name.str() << ": a failed call keeps the state";
    llvm::Error bad = e->setState(std::vector<float>(5));
    EXPECT_EQ(llvm::toString(std::move(bad)),
              "the state has 36 floats (stateful layers' (states, batch, units) one "
              "after the other), got 5");
    e->resetState();
    llvm::Expected<Tensor> again = e->run(chunk);
    ASSERT_TRUE(bool(again));
    EXPECT_TRUE(allClose(*again, first, 0, 0)) << name.str();
  }
}

Tensor randomInput(std::vector<int64_t> shape, unsigned seed) {
  Tensor t = Tensor::zeros(std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (float &v : t.data)
    v = dist(rng);
  return t;
}

TEST_F(CpuTest, DynamicBatchAndTime) {
  seq::keras::ImportedModel model = import("seed_build_dynamic");
  ASSERT_TRUE(model.module);
  auto jit = engine("jit", *model.module);
  auto eager = engine("eager", *model.module);
  ASSERT_TRUE(jit && eager);
  unsigned seed = 1;
  for (int64_t batch : {1, 3, 17})
    for (int64_t steps : {1, 10, 33}) {
      Tensor x = randomInput({batch, steps, 12}, seed++);
      EXPECT_TRUE(allClose(run(*jit, x), run(*eager, x)))
          << "batch " << batch << ", steps " << steps;
    }
}

// An input is read where its owner keeps it (a NumPy array's buffer): a
// view of some rows of a larger buffer runs as a tensor of those rows, on
// every engine, and a view that holds fewer values than its shape is an
// error, not a read past its end.
TEST_F(CpuTest, InputsAreReadInPlace) {
  seq::keras::ImportedModel model = import("seed_build_dynamic");
  ASSERT_TRUE(model.module);
  Tensor all = randomInput({9, 10, 12}, 3);
  seq::rt::TensorView middle = seq::rt::TensorView(all).rows(2, 5);
  EXPECT_EQ(middle.data, all.data.data() + 2 * 10 * 12);
  for (llvm::StringRef name : {"jit", "eager"}) {
    auto e = engine(name, *model.module);
    ASSERT_TRUE(e);
    llvm::Expected<Tensor> viewed = e->run(middle);
    ASSERT_TRUE(bool(viewed)) << llvm::toString(viewed.takeError());
    EXPECT_TRUE(allClose(*viewed, run(*e, all.rows(2, 5)), 0, 0)) << name.str();
    seq::rt::TensorView shorter = middle;
    shorter.size -= 1;
    llvm::Expected<Tensor> refused = e->run(shorter);
    ASSERT_FALSE(bool(refused)) << name.str();
    EXPECT_EQ(llvm::toString(refused.takeError()),
              "input of shape (5, 10, 12) holds 599 values");
  }
}

TEST_F(CpuTest, ThreadsShareOneEngine) {
  seq::keras::ImportedModel model = import("bidi_lstm_concat_seq");
  ASSERT_TRUE(model.module);
  auto jit = engine("jit", *model.module);
  ASSERT_TRUE(jit);
  Tensor x = randomInput({4, 5, 3}, 7);
  Tensor reference = run(*jit, x);
  std::vector<Tensor> results(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i)
        results[t] = *jit->run(x);
    });
  for (std::thread &t : threads)
    t.join();
  for (const Tensor &r : results)
    EXPECT_TRUE(allClose(r, reference, 0, 0));
}

TEST_F(CpuTest, WrongInputShapeIsAnError) {
  seq::keras::ImportedModel model = import("seed_build");
  ASSERT_TRUE(model.module);
  auto jit = engine("jit", *model.module);
  ASSERT_TRUE(jit);
  llvm::Expected<Tensor> out = jit->run(Tensor::zeros({2, 9, 12}));
  ASSERT_FALSE(bool(out));
  EXPECT_EQ(llvm::toString(out.takeError()),
            "input has shape (2, 9, 12) but the model expects (?, 10, 12)");
}

TEST_F(CpuTest, EmbeddingIdOutOfRangeIsAnError) {
  seq::keras::ImportedModel model = import("embedding_lstm");
  ASSERT_TRUE(model.module);
  auto jit = engine("jit", *model.module);
  ASSERT_TRUE(jit);
  Tensor ids = Tensor::zeros({2, 5});
  ids.data[3] = 10;  // vocabulary is 10
  ids.data[7] = 2.5; // not an integer
  llvm::Expected<Tensor> out = jit->run(ids);
  ASSERT_FALSE(bool(out));
  EXPECT_EQ(llvm::toString(out.takeError()),
            "layer 'embedding' (Embedding): ids outside [0, 10) or not "
            "integers (2 values); check the input");
  // The engine stays usable.
  EXPECT_TRUE(bool(jit->run(Tensor::zeros({2, 5}))));
}

TEST_F(CpuTest, JitOffFallsBackToEager) {
  seq::keras::ImportedModel model = import("seed_build");
  ASSERT_TRUE(model.module);
  seq::cpu::setJitEnabled(false);
  auto fallback = engine("jit", *model.module);
  seq::cpu::setJitEnabled(true);
  auto eager = engine("eager", *model.module);
  ASSERT_TRUE(fallback && eager);
  Tensor x = randomInput({2, 10, 12}, 3);
  // Bit-identical: it is the eager interpreter.
  EXPECT_TRUE(allClose(run(*fallback, x), run(*eager, x), 0, 0));
}

} // namespace
