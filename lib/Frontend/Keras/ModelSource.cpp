#include "ModelSource.h"

#include "seq/Frontend/Keras/FileFormat.h"
#include "seq/Frontend/Keras/ModelFile.h"
#include "seq/Frontend/Keras/ZipArchive.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <algorithm>

using namespace llvm;

namespace seq::keras {

std::unique_ptr<WeightStore>
ModelSource::openWeights(const std::vector<LayerConfig> &layers) {
  if (suppliedWeights)
    return std::move(suppliedWeights);
  if (checkpoint)
    return makeCheckpointWeightStore(std::move(*checkpoint), config);
  if (keras3Layout)
    return makeKeras3WeightStore(std::move(*weightsFile), layers);
  return makeLegacyWeightStore(std::move(*weightsFile), legacyRoot);
}

namespace {

constexpr uint64_t kMaxJsonMemberBytes = uint64_t(16) << 20;

Expected<json::Value> readJsonFile(StringRef path) {
  Expected<std::unique_ptr<MemoryBuffer>> buffer =
      readModelFile(path, kMaxModelJsonBytes, /*linkAllowed=*/true);
  if (!buffer)
    return buffer.takeError();
  return parseModelJson((*buffer)->getBuffer(), path, "the config");
}

/// Attributes Keras itself writes at the root of an .h5 file.
bool isKerasAttribute(StringRef name) {
  static const StringSet<> known = {"model_config", "keras_version", "backend",
                                    "training_config", "layer_names"};
  return known.contains(name) || name.starts_with("layer_names");
}

Error readRootAttributes(const HDF5File &file, ModelSource &source) {
  Expected<std::vector<std::string>> names = file.attributeNames("/");
  if (!names)
    return names.takeError();
  for (const std::string &name : *names) {
    if (name == "keras_version" || name == "backend") {
      Expected<std::string> value = file.readStringAttribute("/", name);
      if (!value)
        return value.takeError();
      (name == "backend" ? source.backend : source.kerasVersion) = *value;
    } else if (!isKerasAttribute(name)) {
      // User metadata stored with h5py; non-string values are skipped.
      if (Expected<std::string> value = file.readStringAttribute("/", name))
        source.userAttributes.emplace_back(name, *value);
      else
        consumeError(value.takeError());
    }
  }
  return Error::success();
}

/// Legacy weights sit in the group with `layer_names`; Keras 3 weights in
/// `layers/`.
Error locateWeights(const HDF5File &file, StringRef group, ModelSource &source) {
  if (file.hasAttribute(group, "layer_names") ||
      file.hasAttribute(group, "layer_names0")) {
    source.legacyRoot = group == "/" ? "" : group.str();
    return Error::success();
  }
  if (file.isGroup(group == "/" ? "layers" : (group + "/layers").str())) {
    source.keras3Layout = true;
    return Error::success();
  }
  return fileError(source.path, "no Keras weights found (neither a "
                                "'layer_names' attribute nor a 'layers' group)");
}

Error openHdf5(StringRef path, StringRef configPath, ModelSource &source) {
  Expected<HDF5File> file = HDF5File::open(path);
  if (!file)
    return file.takeError();
  if (Error e = readRootAttributes(*file, source))
    return e;
  bool hasConfig = file->hasAttribute("/", "model_config");
  if (!configPath.empty()) {
    Expected<json::Value> config = readJsonFile(configPath);
    if (!config)
      return config.takeError();
    source.config = std::move(*config);
    source.format = "json+weights";
  } else if (hasConfig) {
    Expected<std::string> text = file->readStringAttribute("/", "model_config");
    if (!text)
      return text.takeError();
    Expected<json::Value> config = parseModelJson(*text, path, "attribute 'model_config'");
    if (!config)
      return config.takeError();
    source.config = std::move(*config);
    source.format = "h5";
  } else {
    return fileError(path, "a weights-only HDF5 file (no 'model_config'): pass "
                           "the architecture with --config model.json (from "
                           "model.to_json())");
  }
  bool fullModel = hasConfig && file->isGroup("model_weights");
  if (Error e = locateWeights(*file, fullModel ? "model_weights" : "/", source))
    return e;
  // Keras 1 wrote the backend (Theano kernels are flipped) only beside the
  // weights.
  if (fullModel)
    for (StringRef name : {"keras_version", "backend"}) {
      std::string &value = name == "backend" ? source.backend : source.kerasVersion;
      if (value.empty() && file->hasAttribute("model_weights", name)) {
        Expected<std::string> text = file->readStringAttribute("model_weights", name);
        if (!text)
          return text.takeError();
        value = *text;
      }
    }
  source.weightsFile.emplace(std::move(*file));
  return Error::success();
}

Expected<json::Value> readZipJson(const ZipArchive &zip, StringRef member) {
  Expected<std::vector<char>> bytes = zip.read(member, kMaxJsonMemberBytes);
  if (!bytes)
    return bytes.takeError();
  return parseModelJson(StringRef(bytes->data(), bytes->size()), zip.path(), member);
}

/// A Keras 3 model from its members, wherever they are (a .keras zip, or the
/// directory model.save(DIR, zipped=False) writes): metadata.json for the
/// version, config.json unless --config gives it, model.weights.h5.
Error readKeras3Members(StringRef configPath, ModelSource &source,
                        function_ref<bool(StringRef)> contains,
                        function_ref<Expected<json::Value>(StringRef)> readJson,
                        function_ref<Expected<HDF5File>()> openWeights) {
  source.format = "keras";
  if (contains("metadata.json")) {
    Expected<json::Value> metadata = readJson("metadata.json");
    if (!metadata)
      return metadata.takeError();
    if (const json::Object *o = metadata->getAsObject())
      source.kerasVersion = o->getString("keras_version").value_or("").str();
  }
  Expected<json::Value> config =
      configPath.empty() ? readJson("config.json") : readJsonFile(configPath);
  if (!config)
    return config.takeError();
  source.config = std::move(*config);
  Expected<HDF5File> file = openWeights();
  if (!file)
    return file.takeError();
  source.keras3Layout = true;
  source.weightsFile.emplace(std::move(*file));
  return Error::success();
}

Error openKerasZip(StringRef path, StringRef configPath, ModelSource &source) {
  Expected<ZipArchive> zip = ZipArchive::open(path);
  if (!zip)
    return zip.takeError();
  for (StringRef member : {"config.json", "model.weights.h5"})
    if (!zip->contains(member))
      return fileError(path, "a zip archive without '" + member +
                                 "': not a Keras 3 .keras file");
  return readKeras3Members(
      configPath, source, [&](StringRef member) { return zip->contains(member); },
      [&](StringRef member) { return readZipJson(*zip, member); },
      [&]() -> Expected<HDF5File> {
        // Stored weights are as large as the file; deflated ones may be
        // larger, within reason.
        uint64_t cap = std::max<uint64_t>(uint64_t(256) << 20,
                                          64 * zip->storedSize("model.weights.h5"));
        Expected<std::vector<char>> weights = zip->read("model.weights.h5", cap);
        if (!weights)
          return weights.takeError();
        return HDF5File::openImage(*weights, (path + ":model.weights.h5").str());
      });
}

/// The most bytes of keras_metadata.pb read (the config of each layer and
/// model, a little more than an .h5's model_config), and of saved_model.pb
/// (protobuf's own limit).
constexpr uint64_t kMaxKerasMetadataBytes = uint64_t(256) << 20;
constexpr uint64_t kMaxSavedModelBytes = uint64_t(2) << 30;

/// The Keras objects of a SavedModel: keras_metadata.pb's (TensorFlow 2.5
/// on), else those saved_model.pb holds (TensorFlow before 2.5).
Expected<std::vector<KerasMetadataNode>> readSavedKerasObjects(StringRef dir) {
  SmallString<256> file(dir);
  sys::path::append(file, "keras_metadata.pb");
  bool metadataFile = sys::fs::exists(file);
  if (!metadataFile) {
    file = dir;
    sys::path::append(file, "saved_model.pb");
  }
  Expected<std::unique_ptr<MemoryBuffer>> bytes =
      readModelFile(file, metadataFile ? kMaxKerasMetadataBytes : kMaxSavedModelBytes);
  if (!bytes)
    return bytes.takeError();
  return metadataFile ? readKerasMetadata((*bytes)->getBuffer(), file)
                      : readSavedModelKerasNodes((*bytes)->getBuffer(), file);
}

/// The JSON encoder of a SavedModel's metadata (tf_keras json_utils) writes
/// tuples and TensorShapes as {"class_name": "__tuple__", "items": [...]};
/// the model's config means the lists. (parseModelJson bounds the depth.)
void decodeTuples(json::Value &value) {
  if (json::Array *array = value.getAsArray()) {
    for (json::Value &item : *array)
      decodeTuples(item);
    return;
  }
  json::Object *object = value.getAsObject();
  if (!object)
    return;
  std::optional<StringRef> className = object->getString("class_name");
  json::Array *items = object->getArray("items");
  if (items && object->size() == 2 &&
      (className == "__tuple__" || className == "TensorShape")) {
    json::Value list = std::move(*items);
    value = std::move(list);
    decodeTuples(value);
    return;
  }
  for (auto &member : *object)
    decodeTuples(member.second);
}

Error openSavedModel(StringRef path, StringRef configPath, ModelSource &source) {
  SmallString<256> dir(path);
  if (!sys::fs::is_directory(dir))
    sys::path::remove_filename(dir);
  Expected<std::vector<KerasMetadataNode>> nodes = readSavedKerasObjects(dir);
  if (!nodes)
    return nodes.takeError();
  auto root = llvm::find_if(*nodes, [](const KerasMetadataNode &n) { return n.nodePath == "root"; });
  if (root == nodes->end())
    return fileError(path, "a TensorFlow SavedModel that Keras did not save (tf.saved_model.save, "
                           "Keras 3's model.export): it holds TensorFlow graphs, not layers; "
                           "save the Keras model with model.save(\"model.keras\") or "
                           "model.save(\"model.h5\")");
  Expected<json::Value> metadata = parseModelJson(root->metadata, path, "the model's metadata");
  if (!metadata)
    return metadata.takeError();
  json::Object *model = metadata->getAsObject();
  if (!model)
    return fileError(path, "the model's metadata is not a JSON object");
  source.kerasVersion = model->getString("keras_version").value_or("").str();
  source.backend = model->getString("backend").value_or("").str();
  if (!configPath.empty()) {
    Expected<json::Value> config = readJsonFile(configPath);
    if (!config)
      return config.takeError();
    source.config = std::move(*config);
  } else if (json::Value *config = model->get("model_config")) {
    decodeTuples(*config);
    source.config = std::move(*config);
  } else {
    return fileError(path, "the model's metadata has no model_config");
  }
  source.format = "savedmodel";
  SmallString<256> prefix(dir);
  sys::path::append(prefix, "variables", "variables");
  Expected<CheckpointSource> checkpoint = openCheckpointSource(prefix);
  if (!checkpoint)
    return checkpoint.takeError();
  checkpoint->kerasNodes = std::move(*nodes);
  source.checkpoint.emplace(std::move(*checkpoint));
  return Error::success();
}

/// The prefix of the checkpoint a path names: "ckpt" for ckpt.index, a
/// data shard of it, or a directory whose "checkpoint" file names it last.
Expected<std::string> checkpointPrefix(StringRef path) {
  if (!sys::fs::is_directory(path)) {
    if (path.ends_with(".index"))
      return path.drop_back(strlen(".index")).str();
    static const Regex shard("\\.data-[0-9]+-of-[0-9]+$");
    return shard.sub("", path);
  }
  // The "checkpoint" file is a text proto whose model_checkpoint_path is
  // the latest prefix; only its file name is taken, inside this directory.
  SmallString<256> state(path);
  sys::path::append(state, "checkpoint");
  std::string name;
  if (sys::fs::exists(state)) {
    Expected<std::unique_ptr<MemoryBuffer>> text = readModelFile(state, 1 << 20);
    if (!text)
      return text.takeError();
    static const Regex latest("^model_checkpoint_path: \"([^\"]+)\"");
    SmallVector<StringRef> match;
    for (StringRef line : split((*text)->getBuffer(), '\n'))
      if (latest.match(line, &match))
        name = sys::path::filename(match[1]).str();
  }
  std::error_code ec;
  std::vector<std::string> indexes;
  for (sys::fs::directory_iterator it(path, ec), end; it != end && !ec; it.increment(ec))
    if (StringRef file = sys::path::filename(it->path()); file.ends_with(".index"))
      indexes.push_back(file.drop_back(strlen(".index")).str());
  if (name.empty() && indexes.size() == 1)
    name = indexes.front();
  if (name.empty())
    return fileError(path, "a directory of " + Twine(indexes.size()) +
                               " TensorFlow checkpoints and no 'checkpoint' file naming the "
                               "latest: name one, as DIR/PREFIX for PREFIX.index");
  SmallString<256> prefix(path);
  sys::path::append(prefix, name);
  return prefix.str().str();
}

Error openCheckpoint(StringRef path, StringRef configPath, ModelSource &source) {
  if (configPath.empty())
    return fileError(path, "a TensorFlow checkpoint holds weights only: pass the "
                           "architecture with --config model.json (from model.to_json())");
  Expected<std::string> prefix = checkpointPrefix(path);
  if (!prefix)
    return prefix.takeError();
  Expected<json::Value> config = readJsonFile(configPath);
  if (!config)
    return config.takeError();
  source.config = std::move(*config);
  source.format = "json+checkpoint";
  Expected<CheckpointSource> checkpoint = openCheckpointSource(*prefix);
  if (!checkpoint)
    return checkpoint.takeError();
  source.checkpoint.emplace(std::move(*checkpoint));
  return Error::success();
}

/// Keras 3's model.save(DIR, zipped=False): the .keras archive's members
/// as files of a directory.
Error openKerasDirectory(StringRef path, StringRef configPath, ModelSource &source) {
  auto member = [&](StringRef name) {
    SmallString<256> file(path);
    sys::path::append(file, name);
    return file.str().str();
  };
  return readKeras3Members(
      configPath, source, [&](StringRef name) { return sys::fs::exists(member(name)); },
      [&](StringRef name) -> Expected<json::Value> {
        Expected<std::unique_ptr<MemoryBuffer>> bytes =
            readModelFile(member(name), kMaxJsonMemberBytes);
        if (!bytes)
          return bytes.takeError();
        return parseModelJson((*bytes)->getBuffer(), member(name), "the file");
      },
      [&]() -> Expected<HDF5File> {
        Expected<std::unique_ptr<MemoryBuffer>> weights =
            readModelFile(member("model.weights.h5"), UINT64_MAX);
        if (!weights)
          return weights.takeError();
        StringRef bytes = (*weights)->getBuffer();
        return HDF5File::openImage(ArrayRef<char>(bytes.data(), bytes.size()),
                                   member("model.weights.h5"));
      });
}

} // namespace

Expected<ModelSource> openModelSource(StringRef path, StringRef configPath) {
  ModelSource source;
  source.path = path.str();
  FormatInfo info = detectFormat(path);
  Error error = Error::success();
  switch (info.format) {
  case FileFormat::HDF5:
    error = openHdf5(path, configPath, source);
    break;
  case FileFormat::Zip:
    error = openKerasZip(path, configPath, source);
    break;
  case FileFormat::KerasDir:
    error = openKerasDirectory(path, configPath, source);
    break;
  case FileFormat::Missing:
    return fileError(path, "no such file");
  case FileFormat::Json:
    return fileError(path, "a JSON file, not a model: pass it as --config "
                           "together with the weights file");
  case FileFormat::MLIR:
    return fileError(path, "an MLIR file: it holds the whole model, so it "
                           "takes no --config");
  case FileFormat::SavedModelDir:
    error = openSavedModel(path, configPath, source);
    break;
  case FileFormat::TFCheckpoint:
    error = openCheckpoint(path, configPath, source);
    break;
  default:
    return fileError(path, "this is " + info.description +
                               ", not a Keras model (.h5 or .keras)");
  }
  if (error)
    return std::move(error);
  // The config of model.to_json() carries the version when the file does not.
  if (const json::Object *top = source.config.getAsObject()) {
    if (source.kerasVersion.empty())
      source.kerasVersion = top->getString("keras_version").value_or("").str();
    if (source.backend.empty())
      source.backend = top->getString("backend").value_or("").str();
  }
  return source;
}

} // namespace seq::keras
