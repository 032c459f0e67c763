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
  OpBuilder &b = lb.b;
  Value tooShort = arith::CmpIOp::create(b, lb.loc, arith::CmpIPredicate::slt,
                                         lb.toValue(length), lb.index(minimum));
  Value rows = arith::IndexCastOp::create(b, lb.loc, b.getI64Type(), lb.dim(input, 0));
  reportIf(lb, op, tooShort, rows, message);
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
