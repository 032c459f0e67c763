#include "JitMemory.h"

#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Process.h"

#include <sys/mman.h>

using namespace llvm;
using seq::cpu::JitMemory;

namespace {
/// Room for a model's code, constant pools and JIT stubs next to its weights.
constexpr size_t kCodeAllowance = size_t(64) << 20;

size_t pageSize() { return sys::Process::getPageSizeEstimate(); }

size_t roundToPages(size_t bytes) {
  size_t page = pageSize();
  return (bytes + page - 1) / page * page;
}
} // namespace

JitMemory::JitMemory() : bytes(kCodeAllowance) {}

JitMemory::~JitMemory() {
  if (reservation)
    munmap(reservation, bytes);
}

void JitMemory::sizeFor(const Module &module) {
  const DataLayout &layout = module.getDataLayout();
  size_t data = 0;
  for (const GlobalVariable &global : module.globals())
    if (global.hasInitializer())
      data += layout.getTypeAllocSize(global.getValueType()) +
              global.getAlign().valueOrOne().value();
  bytes = roundToPages(data + kCodeAllowance);
}

sys::MemoryBlock
JitMemory::allocateMappedMemory(SectionMemoryManager::AllocationPurpose,
                                size_t numBytes, const sys::MemoryBlock *,
                                unsigned flags, std::error_code &ec) {
  ec = std::error_code();
  if (!reservation) {
    void *start = mmap(nullptr, bytes, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (start == MAP_FAILED) {
      ec = std::error_code(errno, std::generic_category());
      return {};
    }
    reservation = static_cast<char *>(start);
  }
  size_t size = roundToPages(numBytes ? numBytes : 1);
  if (size > bytes - used) {
    ec = std::make_error_code(std::errc::not_enough_memory);
    return {};
  }
  sys::MemoryBlock block(reservation + used, size);
  if ((ec = sys::Memory::protectMappedMemory(block, flags)))
    return {};
  used += size;
  return block;
}

std::error_code JitMemory::protectMappedMemory(const sys::MemoryBlock &block,
                                               unsigned flags) {
  return sys::Memory::protectMappedMemory(block, flags);
}

std::error_code JitMemory::releaseMappedMemory(sys::MemoryBlock &block) {
  // The range stays reserved (and unused) until the engine goes; its pages
  // go back to the system now.
  if (block.base() &&
      (madvise(block.base(), block.allocatedSize(), MADV_DONTNEED) != 0 ||
       mprotect(block.base(), block.allocatedSize(), PROT_NONE) != 0))
    return std::error_code(errno, std::generic_category());
  block = sys::MemoryBlock();
  return {};
}
