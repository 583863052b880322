"""The peer of bench/all's stats figure: what a Python user runs to get a
paired bootstrap interval of the mean difference from a CSV of left,right
columns, end to end: pandas reads the file, scipy.stats.bootstrap resamples
(paired, percentile, vectorised in batches of 20, as
../shared/bench/scipy_compare.py calls it).

    /usr/bin/python3 bench/scipy_bootstrap.py FILE [B]

Prints the interval and the seconds of each part.
"""

import sys
import time

import numpy as np
import pandas as pd
from scipy import stats

t0 = time.perf_counter()
frame = pd.read_csv(sys.argv[1])
left = frame["left"].to_numpy(np.float64)
right = frame["right"].to_numpy(np.float64)
B = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
t1 = time.perf_counter()
res = stats.bootstrap((left, right), lambda x, y, axis=-1: np.mean(x - y, axis=axis), paired=True,
                      vectorized=True, n_resamples=B, method="percentile", random_state=1, batch=20)
t2 = time.perf_counter()
ci = res.confidence_interval
print(f"n={len(left)} B={B} read={t1 - t0:.2f}s bootstrap={t2 - t1:.2f}s ci=({ci.low:.6f},{ci.high:.6f})")
