//===- JitMemory.h - One address range for all of a JIT model's sections -===//
//
// The JIT compiles with the small code model: code reaches the model's
// constants and weights through 32-bit PC-relative displacements, so every
// section of one object must lie within 2 GiB of the others. LLVM's default
// mapper maps each section on its own, wherever the kernel finds room; in a
// fragmented address space (ASan, many engines created and freed) the
// read-only data could land gigabytes away from the code, and RuntimeDyld
// truncates the displacement silently (a release build does not assert): the
// code then read from a wrong address. This mapper carves all sections of one
// engine out of a single reservation sized for the model, so the distance is
// bounded by construction; running out is an allocation error, never a far
// block.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_LIB_TARGET_CPU_JITMEMORY_H
#define SEQ_LIB_TARGET_CPU_JITMEMORY_H

#include "llvm/ExecutionEngine/SectionMemoryManager.h"

#include <cstddef>

namespace llvm {
class Module;
}

namespace seq::cpu {

class JitMemory final : public llvm::SectionMemoryManager::MemoryMapper {
public:
  /// Reserves nothing yet; the first allocation reserves the address space
  /// (inaccessible until carved): room for code alone, or for `module` once
  /// sizeFor has seen it.
  JitMemory();
  ~JitMemory() override;
  JitMemory(const JitMemory &) = delete;
  JitMemory &operator=(const JitMemory &) = delete;

  /// Sizes the reservation for `module`: its global data plus room for code.
  /// Call it before the module's object is loaded.
  void sizeFor(const llvm::Module &module);

  llvm::sys::MemoryBlock
  allocateMappedMemory(llvm::SectionMemoryManager::AllocationPurpose purpose,
                       size_t numBytes, const llvm::sys::MemoryBlock *nearBlock,
                       unsigned flags, std::error_code &ec) override;
  std::error_code protectMappedMemory(const llvm::sys::MemoryBlock &block,
                                      unsigned flags) override;
  std::error_code releaseMappedMemory(llvm::sys::MemoryBlock &block) override;

  /// The reservation ([base, base + size)); null before the first allocation.
  char *base() const { return reservation; }
  size_t size() const { return reservation ? bytes : 0; }

private:
  size_t bytes; // what is (or will be) reserved
  char *reservation = nullptr;
  size_t used = 0;
};

} // namespace seq::cpu

#endif
