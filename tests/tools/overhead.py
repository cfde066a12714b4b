#!/usr/bin/env python3
"""Summarize tests/bench/overhead.sh samples: loaded/unloaded ratio of means
with a percentile bootstrap 95% CI (10000 resamples, fixed seed) and a
two-sided Mann-Whitney p (normal approximation with tie correction).

    overhead.py FILE.json...      one Markdown row per file
"""
import json
import math
import random
import statistics
import sys


def mann_whitney_p(a, b):
    allv = sorted((v, g) for g, s in ((0, a), (1, b)) for v in s)
    ranks, i = {}, 0
    rank_of = [0.0] * len(allv)
    ties = 0.0
    while i < len(allv):
        j = i
        while j + 1 < len(allv) and allv[j + 1][0] == allv[i][0]:
            j += 1
        for k in range(i, j + 1):
            rank_of[k] = (i + j) / 2 + 1
        t = j - i + 1
        ties += t ** 3 - t
        i = j + 1
    r1 = sum(r for r, (_, g) in zip(rank_of, allv) if g == 0)
    n1, n2 = len(a), len(b)
    u = r1 - n1 * (n1 + 1) / 2
    n = n1 + n2
    sd = math.sqrt(n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))))
    if sd == 0:
        return 1.0
    z = (abs(u - n1 * n2 / 2) - 0.5) / sd
    return math.erfc(max(z, 0) / math.sqrt(2))


def main():
    print("| workload | runs | unloaded (median) | loaded (median) | loaded/unloaded | 95% CI | p |")
    print("|---|---|---|---|---|---|---|")
    for path in sys.argv[1:]:
        samples = json.load(open(path))
        a = [s["value"] for s in samples if s["state"] == "loaded"]
        b = [s["value"] for s in samples if s["state"] == "unloaded"]
        rng = random.Random(0xAB9A7B)
        boots = sorted(
            statistics.mean(rng.choices(a, k=len(a))) /
            statistics.mean(rng.choices(b, k=len(b))) for _ in range(10000))
        ratio = statistics.mean(a) / statistics.mean(b)
        name = path.rsplit("overhead-", 1)[-1].removesuffix(".json")
        print(f"| {name} | {len(a)}+{len(b)} | {statistics.median(b):.4g} | "
              f"{statistics.median(a):.4g} | {ratio:.3f} | "
              f"[{boots[249]:.3f}, {boots[9749]:.3f}] | {mann_whitney_p(a, b):.3f} |")


if __name__ == "__main__":
    main()
