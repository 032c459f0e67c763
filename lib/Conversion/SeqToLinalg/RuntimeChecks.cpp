#include "RuntimeChecks.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace {

constexpr StringLiteral kReportError = "seqc_report_error";
constexpr StringLiteral kErrorSitesAttr = "seqc.error_sites";

/// Registers an error site (its message) on the module; returns its number.
int64_t addErrorSite(ModuleOp module, StringRef message) {
  MLIRContext *ctx = module.getContext();
  SmallVector<Attribute> sites;
  if (auto existing = module->getAttrOfType<ArrayAttr>(kErrorSitesAttr))
    sites.append(existing.begin(), existing.end());
  sites.push_back(StringAttr::get(ctx, message));
  module->setAttr(kErrorSitesAttr, ArrayAttr::get(ctx, sites));
  return sites.size() - 1;
}

void declareReportError(ModuleOp module) {
  if (module.lookupSymbol(kReportError))
    return;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto type = b.getFunctionType({b.getI32Type(), b.getI64Type()}, {});
  auto fn = func::FuncOp::create(b, module.getLoc(), kReportError, type);
  fn.setPrivate();
}

} // namespace

std::string seq::lowering::layerName(Operation *op) {
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    return name.getName().str();
  return op->getName().getStringRef().str();
}

void seq::lowering::reportIf(LinalgBuilder &lb, Operation *op, Value failed,
                             Value count, StringRef message) {
  ModuleOp module = op->getParentOfType<ModuleOp>();
  declareReportError(module);
  int64_t site = addErrorSite(module, message);
  scf::IfOp::create(lb.b, lb.loc, failed, [&](OpBuilder &b, Location l) {
    Value siteValue = arith::ConstantOp::create(b, l, b.getI32IntegerAttr(site));
    func::CallOp::create(b, l, kReportError, TypeRange{}, ValueRange{siteValue, count});
    scf::YieldOp::create(b, l);
  });
}

void seq::lowering::reportShort(LinalgBuilder &lb, Operation *op, Value input,
                                OpFoldResult length, int64_t minimum,
                                StringRef message) {
  IndexMath m{lb};
  if (m.constant(length))
    return;
  Value tooShort = arith::CmpIOp::create(lb.b, lb.loc, arith::CmpIPredicate::slt,
                                         lb.toValue(length), lb.index(minimum));
  reportRowsIf(lb, op, input, tooShort, message);
}

void seq::lowering::reportRowsIf(LinalgBuilder &lb, Operation *op, Value input,
                                 Value failed, StringRef message) {
  Value rows =
      arith::IndexCastOp::create(lb.b, lb.loc, lb.b.getI64Type(), lb.dim(input, 0));
  reportIf(lb, op, failed, rows, message);
}

OpFoldResult seq::lowering::fitWindow(LinalgBuilder &lb, Operation *op, Value input,
                                      OpFoldResult paddedLength, int64_t span,
                                      int64_t axis) {
  IndexMath m{lb};
  if (m.constant(paddedLength))
    return paddedLength;
  reportShort(lb, op, input, paddedLength, span,
              "layer '" + layerName(op) + "': inputs shorter than its window of " +
                  std::to_string(span) + " along axis " + std::to_string(axis));
  return m.max(paddedLength, m.c(span));
}

Value seq::lowering::fitRowWidth(LinalgBuilder &lb, Operation *op, Value rows,
                                 int64_t width) {
  IndexMath m{lb};
  Value differs = arith::CmpIOp::create(lb.b, lb.loc, arith::CmpIPredicate::ne,
                                        lb.dim(rows, 1), lb.index(width));
  reportRowsIf(lb, op, rows, differs,
               "layer '" + layerName(op) + "': inputs whose size per sample is not the " +
                   std::to_string(width) + " of its target shape");
  OpFoldResult batch = lb.dimOfr(rows, 0), kept = m.min(lb.dimOfr(rows, 1), m.c(width));
  Value part = lb.extractSlice(rows, {m.c(0), m.c(0)}, {batch, kept});
  return lb.insertSlice(part, lb.full({batch, m.c(width)}, 0.0), {m.c(0), m.c(0)},
                        {batch, kept});
}
