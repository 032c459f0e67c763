#include "seq/Runtime/Compare.h"

#include <fstream>
#include <malloc.h>
#include <unistd.h>

namespace seq::rt {

int64_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

int64_t heapBytesInUse() {
  struct mallinfo2 info = mallinfo2();
  return static_cast<int64_t>(info.uordblks + info.hblkhd);
}

} // namespace seq::rt
