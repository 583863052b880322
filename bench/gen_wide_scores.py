"""Per-user scores of many metrics, as a recommender evaluated with every
ranking metric at four cutoffs would log them: the values of
../shared/bench/gen_scores.py (uniform, with a realistic mix of exact 0 and
1 values), with up to 28 metric columns instead of 20.

  /usr/bin/python3 bench/gen_wide_scores.py OUT.csv N_UNITS N_METRICS [SEED=0]
"""
import sys
import numpy as np

out, n, m = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(int(sys.argv[4]) if len(sys.argv) > 4 else 0)
kinds = ("ndcg", "recall", "calibrated_recall", "precision", "hit_rate", "mrr", "map")
names = [f"{kind}@{k}" for kind in kinds for k in (10, 20, 50, 100)][:m]
if len(names) < m:
    sys.exit(f"at most {len(names)} metrics")
with open(out, "w") as f:
    f.write("sample_id," + ",".join(names) + "\n")
    for start in range(0, n, 100_000):
        stop = min(n, start + 100_000)
        v = rng.random((stop - start, m))
        v[v < 0.3] = 0.0
        v[v > 0.9] = 1.0
        ids = np.char.add("u", np.char.zfill(np.arange(start, stop).astype(str), 7))
        rows = [i + "," + ",".join(f"{x:.6g}" for x in r) for i, r in zip(ids, v)]
        f.write("\n".join(rows) + "\n")
print(f"wrote {out}: units={n} metrics={m}")
