#!/usr/bin/env python3
"""Regenerates the inputs of the e2e --run tests:  python3 make_inputs.py

Tests never run Python; this script only writes the committed files, from the
fixtures in test/fixtures and with tf_keras (the Keras that wrote them) for
the expected outputs. Deterministic: rerunning gives identical bytes.

  seed_rows7.npy / .expected.npy   7 rows for seed_build.h5 (batching test)
  seed_t7.npy / .expected.npy      seed_build_dynamic.h5 input cut to 7 steps
  seed_rows.h5                     /x and /group/x = seed_build.input.npy,
                                   /x_f64 the same as float64 (dtype error)
  complex.npy                      a complex64 array (unsupported dtype)
  nan.npy, inf.npy                 [1, nan, 2] and [1, inf, -inf] (seq-allclose)
  embedding_ids_bad.npy            5 id rows for embedding_lstm.h5, row 4 has
                                   id 99 (outside the vocabulary of 10)
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["CUDA_VISIBLE_DEVICES"] = ""
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ["TF_DETERMINISTIC_OPS"] = "1"

import h5py  # noqa: E402
import numpy as np  # noqa: E402
import tf_keras as k2  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "fixtures")


def fixture(name):
    return os.path.join(FIXTURES, name)


def predict(model_file, x):
    model = k2.models.load_model(fixture(model_file), compile=False)
    return model.predict(x, verbose=0).astype(np.float32)


def main():
    rng = np.random.default_rng(20240607)

    seed = np.load(fixture("seed_build.input.npy"))
    rows7 = np.concatenate(
        [seed, rng.standard_normal((7 - len(seed),) + seed.shape[1:])]
    ).astype(np.float32)
    np.save(os.path.join(HERE, "seed_rows7.npy"), rows7)
    np.save(os.path.join(HERE, "seed_rows7.expected.npy"),
            predict("seed_build.h5", rows7))

    dynamic = np.load(fixture("seed_build_dynamic.input.npy"))
    t7 = np.ascontiguousarray(dynamic[:, :7, :])
    np.save(os.path.join(HERE, "seed_t7.npy"), t7)
    np.save(os.path.join(HERE, "seed_t7.expected.npy"),
            predict("seed_build_dynamic.h5", t7))

    with h5py.File(os.path.join(HERE, "seed_rows.h5"), "w") as f:
        f.create_dataset("x", data=seed, track_times=False)
        f.create_group("group").create_dataset("x", data=seed, track_times=False)
        f.create_dataset("x_f64", data=seed.astype(np.float64), track_times=False)

    np.save(os.path.join(HERE, "complex.npy"),
            np.array([[1 + 2j, 3 - 1j]], dtype=np.complex64))

    np.save(os.path.join(HERE, "nan.npy"), np.array([1, np.nan, 2], np.float32))
    np.save(os.path.join(HERE, "inf.npy"),
            np.array([1, np.inf, -np.inf], np.float32))

    ids = np.load(fixture("embedding_lstm.input.npy"))
    bad = np.concatenate([ids, ids[:1], ids[:1]]).astype(np.float32)
    bad[4, 2] = 99
    np.save(os.path.join(HERE, "embedding_ids_bad.npy"), bad)


if __name__ == "__main__":
    main()
