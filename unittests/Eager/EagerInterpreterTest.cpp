// The eager interpreter's API (seq/Runtime/Eager.h) on small hand-written
// modules: weights from dense_resource blobs and dense attributes, regions,
// kernel-level ops equal to their layer-level forms, dynamic time, the
// engine registry, concurrent runs, and the errors a user can meet.
#include "seq/Runtime/Eager.h"

#include "seq/Dialect/Seq/IR/SeqDialect.h"
#include "seq/Runtime/ReferenceKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <thread>

using namespace seq::rt;

namespace {

class EagerTest : public ::testing::Test {
protected:
  EagerTest() {
    context.loadDialect<seq::SeqDialect, mlir::arith::ArithDialect,
                        mlir::func::FuncDialect, mlir::tensor::TensorDialect>();
  }

  mlir::ModuleOp parse(llvm::StringRef source) {
    modules.push_back(
        mlir::parseSourceString<mlir::ModuleOp>(source, &context));
    EXPECT_TRUE(modules.back()) << "does not parse:\n" << source.str();
    return *modules.back();
  }

  Tensor run(mlir::ModuleOp module, const Tensor &input) {
    llvm::Expected<Tensor> result = runEager(module, input);
    if (!result) {
      ADD_FAILURE() << llvm::toString(result.takeError());
      return Tensor{};
    }
    return std::move(*result);
  }

  /// The error message of running `module` on `input` ("" on success).
  std::string runError(mlir::ModuleOp module, const Tensor &input) {
    llvm::Expected<Tensor> result = runEager(module, input);
    if (result)
      return "";
    return llvm::toString(result.takeError());
  }

  mlir::MLIRContext context;
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> modules;
};

// Kernel [[1, 2], [0.5, -1]] as a blob (alignment 4, then little-endian
// floats), bias a splat 0.5.
constexpr llvm::StringLiteral kDenseModel = R"mlir(
func.func @predict(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %k = arith.constant dense_resource<k> : tensor<2x2xf32> loc("dense/kernel")
  %b = arith.constant dense<0.5> : tensor<2xf32> loc("dense/bias")
  %y = seq.dense %x, %k, %b activation(relu) : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32> loc("dense")
  return %y : tensor<?x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      k: "0x040000000000803F000000400000003F000080BF"
    }
  }
#-}
)mlir";

TEST_F(EagerTest, DenseFromResourceBlobAndSplat) {
  mlir::ModuleOp module = parse(kDenseModel);
  Tensor y = run(module, Tensor{{2, 2}, {1, 2, -1, 0}});
  EXPECT_EQ(y.shape, (std::vector<int64_t>{2, 2}));
  // Row 0: [1 + 1 + 0.5, 2 - 2 + 0.5]; row 1: relu([-0.5, -1.5]).
  EXPECT_EQ(y.data, (std::vector<float>{2.5, 0.5, 0, 0}));
}

TEST_F(EagerTest, AnyBatchSizeRuns) {
  mlir::ModuleOp module = parse(kDenseModel);
  EXPECT_EQ(run(module, Tensor{{1, 2}, {1, 2}}).data,
            (std::vector<float>{2.5, 0.5}));
  EXPECT_EQ(run(module, Tensor::zeros({5, 2})).shape,
            (std::vector<int64_t>{5, 2}));
}

TEST_F(EagerTest, InputShapeMismatchIsAnError) {
  mlir::ModuleOp module = parse(kDenseModel);
  EXPECT_EQ(runError(module, Tensor::zeros({2, 3})),
            "input has shape (2, 3) but the model expects (?, 2)");
  EXPECT_EQ(runError(module, Tensor::zeros({2, 2, 1})),
            "input has shape (2, 2, 1) but the model expects (?, 2)");
  llvm::Error e = checkInputShape(module, {7, 3});
  EXPECT_EQ(llvm::toString(std::move(e)),
            "input has shape (7, 3) but the model expects (?, 2)");
  EXPECT_FALSE(checkInputShape(module, {7, 2}));
}

TEST_F(EagerTest, ElidedWeightsAreAnErrorNamingTheConstant) {
  mlir::ModuleOp module = parse(R"mlir(
func.func @predict(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %k = arith.constant dense_resource<__elided__> : tensor<2x2xf32> loc("dense/kernel")
  %y = seq.dense %x, %k activation(linear) : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32> loc("dense")
  return %y : tensor<?x2xf32>
}
)mlir");
  std::string error = runError(module, Tensor::zeros({1, 2}));
  EXPECT_NE(error.find("arith.constant (layer 'dense/kernel')"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("without --elide-weights"), std::string::npos) << error;
}

TEST_F(EagerTest, UnknownOpIsAnErrorNamingOpAndLayer) {
  mlir::ModuleOp module = parse(R"mlir(
func.func @predict(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %y = arith.addf %x, %x : tensor<?x2xf32> loc("my_add")
  return %y : tensor<?x2xf32>
}
)mlir");
  std::string error = runError(module, Tensor::zeros({1, 2}));
  EXPECT_EQ(error.rfind("arith.addf (layer 'my_add'): the eager interpreter "
                        "does not know this op",
                        0),
            0u)
      << error;
}

TEST_F(EagerTest, DataDependentKernelErrorsNameTheLayer) {
  mlir::ModuleOp module = parse(R"mlir(
func.func @predict(%ids: tensor<?x3xf32>) -> tensor<?x3x2xf32> {
  %t = arith.constant dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf32>
  %y = seq.embedding %ids, %t : (tensor<?x3xf32>, tensor<2x2xf32>) -> tensor<?x3x2xf32> loc("tok_emb")
  return %y : tensor<?x3x2xf32>
}
)mlir");
  EXPECT_EQ(run(module, Tensor{{1, 3}, {1, 0, 1}}).data,
            (std::vector<float>{2, 3, 0, 1, 2, 3}));
  std::string error = runError(module, Tensor{{1, 3}, {1, 5, 0}});
  EXPECT_EQ(error.rfind("seq.embedding (layer 'tok_emb'): ", 0), 0u) << error;
}

TEST_F(EagerTest, TimeDistributedRunsItsBodyPerStep) {
  mlir::ModuleOp module = parse(R"mlir(
func.func @predict(%x: tensor<?x3x2xf32>) -> tensor<?x3x1xf32> {
  %k = arith.constant dense<[[0.5], [-2.0]]> : tensor<2x1xf32>
  %y = seq.time_distributed %x : tensor<?x3x2xf32> -> tensor<?x3x1xf32> {
  ^bb0(%step: tensor<?x2xf32>):
    %b = arith.constant dense<1.0> : tensor<1xf32>
    %d = seq.dense %step, %k, %b activation(tanh) : (tensor<?x2xf32>, tensor<2x1xf32>, tensor<1xf32>) -> tensor<?x1xf32>
    seq.yield %d : tensor<?x1xf32>
  }
  return %y : tensor<?x3x1xf32>
}
)mlir");
  Tensor x{{2, 3, 2}, {1, 0, 0, 1, 2, 2, -1, 0.5, 0, 0, 3, -1}};
  Tensor kernel{{2, 1}, {0.5, -2}}, bias{{1}, {1}};
  Tensor y = run(module, x);
  EXPECT_EQ(y.shape, (std::vector<int64_t>{2, 3, 1}));
  EXPECT_EQ(y.data, dense(x, kernel, &bias, Activation::Tanh, 0).data);
}

// The same LSTM written at layer level and as the fusion passes write it:
// one seq.linear over all steps, then the recurrence.
constexpr llvm::StringLiteral kLstmLayer = R"mlir(
func.func @predict(%x: tensor<?x?x2xf32>) -> tensor<?x?x1xf32> {
  %k = arith.constant dense<[[0.5, -0.3, 0.8, 0.2], [0.1, 0.9, -0.4, 0.6]]> : tensor<2x4xf32>
  %r = arith.constant dense<[[0.1, 0.4, -0.6, 0.7]]> : tensor<1x4xf32>
  %b = arith.constant dense<[0.05, 1.0, -0.1, 0.2]> : tensor<4xf32>
  %y = seq.lstm %x, %k, %r, %b activation(tanh, sigmoid) {return_sequences, go_backwards} : (tensor<?x?x2xf32>, tensor<2x4xf32>, tensor<1x4xf32>, tensor<4xf32>) -> tensor<?x?x1xf32>
  return %y : tensor<?x?x1xf32>
}
)mlir";
constexpr llvm::StringLiteral kLstmKernels = R"mlir(
func.func @predict(%x: tensor<?x?x2xf32>) -> tensor<?x?x1xf32> {
  %k = arith.constant dense<[[0.5, -0.3, 0.8, 0.2], [0.1, 0.9, -0.4, 0.6]]> : tensor<2x4xf32>
  %r = arith.constant dense<[[0.1, 0.4, -0.6, 0.7]]> : tensor<1x4xf32>
  %b = arith.constant dense<[0.05, 1.0, -0.1, 0.2]> : tensor<4xf32>
  %p = seq.linear %x, %k, %b activation(linear) : (tensor<?x?x2xf32>, tensor<2x4xf32>, tensor<4xf32>) -> tensor<?x?x4xf32>
  %y = seq.lstm_recurrence %p, %r activation(tanh, sigmoid) {return_sequences, go_backwards} : (tensor<?x?x4xf32>, tensor<1x4xf32>) -> tensor<?x?x1xf32>
  return %y : tensor<?x?x1xf32>
}
)mlir";

TEST_F(EagerTest, LstmRecurrenceEqualsLayer) {
  Tensor x{{2, 3, 2}, {1, 0, 0, 1, 2, 2, -1, 0.5, 0, 0, 3, -1}};
  Tensor layer = run(parse(kLstmLayer), x);
  EXPECT_EQ(layer.shape, (std::vector<int64_t>{2, 3, 1}));
  EXPECT_EQ(run(parse(kLstmKernels), x).data, layer.data);
}

TEST_F(EagerTest, GruResetAfterRecurrenceEqualsLayer) {
  mlir::ModuleOp layer = parse(R"mlir(
func.func @predict(%x: tensor<?x4x2xf32>) -> tensor<?x1xf32> {
  %k = arith.constant dense<[[0.5, -0.4, 0.3], [0.9, -0.7, 0.6]]> : tensor<2x3xf32>
  %r = arith.constant dense<[[0.2, -0.1, 0.4]]> : tensor<1x3xf32>
  %b = arith.constant dense<[[0.1, -0.2, 0.3], [-0.3, 0.2, 0.5]]> : tensor<2x3xf32>
  %y = seq.gru %x, %k, %r, %b activation(tanh, sigmoid) {reset_after} : (tensor<?x4x2xf32>, tensor<2x3xf32>, tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<?x1xf32>
  return %y : tensor<?x1xf32>
}
)mlir");
  mlir::ModuleOp kernels = parse(R"mlir(
func.func @predict(%x: tensor<?x4x2xf32>) -> tensor<?x1xf32> {
  %k = arith.constant dense<[[0.5, -0.4, 0.3], [0.9, -0.7, 0.6]]> : tensor<2x3xf32>
  %r = arith.constant dense<[[0.2, -0.1, 0.4]]> : tensor<1x3xf32>
  %bi = arith.constant dense<[0.1, -0.2, 0.3]> : tensor<3xf32>
  %br = arith.constant dense<[-0.3, 0.2, 0.5]> : tensor<3xf32>
  %p = seq.linear %x, %k, %bi activation(linear) : (tensor<?x4x2xf32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x4x3xf32>
  %y = seq.gru_recurrence %p, %r, %br activation(tanh, sigmoid) {reset_after} : (tensor<?x4x3xf32>, tensor<1x3xf32>, tensor<3xf32>) -> tensor<?x1xf32>
  return %y : tensor<?x1xf32>
}
)mlir");
  Tensor x{{1, 4, 2}, {1, 0, 0, 1, 2, 2, -1, 0.5}};
  Tensor y = run(layer, x);
  EXPECT_EQ(y.shape, (std::vector<int64_t>{1, 1}));
  EXPECT_NE(y.data[0], 0.0f);
  EXPECT_EQ(run(kernels, x).data, y.data);
}

TEST_F(EagerTest, SimpleRnnRecurrenceEqualsLayer) {
  mlir::ModuleOp layer = parse(R"mlir(
func.func @predict(%x: tensor<?x3x1xf32>) -> tensor<?x3x2xf32> {
  %k = arith.constant dense<[[0.5, -0.4]]> : tensor<1x2xf32>
  %r = arith.constant dense<[[0.2, -0.1], [0.7, 0.3]]> : tensor<2x2xf32>
  %y = seq.simple_rnn %x, %k, %r activation(relu) {return_sequences} : (tensor<?x3x1xf32>, tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<?x3x2xf32>
  return %y : tensor<?x3x2xf32>
}
)mlir");
  mlir::ModuleOp kernels = parse(R"mlir(
func.func @predict(%x: tensor<?x3x1xf32>) -> tensor<?x3x2xf32> {
  %k = arith.constant dense<[[0.5, -0.4]]> : tensor<1x2xf32>
  %r = arith.constant dense<[[0.2, -0.1], [0.7, 0.3]]> : tensor<2x2xf32>
  %p = seq.linear %x, %k activation(linear) : (tensor<?x3x1xf32>, tensor<1x2xf32>) -> tensor<?x3x2xf32>
  %y = seq.simple_rnn_recurrence %p, %r activation(relu) {return_sequences} : (tensor<?x3x2xf32>, tensor<2x2xf32>) -> tensor<?x3x2xf32>
  return %y : tensor<?x3x2xf32>
}
)mlir");
  Tensor x{{1, 3, 1}, {1, -2, 3}};
  Tensor y = run(layer, x);
  EXPECT_EQ(y.shape, (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(run(kernels, x).data, y.data);
}

TEST_F(EagerTest, DynamicTimeTakesAnyLength) {
  mlir::ModuleOp module = parse(kLstmLayer);
  for (int64_t steps : {1, 3, 7}) {
    Tensor y = run(module, Tensor::zeros({2, steps, 2}));
    EXPECT_EQ(y.shape, (std::vector<int64_t>{2, steps, 1}));
  }
  EXPECT_EQ(runError(module, Tensor::zeros({2, 3, 3})),
            "input has shape (2, 3, 3) but the model expects (?, ?, 2)");
}

TEST_F(EagerTest, RegistryCreatesEagerAndRunsConcurrently) {
  registerEagerEngine();
  std::vector<std::string> names = engineNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "eager"), names.end());
  mlir::ModuleOp module = parse(kLstmLayer);
  llvm::Expected<std::unique_ptr<Engine>> engine =
      createEngine("eager", module);
  ASSERT_TRUE(static_cast<bool>(engine)) << llvm::toString(engine.takeError());

  Tensor x{{2, 3, 2}, {1, 0, 0, 1, 2, 2, -1, 0.5, 0, 0, 3, -1}};
  Tensor expected = run(module, x);
  std::vector<Tensor> results(4);
  std::vector<std::thread> threads;
  for (Tensor &result : results)
    threads.emplace_back([&] {
      llvm::Expected<Tensor> y = (*engine)->run(x);
      if (y)
        result = std::move(*y);
      else
        llvm::consumeError(y.takeError());
    });
  for (std::thread &t : threads)
    t.join();
  for (const Tensor &result : results)
    EXPECT_EQ(result.data, expected.data);
}

TEST_F(EagerTest, ModuleWithoutPredictIsAnError) {
  mlir::ModuleOp module = parse(R"mlir(
func.func @other(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  return %x : tensor<?x2xf32>
}
)mlir");
  llvm::Expected<std::unique_ptr<Engine>> engine = createEagerEngine(module);
  ASSERT_FALSE(static_cast<bool>(engine));
  EXPECT_EQ(llvm::toString(engine.takeError()),
            "the module has no func.func @predict with a body");
}

} // namespace
