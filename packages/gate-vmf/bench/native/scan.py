"""Native baseline with numpy (bench only, run by bench/native.ts with one BLAS thread): sgemv
(Float32 rows @ Float32 candidate) + a shifted log-sum-exp, per candidate, in thread CPU time.
usage: python scan.py rows.f32 queries.f32 n d queries kappa rounds  → one line per round: p50 ms, first score"""
import sys
import time

import numpy as np

rows_path, q_path, n, d, nq, kappa, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]), int(sys.argv[7])
X = np.fromfile(rows_path, dtype=np.float32).reshape(n, d)
Q = np.fromfile(q_path, dtype=np.float32).reshape(nq, d)
k = np.float32(kappa)


def score(q):
    c = X @ q
    m = c.max()
    return float(m + np.log(np.exp(k * (c - m)).sum(dtype=np.float64) / n) / kappa)


for q in Q[:3]:
    score(q)
for _ in range(rounds):
    ts = []
    first = 0.0
    for i, q in enumerate(Q):
        t = time.thread_time()
        s = score(q)
        ts.append((time.thread_time() - t) * 1e3)
        if i == 0:
            first = s
    ts.sort()
    print(f"{ts[len(ts) // 2]:.5f} {first:.9f}", flush=True)
