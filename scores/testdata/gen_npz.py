"""Write the NumPy fixtures of npz_test.go with NumPy itself.

    /usr/bin/python3 scores/testdata/gen_npz.py

The files are committed; tests do not need Python. Values are short binary
fractions, so the tests can state them exactly.
"""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(here, name)


# Wide, uncompressed: unicode IDs, float64, float32 and int64 metrics.
np.savez(
    path("wide.npz"),
    sample_id=np.array(["u1", "u2", "ü3"]),
    **{
        "ndcg@10": np.array([0.5, 0.25, 0.0]),
        "recall@10": np.array([1.0, 0.5, 0.125], dtype=np.float32),
        "hits@10": np.array([3, 0, 1], dtype=np.int64),
    },
)

# Wide, compressed: integer IDs, a draw array, big-endian floats.
np.savez_compressed(
    path("wide_draw_compressed.npz"),
    sample_id=np.array([7, 7, 8], dtype=np.int64),
    draw=np.array([0, 1, 0], dtype=np.int16),
    **{"ndcg@10": np.array([0.5, 0.75, 1.0], dtype=">f8")},
)

# Long form: bytes IDs, unicode metric names, an unsigned draw.
np.savez_compressed(
    path("long.npz"),
    sample_id=np.array([b"u1", b"u1", b"u2"]),
    draw=np.array([0, 0, 3], dtype=np.uint8),
    metric=np.array(["ndcg@10", "recall@10", "ndcg@10"]),
    value=np.array([0.5, 1.0, 0.25]),
)

# Bad: IDs as Python objects, which np.save can only pickle.
np.savez(
    path("object_ids.npz"),
    sample_id=np.array(["u1", "u2"], dtype=object),
    **{"ndcg@10": np.array([0.5, 0.25])},
)

# Bad: a 2-D array of scores.
np.savez(
    path("matrix.npz"),
    sample_id=np.array(["u1", "u2"]),
    scores=np.array([[0.5, 0.25], [1.0, 0.0]]),
)

# Bad: arrays of different lengths.
np.savez(
    path("ragged.npz"),
    sample_id=np.array(["u1", "u2", "u3"]),
    **{"ndcg@10": np.array([0.5, 0.25])},
)

# Bad: positional arrays, named arr_0 and arr_1.
np.savez(path("positional.npz"), np.array(["u1"]), np.array([0.5]))
