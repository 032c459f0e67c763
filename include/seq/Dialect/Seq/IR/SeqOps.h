#ifndef SEQ_DIALECT_SEQ_IR_SEQOPS_H
#define SEQ_DIALECT_SEQ_IR_SEQOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "seq/Dialect/Seq/IR/SeqDialect.h"
#include "seq/Dialect/Seq/IR/SeqEnums.h.inc"

#define GET_OP_CLASSES
#include "seq/Dialect/Seq/IR/SeqOps.h.inc"

#endif
