// --input: what --run and --compare read. One value names an .npy file, an
// HDF5 dataset (data.h5:/x), a CSV/TSV file, a directory of such shards, or
// a glob; it may be repeated. Inputs are streamed row by row (RowSource).
#include "Actions.h"

#include "seq/Frontend/Keras/FileFormat.h"
#include "seq/Frontend/Keras/HDF5Rows.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;

namespace seqc {

cl::list<std::string> inputSpecs(
    "input",
    cl::desc("Input for --run (repeatable) / --compare: x.npy, data.h5:/x, "
             "x.csv, x.tsv, a directory of shards or a quoted glob"),
    cl::value_desc("file"), cl::cat(seqCompileCategory));

namespace {

Error inputError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

bool isShard(StringRef path) {
  StringRef ext = sys::path::extension(path);
  return ext == ".npy" || ext == ".csv" || ext == ".tsv";
}

/// The files in `dir` (or matching `pattern` there), sorted by name.
Expected<std::vector<std::string>> listFiles(StringRef dir,
                                             const GlobPattern *pattern) {
  std::vector<std::string> files;
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    StringRef name = sys::path::filename(it->path());
    if (pattern ? pattern->match(name)
                : isShard(name) && sys::fs::is_regular_file(it->path()))
      files.push_back(it->path());
  }
  if (ec)
    return inputError("cannot list '" + dir + "': " + ec.message());
  llvm::sort(files);
  return files;
}

} // namespace

Expected<std::vector<std::string>>
expandInputs(ArrayRef<std::string> specs) {
  std::vector<std::string> inputs;
  for (const std::string &spec : specs) {
    if (sys::fs::is_directory(spec)) {
      Expected<std::vector<std::string>> files = listFiles(spec, nullptr);
      if (!files)
        return files.takeError();
      if (files->empty())
        return inputError("'" + spec + "' holds no .npy, .csv or .tsv files");
      inputs.insert(inputs.end(), files->begin(), files->end());
    } else if (StringRef(spec).find_first_of("*?[") != StringRef::npos &&
               !sys::fs::exists(spec)) {
      StringRef dir = sys::path::parent_path(spec);
      Expected<GlobPattern> pattern =
          GlobPattern::create(sys::path::filename(spec));
      if (!pattern)
        return inputError("--input '" + spec + "': " +
                          toString(pattern.takeError()));
      Expected<std::vector<std::string>> files =
          listFiles(dir.empty() ? "." : dir, &*pattern);
      if (!files)
        return files.takeError();
      if (files->empty())
        return inputError("--input '" + spec + "' matches no file");
      inputs.insert(inputs.end(), files->begin(), files->end());
    } else {
      inputs.push_back(spec);
    }
  }
  return inputs;
}

Expected<std::unique_ptr<seq::rt::RowSource>>
openInput(StringRef spec, const std::vector<int64_t> &csvRowShape) {
  if (sys::fs::is_regular_file(spec)) {
    StringRef ext = sys::path::extension(spec);
    if (ext == ".csv" || ext == ".tsv")
      return seq::rt::openCsvRows(spec, csvRowShape, ext == ".csv" ? ',' : '\t');
    if (seq::keras::detectFormat(spec).format == seq::keras::FileFormat::HDF5)
      return inputError("'" + spec +
                        "' is an HDF5 file: name the dataset, e.g. --input " +
                        spec + ":/x");
    return seq::rt::openNpyRows(spec);
  }
  // data.h5:/x, where the file part is the first prefix that is a file
  // (dataset names may hold ':' themselves, as Keras' "kernel:0").
  for (size_t colon = spec.find(':'); colon != StringRef::npos;
       colon = spec.find(':', colon + 1)) {
    StringRef file = spec.take_front(colon),
              dataset = spec.drop_front(colon + 1);
    if (sys::fs::is_regular_file(file) && !dataset.empty())
      return seq::keras::openHDF5Rows(file, dataset);
  }
  return inputError("cannot find input '" + spec +
                    "' (expected x.npy, data.h5:/dataset, x.csv or x.tsv)");
}

Expected<seq::rt::Tensor> readInput(StringRef spec) {
  Expected<std::unique_ptr<seq::rt::RowSource>> source = openInput(spec, {});
  if (!source)
    return source.takeError();
  return seq::rt::readAllRows(**source);
}

} // namespace seqc
