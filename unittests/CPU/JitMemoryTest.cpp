// JitMemory: every section of one JIT model inside one reservation, so the
// small code model's 32-bit displacements between them cannot overflow.
#include "JitMemory.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

using llvm::SectionMemoryManager;
using llvm::sys::Memory;
using llvm::sys::MemoryBlock;
using seq::cpu::JitMemory;
using Purpose = SectionMemoryManager::AllocationPurpose;

namespace {

bool inside(const JitMemory &memory, const MemoryBlock &block) {
  char *begin = static_cast<char *>(block.base());
  return begin >= memory.base() &&
         begin + block.allocatedSize() <= memory.base() + memory.size();
}

TEST(JitMemoryTest, SectionsShareOneReservation) {
  JitMemory memory;
  std::error_code ec;
  MemoryBlock code = memory.allocateMappedMemory(
      Purpose::Code, 5000, nullptr, Memory::MF_READ | Memory::MF_WRITE, ec);
  ASSERT_FALSE(ec) << ec.message();
  // Someone else maps memory between two sections (another engine, the
  // allocator): the next section still comes from the reservation.
  void *other = mmap(nullptr, size_t(256) << 20, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(other, MAP_FAILED);
  MemoryBlock rodata = memory.allocateMappedMemory(
      Purpose::ROData, 100000, &code, Memory::MF_READ | Memory::MF_WRITE, ec);
  ASSERT_FALSE(ec) << ec.message();
  MemoryBlock rwdata = memory.allocateMappedMemory(
      Purpose::RWData, 10, nullptr, Memory::MF_READ | Memory::MF_WRITE, ec);
  ASSERT_FALSE(ec) << ec.message();
  munmap(other, size_t(256) << 20);

  for (const MemoryBlock &block : {code, rodata, rwdata})
    EXPECT_TRUE(inside(memory, block));
  EXPECT_EQ(static_cast<char *>(rodata.base()),
            static_cast<char *>(code.base()) + code.allocatedSize());
  EXPECT_GE(rodata.allocatedSize(), 100000u);
  // The blocks are usable with the protection asked for, then final ones.
  static_cast<char *>(rodata.base())[99999] = 7;
  EXPECT_FALSE(memory.protectMappedMemory(rodata, Memory::MF_READ));
  EXPECT_EQ(static_cast<char *>(rodata.base())[99999], 7);
  EXPECT_FALSE(memory.releaseMappedMemory(rwdata));
  EXPECT_EQ(rwdata.base(), nullptr);
}

TEST(JitMemoryTest, RunningOutIsAnErrorNotAFarBlock) {
  JitMemory memory;
  std::error_code ec;
  MemoryBlock first = memory.allocateMappedMemory(
      Purpose::Code, 4096, nullptr, Memory::MF_READ | Memory::MF_WRITE, ec);
  ASSERT_FALSE(ec);
  MemoryBlock tooBig = memory.allocateMappedMemory(
      Purpose::ROData, memory.size(), &first,
      Memory::MF_READ | Memory::MF_WRITE, ec);
  EXPECT_EQ(ec, std::errc::not_enough_memory);
  EXPECT_EQ(tooBig.base(), nullptr);
}

TEST(JitMemoryTest, ReservationHoldsTheModelsData) {
  llvm::LLVMContext context;
  llvm::Module module("weights", context);
  auto *type = llvm::ArrayType::get(llvm::Type::getFloatTy(context), 50 << 20);
  new llvm::GlobalVariable(module, type, /*isConstant=*/true,
                           llvm::GlobalValue::InternalLinkage,
                           llvm::ConstantAggregateZero::get(type), "weights");
  JitMemory small, sized;
  sized.sizeFor(module);
  std::error_code ec;
  for (JitMemory *memory : {&small, &sized}) {
    memory->allocateMappedMemory(Purpose::Code, 1, nullptr,
                                 Memory::MF_READ | Memory::MF_WRITE, ec);
    ASSERT_FALSE(ec);
  }
  EXPECT_GE(sized.size(), small.size() + (size_t(200) << 20));
  MemoryBlock weights = sized.allocateMappedMemory(
      Purpose::ROData, size_t(200) << 20, nullptr, Memory::MF_READ, ec);
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_TRUE(inside(sized, weights));
}

} // namespace
