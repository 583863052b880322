"""Write the NumPy fixtures of rankings_numpy_test.go with NumPy and SciPy.

    /usr/bin/python3 evaluate/testdata/rankings/gen_numpy.py

The files are committed; tests do not need Python. Six samples, top 4 of
10 items. The targets hold an explicit zero (row 2, column 3; row 5,
column 2) and a repeated column (row 3, column 6), which save_npz keeps as
they are.
"""
import os

import numpy as np
import scipy.sparse as sp

here = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(here, name)


items = np.array(
    [
        [3, 1, 4, 0],
        [2, 5, 7, 9],
        [0, 6, 8, 2],
        [9, 8, 7, 6],
        [5, 4, 3, 2],
        [1, 2, 3, 4],
    ],
    dtype=np.int32,
)
scores = np.array(
    [
        [0.9, 0.8, 0.8, 0.1],  # a tie is fine
        [4, 3, 2, 1],
        [1, 0.5, 0.25, 0],
        [-1, -2, -3, -4],
        [0.5, 0.5, 0.5, 0.5],
        [3, 2, 1, 0],
    ],
    dtype=np.float32,
)
indptr = np.array([0, 2, 2, 5, 8, 9, 10])
indices = np.array([1, 4, 8, 2, 3, 6, 1, 6, 5, 2], dtype=np.int32)
data = np.array([1, 1, 1, 2, 0, 1, 1, 1, 1, 0], dtype=np.float32)
targets = sp.csr_matrix((data, indices, indptr), shape=(6, 10))
assert targets.nnz == 10  # explicit zeros and the repeat are kept

np.save(path("items.npy"), items)
np.save(path("items_i8.npy"), items.astype(np.int64))
np.save(path("scores.npy"), scores)
np.save(path("ids_str.npy"), np.array(["u0", "u1", "u2", "u3", "u4", "ü5"]))
np.save(path("ids_int.npy"), np.arange(100, 106, dtype=np.int64))
sp.save_npz(path("targets.npz"), targets)  # compressed
sp.save_npz(path("targets_stored.npz"), targets, compressed=False)
sp.save_npz(path("targets_csc.npz"), targets.tocsc())
sp.save_npz(path("targets_coo.npz"), targets.tocoo())
