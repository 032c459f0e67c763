//===- ReplayMain.cpp - Run a fuzz harness over files, without libFuzzer -===//
//
// Linked with a harness in builds without SEQ_FUZZ (gcc, the normal build):
// `seq-fuzz-<name> FILE_OR_DIR...` runs LLVMFuzzerTestOneInput once on each
// file and each regular file of each directory (sorted, not recursive), so
// that the lit suite replays the committed corpus. A crash, sanitizer report
// or hang is the harness's own failure; the exit status is 0 otherwise, and 1
// if an argument cannot be read.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/stat.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv)
    __attribute__((weak));

namespace {

bool readFile(const std::string &path, std::vector<uint8_t> &bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  bytes.assign(std::istreambuf_iterator<char>(in),
               std::istreambuf_iterator<char>());
  return !in.bad();
}

bool isDirectory(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

} // namespace

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!isDirectory(arg)) {
      files.push_back(arg);
      continue;
    }
    DIR *dir = opendir(arg.c_str());
    if (!dir) {
      std::fprintf(stderr, "replay: cannot open directory '%s'\n", arg.c_str());
      return 1;
    }
    std::vector<std::string> entries;
    while (struct dirent *e = readdir(dir)) {
      std::string path = arg + "/" + e->d_name;
      struct stat st;
      if (e->d_name[0] != '.' && stat(path.c_str(), &st) == 0 &&
          S_ISREG(st.st_mode))
        entries.push_back(path);
    }
    closedir(dir);
    std::sort(entries.begin(), entries.end());
    files.insert(files.end(), entries.begin(), entries.end());
  }
  size_t done = 0;
  for (const std::string &path : files) {
    std::vector<uint8_t> bytes;
    if (!readFile(path, bytes)) {
      std::fprintf(stderr, "replay: cannot read '%s'\n", path.c_str());
      return 1;
    }
    // A copy of exactly the file's size, so that reading past the end is a
    // heap overflow under ASan as it is under libFuzzer.
    uint8_t *copy = new uint8_t[bytes.size() ? bytes.size() : 1];
    std::memcpy(copy, bytes.data(), bytes.size());
    LLVMFuzzerTestOneInput(copy, bytes.size());
    delete[] copy;
    ++done;
  }
  std::printf("replayed %zu inputs\n", done);
  return 0;
}
