//===- HDF5Handle.h - Owns one HDF5 identifier -------------------*- C++ -*-===//
//
// For the code that calls libhdf5 itself: the sandboxed reader, and tests
// that write HDF5 files.
//
//===----------------------------------------------------------------------===//

#ifndef SEQ_FRONTEND_KERAS_HDF5HANDLE_H
#define SEQ_FRONTEND_KERAS_HDF5HANDLE_H

#include <H5Ipublic.h>

#include <utility>

namespace seq::keras {

/// Owns one HDF5 identifier of any kind (file, group, attribute, type, ...).
class HDF5Handle {
public:
  HDF5Handle() = default;
  /// Takes ownership of `id`; a negative id (a failed HDF5 call) stays invalid.
  explicit HDF5Handle(hid_t id) : id(id) {}
  HDF5Handle(HDF5Handle &&other) noexcept
      : id(std::exchange(other.id, H5I_INVALID_HID)) {}
  HDF5Handle &operator=(HDF5Handle &&other) noexcept {
    std::swap(id, other.id);
    return *this;
  }
  HDF5Handle(const HDF5Handle &) = delete;
  HDF5Handle &operator=(const HDF5Handle &) = delete;
  // H5Idec_ref closes an identifier of any kind when its count reaches zero.
  ~HDF5Handle() {
    if (id >= 0)
      H5Idec_ref(id);
  }

  hid_t get() const { return id; }
  bool valid() const { return id >= 0; }

private:
  hid_t id = H5I_INVALID_HID;
};

} // namespace seq::keras

#endif // SEQ_FRONTEND_KERAS_HDF5HANDLE_H
