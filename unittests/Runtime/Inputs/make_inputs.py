"""Regenerates the .npy fixtures of the Runtime unit tests: python3 make_inputs.py"""
import numpy as np

np.save("f32.npy", np.array([[1.5, -2.0, 3.25], [0.0, 1e-3, -7.0]], dtype=np.float32))
np.save("f64.npy", np.array([0.1, -2.5, 1e300], dtype=np.float64))
np.save("i64.npy", np.array([[0, 3], [9, 65535]], dtype=np.int64))
np.save("u8.npy", np.array([0, 7, 255], dtype=np.uint8))
np.save("scalar.npy", np.float32(4.5))
with open("v2.npy", "wb") as f:
    np.lib.format.write_array(f, np.arange(6, dtype=np.float32).reshape(3, 2), version=(2, 0))
np.save("fortran.npy", np.asfortranarray(np.ones((2, 3), dtype=np.float32)))
np.save("big_endian.npy", np.array([1, 2], dtype=">f4"))
np.save("complex.npy", np.array([1 + 2j], dtype=np.complex64))
np.save("big_int.npy", np.array([2**24 + 1], dtype=np.int64))
