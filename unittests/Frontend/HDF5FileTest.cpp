//===- HDF5FileTest.cpp - Tests for seq::keras::HDF5File ------------------===//
//
// Test files are written with the HDF5 C API, using the types h5py writes:
// numpy 'S' arrays are NUL-padded fixed-length strings, Python str is a
// variable-length UTF-8 string, float16 is a custom IEEE layout.
//
//===----------------------------------------------------------------------===//

#include "seq/Frontend/Keras/HDF5File.h"
#include "seq/Frontend/Keras/HDF5Handle.h"

#include "TestUtil.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <hdf5.h>

using namespace seq::keras;
using namespace seq::test;

namespace {

HDF5Handle scalarSpace() { return HDF5Handle(H5Screate(H5S_SCALAR)); }

HDF5Handle arraySpace(std::vector<hsize_t> dims) {
  return HDF5Handle(H5Screate_simple(dims.size(), dims.data(), nullptr));
}

HDF5Handle fixedStringType(size_t size, H5T_str_t pad) {
  HDF5Handle type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), size);
  H5Tset_strpad(type.get(), pad);
  return type;
}

HDF5Handle vlenStringType() {
  HDF5Handle type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  return type;
}

/// numpy float16 as h5py declares it.
HDF5Handle float16Type() {
  HDF5Handle type(H5Tcopy(H5T_IEEE_F32LE));
  H5Tset_fields(type.get(), 15, 10, 5, 0, 10);
  H5Tset_size(type.get(), 2);
  H5Tset_ebias(type.get(), 15);
  return type;
}

void writeAttribute(hid_t object, const char *name, hid_t type, hid_t space,
                    const void *data) {
  HDF5Handle attr(
      H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT));
  ASSERT_TRUE(attr.valid()) << name;
  if (data) {
    ASSERT_GE(H5Awrite(attr.get(), type, data), 0) << name;
  }
}

void writeVlenString(hid_t object, const char *name, const char *value) {
  writeAttribute(object, name, vlenStringType().get(), scalarSpace().get(),
                 &value);
}

/// A scalar fixed-length string whose size is that of `padded`.
void writeFixedString(hid_t object, const char *name, const std::string &padded,
                      H5T_str_t pad) {
  writeAttribute(object, name, fixedStringType(padded.size(), pad).get(),
                 scalarSpace().get(), padded.data());
}

/// Like h5py for np.array([b"...", ...]): NUL-padded to the longest value.
void writeFixedStringList(hid_t object, const char *name,
                          const std::vector<std::string> &values) {
  size_t width = 1;
  for (const std::string &value : values)
    width = std::max(width, value.size());
  std::string buffer;
  for (const std::string &value : values)
    buffer += value + std::string(width - value.size(), '\0');
  writeAttribute(object, name, fixedStringType(width, H5T_STR_NULLPAD).get(),
                 arraySpace({values.size()}).get(), buffer.data());
}

void writeVlenStringList(hid_t object, const char *name,
                         std::vector<const char *> values) {
  writeAttribute(object, name, vlenStringType().get(),
                 arraySpace({values.size()}).get(), values.data());
}

void writeBytes(hid_t object, const char *name, const std::string &bytes,
                hid_t type) {
  writeAttribute(object, name, type, arraySpace({bytes.size()}).get(),
                 bytes.data());
}

/// What Keras writes for a layer without weights: np.array([]), float64 (0,).
void writeEmptyList(hid_t object, const char *name) {
  writeAttribute(object, name, H5T_IEEE_F64LE, arraySpace({0}).get(), nullptr);
}

void writeDataset(hid_t object, const char *name, hid_t fileType, hid_t memType,
                  std::vector<hsize_t> dims, const void *data) {
  HDF5Handle space = dims.empty() ? scalarSpace() : arraySpace(dims);
  HDF5Handle dataset(H5Dcreate2(object, name, fileType, space.get(),
                                H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  ASSERT_TRUE(dataset.valid()) << name;
  if (data) {
    ASSERT_GE(
        H5Dwrite(dataset.get(), memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
        0)
        << name;
  }
}

HDF5Handle makeGroup(hid_t parent, const char *name, bool trackOrder = false) {
  HDF5Handle properties(H5Pcreate(H5P_GROUP_CREATE));
  if (trackOrder) {
    unsigned flags = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;
    H5Pset_link_creation_order(properties.get(), flags);
    H5Pset_attr_creation_order(properties.get(), flags);
  }
  HDF5Handle group(
      H5Gcreate2(parent, name, H5P_DEFAULT, properties.get(), H5P_DEFAULT));
  EXPECT_TRUE(group.valid()) << name;
  return group;
}

class HDF5FileTest : public TempDirTest {
protected:
  void TearDown() override {
    // Every handle HDF5File opened, also on error paths, must be closed.
    EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
    TempDirTest::TearDown();
  }

  /// Creates `name`, lets `build` fill the root group, and returns the path.
  std::string makeFile(llvm::StringRef name,
                       llvm::function_ref<void(hid_t root)> build) {
    std::string path = pathOf(name);
    HDF5Handle file(
        H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    EXPECT_TRUE(file.valid()) << path;
    build(file.get());
    return path;
  }

  /// A file with a group tree, datasets, a dangling link and attributes.
  std::string makeModelFile() {
    return makeFile("model.h5", [](hid_t root) {
      writeVlenString(root, "keras_version", "2.15.0");
      HDF5Handle weights = makeGroup(root, "model_weights");
      writeFixedStringList(weights.get(), "layer_names", {"zeta", "alpha"});
      writeVlenString(weights.get(), "backend", "tensorflow");
      HDF5Handle zeta = makeGroup(weights.get(), "zeta");
      HDF5Handle alpha = makeGroup(weights.get(), "alpha");
      float kernel[] = {1, 2, 3, 4, 5, 6};
      writeDataset(alpha.get(), "kernel:0", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT,
                   {2, 3}, kernel);
      H5Lcreate_soft("/nowhere", root, "dangling", H5P_DEFAULT, H5P_DEFAULT);
      HDF5Handle ordered = makeGroup(root, "ordered", /*trackOrder=*/true);
      makeGroup(ordered.get(), "zeta");
      makeGroup(ordered.get(), "alpha");
      writeVlenString(ordered.get(), "z", "1");
      writeVlenString(ordered.get(), "a", "2");
    });
  }
};

TEST_F(HDF5FileTest, ObjectQueries) {
  auto file = HDF5File::open(makeModelFile());
  ASSERT_TRUE(succeeded(file));
  EXPECT_TRUE(file->exists(""));
  EXPECT_TRUE(file->exists("/"));
  EXPECT_TRUE(file->exists("model_weights"));
  EXPECT_TRUE(file->exists("/model_weights/alpha/kernel:0"));
  EXPECT_TRUE(file->exists("model_weights//alpha/"));
  EXPECT_FALSE(file->exists("missing"));
  EXPECT_FALSE(file->exists("missing/deeper/still"));
  EXPECT_FALSE(file->exists("model_weights/alpha/kernel:0/below_a_dataset"));
  EXPECT_FALSE(file->exists("dangling"));

  EXPECT_TRUE(file->isGroup("/"));
  EXPECT_TRUE(file->isGroup("model_weights/alpha"));
  EXPECT_FALSE(file->isGroup("model_weights/alpha/kernel:0"));
  EXPECT_TRUE(file->isDataset("model_weights/alpha/kernel:0"));
  EXPECT_FALSE(file->isDataset("model_weights"));
  EXPECT_FALSE(file->isDataset("missing/kernel"));
}

TEST_F(HDF5FileTest, Children) {
  auto file = HDF5File::open(makeModelFile());
  ASSERT_TRUE(succeeded(file));
  using Names = std::vector<std::string>;

  auto untracked = file->children("model_weights");
  ASSERT_TRUE(succeeded(untracked));
  EXPECT_EQ(*untracked, (Names{"alpha", "zeta"}));
  auto tracked = file->children("/ordered");
  ASSERT_TRUE(succeeded(tracked));
  EXPECT_EQ(*tracked, (Names{"zeta", "alpha"}));
  auto root = file->children("");
  ASSERT_TRUE(succeeded(root));
  EXPECT_EQ(*root, (Names{"dangling", "model_weights", "ordered"}));

  EXPECT_TRUE(failsWith(file->children("model_weights/alpha/kernel:0"),
                        "HDF5 object '/model_weights/alpha/kernel:0' is not a "
                        "group"));
  EXPECT_TRUE(failsWith(file->children("missing/group"),
                        "no HDF5 object '/missing/group'"));
}

TEST_F(HDF5FileTest, RootCreationOrder) {
  // h5py.File(..., track_order=True) sets creation order on the file.
  std::string path = pathOf("ordered.h5");
  {
    HDF5Handle properties(H5Pcreate(H5P_FILE_CREATE));
    unsigned flags = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;
    H5Pset_link_creation_order(properties.get(), flags);
    H5Pset_attr_creation_order(properties.get(), flags);
    HDF5Handle file(
        H5Fcreate(path.c_str(), H5F_ACC_TRUNC, properties.get(), H5P_DEFAULT));
    makeGroup(file.get(), "b");
    makeGroup(file.get(), "a");
    writeVlenString(file.get(), "y", "");
    writeVlenString(file.get(), "x", "");
  }
  auto file = HDF5File::open(path);
  ASSERT_TRUE(succeeded(file));
  auto children = file->children("/");
  ASSERT_TRUE(succeeded(children));
  EXPECT_EQ(*children, (std::vector<std::string>{"b", "a"}));
  auto attributes = file->attributeNames("/");
  ASSERT_TRUE(succeeded(attributes));
  EXPECT_EQ(*attributes, (std::vector<std::string>{"y", "x"}));
}

TEST_F(HDF5FileTest, AttributeNames) {
  auto file = HDF5File::open(makeModelFile());
  ASSERT_TRUE(succeeded(file));
  using Names = std::vector<std::string>;

  auto untracked = file->attributeNames("model_weights");
  ASSERT_TRUE(succeeded(untracked));
  EXPECT_EQ(*untracked, (Names{"backend", "layer_names"}));
  auto tracked = file->attributeNames("ordered");
  ASSERT_TRUE(succeeded(tracked));
  EXPECT_EQ(*tracked, (Names{"z", "a"}));
  EXPECT_TRUE(failsWith(file->attributeNames("missing"), "no HDF5 object"));

  EXPECT_TRUE(file->hasAttribute("/", "keras_version"));
  EXPECT_TRUE(file->hasAttribute("model_weights", "layer_names"));
  EXPECT_FALSE(file->hasAttribute("model_weights", "missing"));
  EXPECT_FALSE(file->hasAttribute("missing/group", "layer_names"));
}

TEST_F(HDF5FileTest, StringAttributes) {
  std::string path = makeFile("strings.h5", [](hid_t root) {
    writeVlenString(root, "model_config", R"({"class_name": "Sequential"})");
    writeFixedString(root, "nullpad", std::string("keras\0\0\0", 8),
                     H5T_STR_NULLPAD);
    writeFixedString(root, "spacepad", "2.15.0   ", H5T_STR_SPACEPAD);
    writeFixedString(root, "nullterm", std::string("tf\0junk", 7),
                     H5T_STR_NULLTERM);
    writeVlenStringList(root, "one_element", {"only"});
    writeBytes(root, "uint8", std::string("{}\0\0", 4), H5T_NATIVE_UINT8);
    writeBytes(root, "int8", "caf\xc3\xa9", H5T_NATIVE_INT8);
    writeVlenStringList(root, "two", {"a", "b"});
    int number = 7;
    writeAttribute(root, "number", H5T_STD_I32LE, scalarSpace().get(), &number);
    HDF5Handle group = makeGroup(root, "group");
    writeFixedStringList(group.get(), "list", {"x"});
  });
  auto file = HDF5File::open(path);
  ASSERT_TRUE(succeeded(file));
  auto read = [&](const char *object, const char *name) {
    auto value = file->readStringAttribute(object, name);
    EXPECT_TRUE(succeeded(value)) << name;
    return value ? *value : "";
  };
  EXPECT_EQ(read("/", "model_config"), R"({"class_name": "Sequential"})");
  EXPECT_EQ(read("/", "nullpad"), "keras");
  EXPECT_EQ(read("/", "spacepad"), "2.15.0");
  EXPECT_EQ(read("/", "nullterm"), "tf");
  EXPECT_EQ(read("", "one_element"), "only");
  EXPECT_EQ(read("/", "uint8"), "{}");
  EXPECT_EQ(read("/", "int8"), "caf\xc3\xa9");
  EXPECT_EQ(read("group", "list"), "x");

  EXPECT_TRUE(failsWith(file->readStringAttribute("/", "number"),
                        "'" + path +
                            "': HDF5 attribute 'number' is not a string (it "
                            "is int32)"));
  EXPECT_TRUE(failsWith(file->readStringAttribute("/", "two"),
                        "HDF5 attribute 'two' holds 2 strings, not one"));
  EXPECT_TRUE(failsWith(file->readStringAttribute("group", "missing"),
                        "HDF5 object '/group' has no attribute 'missing'"));
  EXPECT_TRUE(failsWith(file->readStringAttribute("nowhere", "missing"),
                        "no HDF5 object '/nowhere'"));
}

TEST_F(HDF5FileTest, StringListAttributes) {
  std::string path = makeFile("lists.h5", [](hid_t root) {
    HDF5Handle dense = makeGroup(root, "dense");
    writeFixedStringList(dense.get(), "weight_names",
                         {"dense/kernel:0", "dense/bias:0"});
    HDF5Handle dropout = makeGroup(root, "dropout");
    writeEmptyList(dropout.get(), "weight_names");
    HDF5Handle nullSpace(H5Screate(H5S_NULL));
    writeAttribute(root, "null", H5T_IEEE_F64LE, nullSpace.get(), nullptr);
    writeVlenStringList(root, "vlen", {"x", "yz"});
    writeFixedStringList(root, "layer_names0", {"a", "bb"});
    writeFixedStringList(root, "layer_names1", {"ccc"});
    writeFixedStringList(root, "whole", {"w"});
    writeFixedStringList(root, "whole0", {"ignored"});
    writeVlenString(root, "scalar", "s");
    int ints[] = {1, 2};
    writeAttribute(root, "ints", H5T_STD_I32LE, arraySpace({2}).get(), ints);
    std::string grid = "abcd";
    writeAttribute(root, "grid", fixedStringType(1, H5T_STR_NULLPAD).get(),
                   arraySpace({2, 2}).get(), grid.data());
  });
  auto file = HDF5File::open(path);
  ASSERT_TRUE(succeeded(file));
  using Names = std::vector<std::string>;
  auto read = [&](const char *object, const char *name) {
    auto value = file->readStringListAttribute(object, name);
    EXPECT_TRUE(succeeded(value)) << name;
    return value ? *value : Names{"<error>"};
  };
  EXPECT_EQ(read("dense", "weight_names"),
            (Names{"dense/kernel:0", "dense/bias:0"}));
  EXPECT_EQ(read("dropout", "weight_names"), Names{});
  EXPECT_EQ(read("/", "null"), Names{});
  EXPECT_EQ(read("/", "vlen"), (Names{"x", "yz"}));
  EXPECT_EQ(read("/", "layer_names"), (Names{"a", "bb", "ccc"}));
  EXPECT_EQ(read("/", "whole"), Names{"w"});
  EXPECT_EQ(read("/", "scalar"), Names{"s"});

  EXPECT_TRUE(failsWith(file->readStringListAttribute("/", "ints"),
                        "HDF5 attribute 'ints' is not a list of strings (it is "
                        "int32)"));
  EXPECT_TRUE(failsWith(file->readStringListAttribute("/", "grid"),
                        "HDF5 attribute 'grid' is a 2-D array"));
  EXPECT_TRUE(failsWith(file->readStringListAttribute("dense", "missing"),
                        "'" + path +
                            "': HDF5 object '/dense' has no attribute "
                            "'missing'"));
}

TEST_F(HDF5FileTest, Datasets) {
  std::string path = makeFile("data.h5", [](hid_t root) {
    float f32[] = {1.5f, -2.f, 0.25f, 4.f, 5.f, 6.f};
    writeDataset(root, "f32", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {2, 3}, f32);
    double f64[] = {1.5, -2.25, 1e-3};
    writeDataset(root, "f64", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {3}, f64);
    uint16_t f16[] = {0x3c00, 0xc000, 0x3800}; // 1, -2, 0.5
    HDF5Handle half = float16Type();
    writeDataset(root, "f16", half.get(), half.get(), {3}, f16);
    int64_t i64[] = {-3, 0, 1000000};
    writeDataset(root, "i64", H5T_STD_I64LE, H5T_NATIVE_INT64, {3, 1}, i64);
    uint8_t u8[] = {0, 255};
    writeDataset(root, "u8", H5T_STD_U8LE, H5T_NATIVE_UINT8, {2}, u8);
    float scalar = 3.5f;
    writeDataset(root, "scalar", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {}, &scalar);
    writeDataset(root, "empty", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {0, 4},
                 nullptr);
    HDF5Handle text = fixedStringType(2, H5T_STR_NULLPAD);
    writeDataset(root, "text", text.get(), text.get(), {2}, "abcd");
    HDF5Handle pair(H5Tcreate(H5T_COMPOUND, 8));
    H5Tinsert(pair.get(), "a", 0, H5T_NATIVE_FLOAT);
    H5Tinsert(pair.get(), "b", 4, H5T_NATIVE_FLOAT);
    float pairData[] = {1, 2};
    writeDataset(root, "pair", pair.get(), pair.get(), {1}, pairData);
    makeGroup(root, "group");
  });
  auto file = HDF5File::open(path);
  ASSERT_TRUE(succeeded(file));
  using Shape = std::vector<int64_t>;
  using Data = std::vector<float>;

  auto f32 = file->readFloatDataset("f32");
  ASSERT_TRUE(succeeded(f32));
  EXPECT_EQ(f32->shape, (Shape{2, 3}));
  EXPECT_EQ(f32->data, (Data{1.5f, -2.f, 0.25f, 4.f, 5.f, 6.f}));
  EXPECT_EQ(f32->dtype, "float32");

  auto f64 = file->readFloatDataset("/f64");
  ASSERT_TRUE(succeeded(f64));
  EXPECT_EQ(f64->shape, Shape{3});
  EXPECT_EQ(f64->data, (Data{1.5f, -2.25f, 1e-3f}));
  EXPECT_EQ(f64->dtype, "float64");

  auto f16 = file->readFloatDataset("f16");
  ASSERT_TRUE(succeeded(f16));
  EXPECT_EQ(f16->data, (Data{1.f, -2.f, 0.5f}));
  EXPECT_EQ(f16->dtype, "float16");

  auto i64 = file->readFloatDataset("i64");
  ASSERT_TRUE(succeeded(i64));
  EXPECT_EQ(i64->shape, (Shape{3, 1}));
  EXPECT_EQ(i64->data, (Data{-3.f, 0.f, 1e6f}));
  EXPECT_EQ(i64->dtype, "int64");

  auto u8 = file->readFloatDataset("u8");
  ASSERT_TRUE(succeeded(u8));
  EXPECT_EQ(u8->data, (Data{0.f, 255.f}));
  EXPECT_EQ(u8->dtype, "uint8");

  auto scalar = file->readFloatDataset("scalar");
  ASSERT_TRUE(succeeded(scalar));
  EXPECT_EQ(scalar->shape, Shape{});
  EXPECT_EQ(scalar->data, Data{3.5f});

  auto empty = file->readFloatDataset("empty");
  ASSERT_TRUE(succeeded(empty));
  EXPECT_EQ(empty->shape, (Shape{0, 4}));
  EXPECT_TRUE(empty->data.empty());

  EXPECT_TRUE(failsWith(file->readFloatDataset("text"),
                        "'" + path +
                            "': HDF5 dataset '/text' has dtype string, not a "
                            "number"));
  EXPECT_TRUE(failsWith(file->readFloatDataset("pair"),
                        "has dtype compound, not a number"));
  EXPECT_TRUE(failsWith(file->readFloatDataset("group"),
                        "HDF5 object '/group' is not a dataset"));
  EXPECT_TRUE(failsWith(file->readFloatDataset("missing/kernel:0"),
                        "no HDF5 dataset '/missing/kernel:0'"));
}

TEST_F(HDF5FileTest, OpenErrors) {
  EXPECT_TRUE(failsWith(HDF5File::open(pathOf("missing.h5")),
                        "'" + pathOf("missing.h5") + "': no such file"));
  EXPECT_TRUE(failsWith(HDF5File::open(root), "is a directory"));
  std::string text = writeFile("text.h5", "this is not an HDF5 file");
  EXPECT_TRUE(failsWith(HDF5File::open(text),
                        "'" + text + "': cannot open as an HDF5 file"));
  EXPECT_TRUE(failsWith(HDF5File::open(writeFile("empty.h5", "")),
                        "cannot open as an HDF5 file"));
}

TEST_F(HDF5FileTest, TruncatedFile) {
  std::string path = makeFile("whole.h5", [](hid_t root) {
    std::vector<float> values(4096, 1.f);
    writeDataset(root, "values", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT,
                 {values.size()}, values.data());
    writeVlenString(root, "model_config", "{}");
  });
  auto whole = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(whole);
  llvm::StringRef bytes = (*whole)->getBuffer();
  for (size_t keep :
       {bytes.size() - 1, bytes.size() / 2, size_t(100), size_t(8)}) {
    std::string cut = writeFile("cut.h5", bytes.take_front(keep));
    EXPECT_TRUE(failsWith(HDF5File::open(cut), "cannot open as an HDF5 file"))
        << "kept " << keep << " of " << bytes.size() << " bytes";
  }
}

TEST_F(HDF5FileTest, OpenImage) {
  std::string path = makeFile("image.h5", [](hid_t root) {
    writeVlenString(root, "keras_version", "3.1.0");
    double values[] = {0.5, 2};
    writeDataset(root, "w", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {2}, values);
  });
  auto bytes = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bytes);
  llvm::StringRef image = (*bytes)->getBuffer();
  std::vector<char> copy(image.begin(), image.end());

  auto opened = HDF5File::openImage(copy, "m.keras:model.weights.h5");
  ASSERT_TRUE(succeeded(opened));
  // The file keeps its own copy of the image, and survives a move.
  copy.assign(copy.size(), '\0');
  HDF5File file = std::move(*opened);
  EXPECT_EQ(file.path(), "m.keras:model.weights.h5");
  auto version = file.readStringAttribute("/", "keras_version");
  ASSERT_TRUE(succeeded(version));
  EXPECT_EQ(*version, "3.1.0");
  auto w = file.readFloatDataset("w");
  ASSERT_TRUE(succeeded(w));
  EXPECT_EQ(w->data, (std::vector<float>{0.5f, 2.f}));
  EXPECT_TRUE(failsWith(file.readFloatDataset("v"),
                        "'m.keras:model.weights.h5': no HDF5 dataset '/v'"));

  std::string garbage = "not an HDF5 image";
  EXPECT_TRUE(failsWith(
      HDF5File::openImage(llvm::ArrayRef<char>(garbage.data(), garbage.size()),
                          "garbage"),
      "'garbage': cannot open as an HDF5 file"));
  EXPECT_TRUE(
      failsWith(HDF5File::openImage({}, "nothing"), "'nothing': is empty"));
}

//===----------------------------------------------------------------------===//
// Hostile files: nothing outside the file is read, nothing oversized is
// allocated, and a reader that crashes or hangs is one error.
//===----------------------------------------------------------------------===//

TEST_F(HDF5FileTest, RefusesExternalLinks) {
  std::string secret =
      makeFile("secret.h5", [](hid_t root) { makeGroup(root, "inside"); });
  std::string path = makeFile("elink.h5", [&](hid_t root) {
    HDF5Handle weights = makeGroup(root, "model_weights");
    H5Lcreate_external(secret.c_str(), "/inside", weights.get(), "dense",
                       H5P_DEFAULT, H5P_DEFAULT);
  });
  EXPECT_TRUE(failsWith(HDF5File::open(path),
                        "HDF5 link '/model_weights/dense' is an external link "
                        "to another file: seqc reads only objects inside the "
                        "model file"));
}

TEST_F(HDF5FileTest, RefusesExternalStorage) {
  // A weight whose bytes live in another file: /etc/passwd, say.
  std::string outside = writeFile("outside.bin", std::string(64, 'A'));
  std::string path = makeFile("external.h5", [&](hid_t root) {
    HDF5Handle properties(H5Pcreate(H5P_DATASET_CREATE));
    H5Pset_external(properties.get(), outside.c_str(), 0, 64);
    HDF5Handle space = arraySpace({16});
    HDF5Handle dataset(H5Dcreate2(root, "kernel:0", H5T_IEEE_F32LE,
                                  space.get(), H5P_DEFAULT, properties.get(),
                                  H5P_DEFAULT));
    ASSERT_TRUE(dataset.valid());
  });
  EXPECT_TRUE(failsWith(HDF5File::open(path),
                        "HDF5 dataset '/kernel:0' keeps its data in an "
                        "external file ('" + outside + "')"));
}

TEST_F(HDF5FileTest, RefusesVirtualDatasets) {
  std::string source = makeFile("source.h5", [](hid_t root) {
    float values[4] = {1, 2, 3, 4};
    writeDataset(root, "v", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {4}, values);
  });
  std::string path = makeFile("virtual.h5", [&](hid_t root) {
    HDF5Handle properties(H5Pcreate(H5P_DATASET_CREATE));
    HDF5Handle space = arraySpace({4});
    HDF5Handle sourceSpace = arraySpace({4});
    H5Pset_virtual(properties.get(), space.get(), source.c_str(), "/v",
                   sourceSpace.get());
    HDF5Handle dataset(H5Dcreate2(root, "kernel:0", H5T_IEEE_F32LE,
                                  space.get(), H5P_DEFAULT, properties.get(),
                                  H5P_DEFAULT));
    ASSERT_TRUE(dataset.valid());
  });
  EXPECT_TRUE(failsWith(HDF5File::open(path),
                        "HDF5 dataset '/kernel:0' is a virtual dataset"));
}

TEST_F(HDF5FileTest, RefusesDeclaredSizesTheFileCannotHold) {
  // A small chunked dataset declaring 10^6 x 10^6 floats (never written).
  std::string path = makeFile("huge.h5", [](hid_t root) {
    HDF5Handle properties(H5Pcreate(H5P_DATASET_CREATE));
    hsize_t chunk[2] = {16, 16};
    H5Pset_chunk(properties.get(), 2, chunk);
    HDF5Handle space = arraySpace({1000000, 1000000});
    HDF5Handle dataset(H5Dcreate2(root, "kernel:0", H5T_IEEE_F32LE,
                                  space.get(), H5P_DEFAULT, properties.get(),
                                  H5P_DEFAULT));
    ASSERT_TRUE(dataset.valid());
  });
  EXPECT_TRUE(failsWith(HDF5File::open(path),
                        "HDF5 dataset '/kernel:0' declares 4000000000000 bytes "
                        "of data, more than a file of this size can hold"));
}

TEST_F(HDF5FileTest, HardLinkCyclesEnd) {
  std::string path = makeFile("cycle.h5", [](hid_t root) {
    HDF5Handle a = makeGroup(root, "a");
    H5Lcreate_hard(root, "/a", a.get(), "again", H5P_DEFAULT, H5P_DEFAULT);
  });
  auto file = HDF5File::open(path);
  ASSERT_TRUE(succeeded(file));
  EXPECT_TRUE(file->isGroup("/a/again/again/again"));
}

TEST_F(HDF5FileTest, ReaderFailuresAreOneError) {
  std::string path = makeModelFile();
  // A child that allocates until its limit takes a second or two, longer on
  // a loaded machine: the short timeout is for the hang only.
  setenv("SEQC_READER_TIMEOUT", "60", 1);
  for (const char *fault : {"crash", "oom"}) {
    setenv("SEQC_INJECT_READER_FAULT", fault, 1);
    EXPECT_TRUE(failsWith(HDF5File::open(path),
                          "'" + path + "': the HDF5 library failed while "
                          "reading the file (the file is corrupt or hostile)"))
        << fault;
  }
  setenv("SEQC_READER_TIMEOUT", "2", 1);
  setenv("SEQC_INJECT_READER_FAULT", "hang", 1);
  EXPECT_TRUE(failsWith(HDF5File::open(path),
                        "the HDF5 library did not finish reading the file "
                        "within 2 s (the file is corrupt or hostile)"));
  unsetenv("SEQC_INJECT_READER_FAULT");
  unsetenv("SEQC_READER_TIMEOUT");
  auto again = HDF5File::open(path);
  EXPECT_TRUE(succeeded(again));
}

} // namespace
