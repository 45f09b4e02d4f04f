"""Per-pair Fellegi-Sunter EM in numpy: the peer of `go run ./bench/prl`.

usage: peer.py ORIGINAL MASKED QUANTILES ITERATIONS
Loads both CSV files, z-scores each column with the original's mean and sd (ddof=1), sets band thresholds at the exact
quantiles of |dz| over all pairs (the ceil(q*P)-th smallest, by np.partition), builds the
comparison vector of every pair (int8, pairs x attributes), and runs ITERATIONS EM steps
pair by pair with m, u floored at 1e-6 and the match proportion fixed at 1/n. Prints JSON.
"""
import json, sys, time, math
import numpy as np

def main():
    orig, masked, qs, iters = sys.argv[1], sys.argv[2], [float(x) for x in sys.argv[3].split(",")], int(sys.argv[4])
    t0 = time.perf_counter()
    o = np.loadtxt(orig, delimiter=",", skiprows=1, ndmin=2)
    m = np.loadtxt(masked, delimiter=",", skiprows=1, ndmin=2)
    zo = (o - o.mean(0)) / o.std(0, ddof=1)
    zm = (m - o.mean(0)) / o.std(0, ddof=1)  # the original's scale, as reid's PRL
    n, K = zo.shape
    P = zm.shape[0] * n
    L = len(qs) + 1
    G = np.empty((P, K), dtype=np.int8)
    cuts = []
    for k in range(K):
        d = np.abs(zm[:, k][:, None] - zo[:, k][None, :]).ravel()  # masked record major
        c = []
        for q in qs:
            kth = max(1, min(P, math.ceil(q * P))) - 1
            c.append(float(np.partition(d, kth)[kth]))
        cuts.append(c)
        lv = np.zeros(P, dtype=np.int8)
        for t in c:
            lv += (d > t)
        G[:, k] = lv
        del d
    t_compare = time.perf_counter() - t0
    # Start: m ∝ 2^(-3l), u = marginal level frequencies.
    mm = np.array([[2.0 ** (-3 * l) for l in range(L)] for _ in range(K)])
    mm /= mm.sum(1, keepdims=True)
    uu = np.array([np.bincount(G[:, k], minlength=L) for k in range(K)], dtype=float)
    uu /= uu.sum(1, keepdims=True)
    uu = floor(uu)
    p = 1.0 / n
    for _ in range(iters):
        lm = np.full(P, math.log(p))
        lu = np.full(P, math.log1p(-p))
        for k in range(K):
            lm += np.log(mm[k])[G[:, k]]
            lu += np.log(uu[k])[G[:, k]]
        g = 1.0 / (1.0 + np.exp(lu - lm))
        nm = np.array([np.bincount(G[:, k], weights=g, minlength=L) for k in range(K)])
        nu = np.array([np.bincount(G[:, k], weights=1 - g, minlength=L) for k in range(K)])
        mm = floor(nm / nm.sum(1, keepdims=True))
        uu = floor(nu / nu.sum(1, keepdims=True))
    total = time.perf_counter() - t0
    print(json.dumps({"seconds": total, "compare_seconds": t_compare, "pairs": P, "cuts": cuts,
                      "m": mm.tolist(), "u": uu.tolist()}))

def floor(x):
    low = x < 1e-6
    if low.any():
        x = np.where(low, 1e-6, x)
        x = x / x.sum(1, keepdims=True)
    return x

main()
