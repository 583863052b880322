"""Write the NumPy fixtures of predictions_test.go with NumPy itself.

    /usr/bin/python3 scores/testdata/predictions/gen_npz.py

The files are committed; tests do not need Python. Values are short binary
fractions, so the tests can state them exactly, and each row of
probabilities sums to 1 exactly.
"""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(here, name)


# Binary, uncompressed: unicode IDs, integer labels, float32 logits.
np.savez(
    path("binary.npz"),
    sample_id=np.array(["u1", "u2", "ü3"]),
    label=np.array([1, 0, 1], dtype=np.int64),
    score=np.array([2.5, -1.0, 0.25], dtype=np.float32),
)

# Binary, compressed: bytes IDs, boolean labels, probabilities.
np.savez_compressed(
    path("binary_bool.npz"),
    score=np.array([0.75, 0.125]),
    label=np.array([True, False]),
    sample_id=np.array([b"a", b"b"]),
)

# Multi-class, compressed: integer IDs, class names as labels.
np.savez_compressed(
    path("multiclass.npz"),
    sample_id=np.array([10, 11, 12], dtype=np.int32),
    label=np.array(["cat", "dog", "bird"]),
    p_cat=np.array([0.5, 0.25, 0.0]),
    p_dog=np.array([0.25, 0.75, 0.5], dtype=np.float32),
    p_bird=np.array([0.25, 0.0, 0.5]),
)

# Multi-class with integer labels that name the classes p_0, p_1 and p_2.
np.savez(
    path("multiclass_int.npz"),
    sample_id=np.array(["x", "y"]),
    label=np.array([2, 0], dtype=np.uint8),
    p_0=np.array([0.5, 1.0]),
    p_1=np.array([0.0, 0.0]),
    p_2=np.array([0.5, 0.0]),
)
