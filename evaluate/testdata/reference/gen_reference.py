"""Write metrics.json.gz, the reference values of metrics_reference_test.go.

    /usr/bin/python3 evaluate/testdata/reference/gen_reference.py

Random rankings are scored here by a plain NumPy implementation of the
metric definitions (PRODUCT.md, "Metric definitions"), written without
looking at the Go code: each metric at each cutoff is computed straight from
its formula on a dense hit matrix. The Go test rebuilds the hit matrix from
the same predictions and targets and must agree to 1e-9. The fixture is
committed; tests do not need Python.

The rows cover what the metrics must get right:
  - rows without targets (R = 0), which get 0 and count in no mean;
  - target lists with repeated items, where R counts distinct items;
  - R from 1 to 40, so R < k, R = k and R > k all occur at every cutoff;
  - hits at every rank, in runs of adjacent ranks and alone;
  - rows with fewer predictions than the width, and a cutoff (30) past the
    width (20), where the missing ranks count as misses;
  - sample IDs repeated on several rows (draws), so n_units < n_scored_rows.
"""
import gzip
import json
import math
import os

import numpy as np

N_ROWS = 2000
WIDTH = 20
CUTOFFS = [1, 3, 5, 10, 20, 30]
N_ITEMS = 400
FAMILIES = ["ndcg", "recall", "calibrated_recall", "precision", "hit_rate", "mrr", "map"]

rng = np.random.default_rng(20261130)


def make_rows():
    rows = []
    for i in range(N_ROWS):
        # About one row in eight repeats the ID of an earlier row, as a
        # second evaluation draw of the same user would.
        if i > 0 and rng.random() < 0.125:
            sample_id = rows[int(rng.integers(0, i))]["sample_id"]
        else:
            sample_id = f"user-{i:05d}" if i % 7 else f"ü{i}-κ"
        if rng.random() < 0.08:
            targets = []
        else:
            n_targets = int(min(rng.geometric(1 / 8), 40))
            targets = [int(t) for t in rng.choice(N_ITEMS, n_targets, replace=False)]
            if rng.random() < 0.1:  # repeated items, as a sloppy input has
                targets += [targets[int(j)] for j in rng.integers(0, len(targets), 3)]
                rng.shuffle(targets)
        # Predictions: at each rank, a target item not yet predicted with a
        # row-specific probability, otherwise another item. Some rows are
        # shorter than the width.
        length = WIDTH if rng.random() < 0.9 else int(rng.integers(0, WIDTH))
        p_hit = rng.random() ** 2
        unused = list(dict.fromkeys(targets))
        rng.shuffle(unused)
        others = [int(x) for x in rng.permutation(N_ITEMS) if int(x) not in set(targets)]
        preds = []
        for _ in range(length):
            if unused and rng.random() < p_hit:
                preds.append(unused.pop())
            else:
                preds.append(others.pop())
        rows.append({"sample_id": sample_id, "predictions": preds, "targets": targets})
    return rows


def metric_values(rows):
    """Per-row values, shape (rows, keys), and the keys."""
    kmax = max(CUTOFFS)
    hits = np.zeros((len(rows), kmax), dtype=bool)  # ranks past a row's end stay False
    for r, row in enumerate(rows):
        t = set(row["targets"])
        for i, item in enumerate(row["predictions"]):
            hits[r, i] = item in t
    R = np.array([len(set(row["targets"])) for row in rows], dtype=np.float64)
    scored = R > 0
    Rsafe = np.where(scored, R, 1)

    keys, columns = [], []
    for family in FAMILIES:
        for k in CUTOFFS:
            h = hits[:, :k]
            ranks = np.arange(1, k + 1)
            hits_k = h.sum(axis=1).astype(np.float64)
            denom = np.minimum(k, Rsafe)
            if family == "ndcg":
                dcg = (h / np.log2(ranks + 1)).sum(axis=1)
                ideal = np.array([(1 / np.log2(np.arange(1, int(m) + 1) + 1)).sum() for m in denom])
                v = dcg / ideal
            elif family == "recall":
                v = hits_k / Rsafe
            elif family == "calibrated_recall":
                v = hits_k / denom
            elif family == "precision":
                v = hits_k / k
            elif family == "hit_rate":
                v = (hits_k > 0).astype(np.float64)
            elif family == "mrr":
                first = np.argmax(h, axis=1) + 1
                v = np.where(h.any(axis=1), 1 / first, 0.0)
            elif family == "map":
                prec_at = np.cumsum(h, axis=1) / ranks
                v = (prec_at * h).sum(axis=1) / denom
            keys.append(f"{family}@{k}")
            columns.append(np.where(scored, v, 0.0))
    return keys, np.stack(columns, axis=1), scored


def main():
    rows = make_rows()
    keys, values, scored = metric_values(rows)
    for row, v in zip(rows, values):
        row["values"] = [float(x) for x in v]
    means = {k: math.fsum(values[scored, j]) / int(scored.sum()) for j, k in enumerate(keys)}
    units = {row["sample_id"] for row, s in zip(rows, scored) if s}
    out = {
        "generator": "gen_reference.py, NumPy " + np.__version__,
        "width": WIDTH,
        "cutoffs": CUTOFFS,
        "keys": keys,
        "n_rows": len(rows),
        "n_scored_rows": int(scored.sum()),
        "n_units": len(units),
        "means": means,
        "rows": rows,
    }
    # Gzipped without a timestamp, so that a rerun writes the same bytes.
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "metrics.json.gz")
    text = json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n"
    with open(path, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0) as z:
        z.write(text.encode("utf-8"))
    print(f"wrote {path}: {len(rows)} rows, {int(scored.sum())} scored, {len(units)} units")


main()
