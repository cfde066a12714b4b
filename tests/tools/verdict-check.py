#!/usr/bin/python3
"""An independent simulation of the pool's verdict rates (#54).

    verdict-check.py [--fleets N] [--seed S] [--hosts K,...] [--tau T,...]

Draws fleets as userspace/bench/maths/verdict-sim.c does (host noise
log-uniform in 0.02-0.10, 4 to 8 lognormal runs per mode, tau in typical
host SEs of 0.0258), but with numpy's generator, and decides each finding
with pool-check.py's expected(): statsmodels' combine_effects and
multipletests and scipy's t, not pool.c.  Prints, per cell, the share of
fleets with no outlier and no effect where any host is flagged, where any
host is said to differ (Holm), and where the mean's interval excludes 1,
each with its binomial SE, to set beside tests/tools/verdict-table's rows
for the same cells: two implementations, two random streams.
"""
import argparse
import importlib.util
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("pool_check", os.path.join(HERE, "pool-check.py"))
pool_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pool_check)

REF_SE = math.sqrt(2 * 0.02 * 0.10 / 6)


def fleet(rng, k, tau):
    hosts = {}
    for i in range(k):
        theta = tau * rng.standard_normal()
        sd = 0.02 * (0.10 / 0.02) ** rng.random()
        nl, no = rng.integers(4, 9), rng.integers(4, 9)
        hosts["h%02d" % i] = (np.exp(theta + sd * rng.standard_normal(nl)),
                              np.exp(sd * rng.standard_normal(no)))
    return hosts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fleets", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=54)
    ap.add_argument("--hosts", default="5,8,10")
    ap.add_argument("--tau", default="0,2")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    print(f"# {a.fleets} fleets a cell, numpy seed {a.seed}; statsmodels/scipy decide")
    print("%-6s %-6s %-16s %-16s %-16s" % ("hosts", "tau", "any flag", "any differs", "mean excl. 1"))
    for k in (int(x) for x in a.hosts.split(",")):
        for t in (float(x) for x in a.tau.split(",")):
            flag = differ = mean = 0
            for _ in range(a.fleets):
                e = pool_check.expected(fleet(rng, k, t * REF_SE), "welch-floor")
                flag += any(e.get("outlier", []))
                differ += any(e["differs"])
                mean += e["lo"] > 0 or e["hi"] < 0
            n = a.fleets
            cell = lambda c: "%.4f ± %.4f" % (c / n, math.sqrt(max(c / n * (1 - c / n), 0.05 * 0.95) / n))
            print("%-6d %-6g %-16s %-16s %-16s" % (k, t, cell(flag), cell(differ), cell(mean)))
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
