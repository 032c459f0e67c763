// Prints a CUDA library's metadata bytes exactly (built here under the CPU
// simulation, or against a real library).
#include <cstdio>
#include <cstring>

extern "C" const char *seqc_model_metadata_json(void);

int main() {
  const char *json = seqc_model_metadata_json();
  std::fwrite(json, 1, std::strlen(json), stdout);
  return 0;
}
