"""The peer of bench/classify: a stratified paired bootstrap of a classifier
metric written the usual way, a NumPy loop that resamples indices within
each class and calls scikit-learn's metric for both models on every
replicate.

    /usr/bin/python3 bench/classify_peer.py FILE METRIC B [SEED]

FILE is a CSV of label,left,right with a header; METRIC is auc, ap or
logloss. B replicates are run and timed; the script prints one line of
key=value pairs: the seconds to load the file, the seconds per replicate,
the metric of each model, and the difference's interval, standard error and
p-value over those B replicates, computed as verdict computes them.
bench/classify runs it at a small B and scales the time per replicate to
verdict's B.
"""

import sys
import time

import numpy as np
import pandas as pd
from sklearn.metrics import average_precision_score, log_loss, roc_auc_score

METRICS = {
    "auc": roc_auc_score,
    "ap": average_precision_score,
    "logloss": lambda y, p: log_loss(y, p, labels=[0, 1]),
}


def main():
    path, metric, B = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    score = METRICS[metric]

    start = time.perf_counter()
    frame = pd.read_csv(path)
    y = frame["label"].to_numpy(np.int8)
    left = frame["left"].to_numpy(np.float64)
    right = frame["right"].to_numpy(np.float64)
    load = time.perf_counter() - start

    pos = np.flatnonzero(y == 1)
    neg = np.flatnonzero(y == 0)
    rng = np.random.default_rng(seed)
    d = np.empty(B)
    start = time.perf_counter()
    for b in range(B):
        idx = np.concatenate((pos[rng.integers(0, len(pos), len(pos))], neg[rng.integers(0, len(neg), len(neg))]))
        yb = y[idx]
        d[b] = score(yb, left[idx]) - score(yb, right[idx])
    per = (time.perf_counter() - start) / B

    lo, hi = np.percentile(d, [2.5, 97.5])
    p = min(1.0, 2 * (1 + min(np.sum(d <= 0), np.sum(d >= 0))) / (B + 1))
    print(
        f"load={load:.3f}s per_replicate={per:.4f}s left={score(y, left):.6f} right={score(y, right):.6f} "
        f"ci=({lo:.6f},{hi:.6f}) se={d.std(ddof=1):.6f} p={p:.4f} B={B}"
    )


if __name__ == "__main__":
    main()
