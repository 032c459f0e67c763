// A model whose metadata and layer names try to become C source: a trigraph
// (??/) that would end a C string literal, a */ and newlines that would end
// a header comment, and __attribute__((constructor)) functions that would
// run at dlopen and create the file seqc-pwned in the working directory.
module attributes {seq.metadata = {keras_version = "2.15.0", model_name = "m??/\"; int seqc_pwn_name; //\n#error pwned", source = "x.h5 */\n#include <stdio.h>\n__attribute__((constructor)) static void seqc_pwn(void) { FILE *f = fopen(\"seqc-pwned\", \"w\"); if (f) fclose(f); }\n/* ??/", zz = "??/\"; __attribute__((constructor)) static void seqc_pwn2(void) { } //\\x\00end"}} {
  func.func @predict(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
    %0 = seq.activation relu %x : tensor<?x4xf32> loc("relu??/\"\n*/ __attribute__((constructor)) static void seqc_pwn3(void) {}\n//")
    return %0 : tensor<?x4xf32>
  }
}
