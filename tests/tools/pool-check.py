#!/usr/bin/python3
"""Check userspace/bench/maths/pool.c against statsmodels, fixture by fixture.

    pool-check.py [--test-pool PATH] [--tol T] [FIXTURE...]
    pool-check.py --expected SCALE FIXTURE


Runs test-pool on the fixtures (default: tests/host/fixtures/pool/*.txt)
and recomputes everything from the same runs with numpy, scipy and
statsmodels' combine_effects(method_re="dl", use_t=True), for every HKSJ
scale pool.c has.  Prints the largest absolute difference per quantity and
exits 1 if one exceeds --tol (default 1e-6).  With --expected, prints
statsmodels' numbers for FIXTURE under SCALE as one JSON object instead
(mu, lo, hi, the ratios, tau2, q, i2, pi_lo, pi_hi, sign test, and per host
name, y, v, df, weight and outlier), for the tests of 'abpath bench --pool'.

Debian's own python3-statsmodels, hence /usr/bin/python3 and not whatever
python3 comes first in PATH.  Where statsmodels and pool.c differ by
definition, like is compared with like:

 - statsmodels' DerSimonian-Laird tau^2 is (Q - (k-1)) / C, not truncated
   at 0 (0.13.5 as in Debian 12, and its main branch alike).  Below 0 its
   random-effects rows are not DL's; its fixed-effect rows are the
   random-effects ones at tau^2 = 0, and are what pool.c is compared with.
 - Its I^2 is 1 - (k-1)/Q, negative when Q < k-1, where pool.c's is 0.
 - Its "random effect wls" interval with use_t=True is HKSJ with q as is
   (pool.c's "hksj").  pool.c's "truncated" max(1, q) is the wider of that
   and the "random effect" interval with use_t=True; its "dl-floor" the
   wider of that and the "random effect" interval with use_t=False.
 - pool.c's "welch-floor" floors the HKSJ variance at (z/t)^2 times the
   variance of a weighted mean with weights 1 / (v_i' + tau^2), where
   v_i' = v_i (t(df_i)/z)^2 and tau^2 is the fit's (from v_i).  That
   variance is statsmodels' fixed-effect one for the variances
   v_i' + tau^2 (combine_effects on them), so statsmodels gives it, and
   the interval is the wider of HKSJ's and mu +- z * its square root.
   df_i, the Welch-Satterthwaite df of host i, is recomputed here.
 - The prediction interval and the leave-one-out intervals are not in
   statsmodels: they are checked by their formulas on statsmodels' fits
   (the leave-one-out ones at the Bonferroni level, pool.c's flag_outliers()
   says how), and the pool without each host is statsmodels' fit of the
   others.  The hosts' own p values are scipy's Welch t, and their Holm
   adjustment statsmodels' multipletests().
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys
import warnings

import numpy as np
from scipy import stats
from statsmodels.stats.meta_analysis import combine_effects
from statsmodels.stats.multitest import multipletests

# statsmodels takes square roots of its random-effects variances even when
# a negative tau^2 made them negative; those rows are not used (above).
warnings.filterwarnings("ignore", "invalid value encountered in sqrt", RuntimeWarning)

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
LEVEL = 0.95


def read_fixture(path):
    """{name: (legacy runs, optimized runs)} in file order."""
    hosts = {}
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            runs = {"legacy": [], "optimized": []}
            mode = None
            for w in words[1:]:
                if w in runs:
                    mode = w
                else:
                    runs[mode].append(float(w))
            hosts[words[0]] = (np.array(runs["legacy"]), np.array(runs["optimized"]))
    return hosts


def host_effect(legacy, optimized):
    """y, v and df of one host: the difference of the mean logs, its Welch
    SE^2 and Welch-Satterthwaite df."""
    ll, lo = np.log(legacy), np.log(optimized)
    y = ll.mean() - lo.mean()
    a, b = ll.var(ddof=1) / len(ll), lo.var(ddof=1) / len(lo)
    df = (a + b) ** 2 / (a ** 2 / (len(ll) - 1) + b ** 2 / (len(lo) - 1))
    return y, a + b, df


def wider(a, b):
    return (min(a[0], b[0]), max(a[1], b[1]))


def fit(y, v, df, scale):
    """statsmodels' fit of y, v: mu, tau^2, the interval and se of the mean."""
    res = combine_effects(y, v, method_re="dl", use_t=True, alpha=1 - LEVEL)
    k = len(y)
    # Below 0, tau^2 = 0: the fixed-effect rows are then the RE ones.
    fe = res.tau2 < 0
    mu = res.mean_effect_fe if fe else res.mean_effect_re
    ci_fe, ci_re, ci_fe_wls, ci_re_wls = res.conf_int(alpha=1 - LEVEL, use_t=True)
    ci_z = res.conf_int(alpha=1 - LEVEL, use_t=False)
    hksj = ci_fe_wls if fe else ci_re_wls
    var_hksj = res.var_hksj_fe if fe else res.var_hksj_re
    var_re = res.var_eff_w_fe if fe else res.var_eff_w_re
    t = stats.t.isf((1 - LEVEL) / 2, k - 1)
    z = stats.norm.isf((1 - LEVEL) / 2)
    if scale == "hksj":
        ci, var = hksj, var_hksj
    elif scale == "truncated":
        ci = wider(hksj, ci_fe if fe else ci_re)
        var = max(var_hksj, var_re)
    elif scale == "dl-floor":
        ci = wider(hksj, ci_z[0] if fe else ci_z[1])
        var = max(var_hksj, (z / t) ** 2 * var_re)
    elif scale == "welch-floor":
        v_t = v * (stats.t.isf((1 - LEVEL) / 2, df) / z) ** 2
        var_floor = combine_effects(y, v_t + max(res.tau2, 0), method_re="dl").var_eff_w_fe
        half = max(t * math.sqrt(var_hksj), z * math.sqrt(var_floor))
        ci = (mu - half, mu + half)
        var = max(var_hksj, (z / t) ** 2 * var_floor)
    else:
        raise ValueError(scale)
    # The interval is the t(k-1) one on the variance kept: one definition.
    assert abs((ci[1] - ci[0]) / 2 - t * math.sqrt(var)) < 1e-12, (ci, var)
    w = 1 / (v + max(res.tau2, 0))
    return {
        "res": res, "mu": mu, "tau2": max(res.tau2, 0), "ci": ci,
        "se": math.sqrt(var), "weights": w / w.sum(),
        # HKSJ's q: its variance over the plain random-effects one.
        "q_hksj": var_hksj / var_re,
    }


def expected(hosts, scale):
    names = list(hosts)
    yv = [host_effect(*hosts[n]) for n in names]
    y = np.array([a for a, _, _ in yv])
    v = np.array([b for _, b, _ in yv])
    df = np.array([c for _, _, c in yv])
    k = len(y)
    f = fit(y, v, df, scale)
    res = f["res"]
    e = {
        "y": y, "v": v, "df": df, "mu": f["mu"], "lo": f["ci"][0], "hi": f["ci"][1],
        "tau2": f["tau2"], "q": res.q, "se": f["se"], "weight": f["weights"],
        "i2": res.i2 if res.q >= k - 1 else None,
    }
    e["ratio"], e["ratio_lo"], e["ratio_hi"] = (math.exp(e[x]) for x in ("mu", "lo", "hi"))
    if k >= 3:
        half = stats.t.isf((1 - LEVEL) / 2, k - 2) * math.sqrt(f["tau2"] + f["se"] ** 2)
        e["pi_lo"], e["pi_hi"] = f["mu"] - half, f["mu"] + half
    # Each host's own Welch t test, and statsmodels' Holm over them.
    e["p"] = 2 * stats.t.sf(np.abs(y) / np.sqrt(v), df)
    reject, e["p_holm"], _, _ = multipletests(e["p"], alpha=1 - LEVEL, method="holm")
    e["differs"] = [bool(r) for r in reject]
    above, below = int((y > 0).sum()), int((y < 0).sum())
    e["sign_p"] = stats.binomtest(above, above + below, 0.5).pvalue if above + below else 1.0
    e["above"], e["below"] = above, below
    if k >= 3:
        # The pool of the others, each host left out: its mean and interval.
        e["without"] = []
        for i in range(k):
            keep = np.arange(k) != i
            g = fit(y[keep], v[keep], df[keep], scale)
            e["without"].append((g["mu"], g["ci"][0], g["ci"][1]))
    if k >= 4:
        # Bonferroni over the k hosts; the prediction from the others on
        # t(k-4) and max(1, q), the host's own error on t(df_i).
        a = (1 - LEVEL) / (2 * k)
        tk = stats.t.isf(a, max(k - 4, 1))
        lo, hi, out = [], [], []
        for i in range(k):
            keep = np.arange(k) != i
            g = fit(y[keep], v[keep], df[keep], scale)
            ti = stats.t.isf(a, df[i]) if df[i] > 0 else stats.norm.isf(a)
            half = math.sqrt(tk ** 2 * max(1, g["q_hksj"]) * (g["tau2"] + g["se"] ** 2)
                             + ti ** 2 * v[i])
            lo.append(g["mu"] - half)
            hi.append(g["mu"] + half)
            out.append(not lo[-1] <= y[i] <= hi[-1])
        e["loo_lo"], e["loo_hi"], e["outlier"] = lo, hi, out
    return e


def print_expected(fixture, scale):
    hosts = read_fixture(fixture)
    e = expected(hosts, scale)
    out = {k: (None if e.get(k) is None else float(e[k]))
           for k in ("mu", "lo", "hi", "ratio", "ratio_lo", "ratio_hi", "tau2", "q", "i2",
                     "se", "sign_p", "pi_lo", "pi_hi")}
    out["k"], out["above"], out["below"] = len(hosts), e["above"], e["below"]
    out["hosts"] = [{"name": n, "y": float(e["y"][i]), "v": float(e["v"][i]),
                     "df": float(e["df"][i]), "weight": float(e["weight"][i]),
                     "outlier": bool(e["outlier"][i]) if "outlier" in e else None,
                     "p_holm": float(e["p_holm"][i]), "differs": e["differs"][i],
                     "without": ([float(x) for x in e["without"][i]]
                                 if "without" in e else None)}
                    for i, n in enumerate(hosts)]
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--test-pool", default=os.path.join(TOP, "userspace", "bench", "test-pool"))
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--expected", metavar="SCALE")
    ap.add_argument("fixtures", nargs="*")
    a = ap.parse_args()
    if a.expected:
        if len(a.fixtures) != 1:
            ap.error("--expected takes one fixture")
        print_expected(a.fixtures[0], a.expected)
        return 0
    fixtures = a.fixtures or sorted(glob.glob(os.path.join(TOP, "tests", "host", "fixtures", "pool", "*.txt")))
    out = subprocess.run([a.test_pool] + fixtures, check=True, capture_output=True, text=True).stdout
    worst = {}
    failed = []

    def cmp(what, got, want, where):
        if want is None:
            return
        d = abs(got - want) if got is not None else math.inf
        if d > worst.get(what, (-1,))[0]:
            worst[what] = (d, where)
        if not d <= a.tol:
            failed.append(f"{where}: {what}: pool.c {got!r}, statsmodels {want!r}")

    for line in out.splitlines():
        c = json.loads(line)
        where = f"{os.path.basename(c['fixture'])} ({c['scale']})"
        e = expected(read_fixture(c["fixture"]), c["scale"])
        m = c["mean"]
        for what, got in (("mu", m["est"]), ("lo", m["lo"]), ("hi", m["hi"]),
                          ("ratio", m["ratio"]), ("ratio_lo", m["ratio_lo"]),
                          ("ratio_hi", m["ratio_hi"]), ("tau2", c["tau2"]), ("Q", c["q"]),
                          ("se", c["se"]), ("I2", c["i2"]), ("sign_p", c["sign_p"])):
            cmp(what, got, e[{"Q": "q", "I2": "i2", "mu": "mu"}.get(what, what)], where)
        if e["i2"] is None and c["i2"] != 0:
            failed.append(f"{where}: I2 {c['i2']} with Q < k-1, want 0")
        if (c["above"], c["below"]) != (e["above"], e["below"]):
            failed.append(f"{where}: sign counts {c['above']}/{c['below']}, want {e['above']}/{e['below']}")
        if "pi_lo" in e:
            cmp("pi_lo", c["predict"]["lo"], e["pi_lo"], where)
            cmp("pi_hi", c["predict"]["hi"], e["pi_hi"], where)
        for i, h in enumerate(c["hosts"]):
            cmp("y_i", h["y"], e["y"][i], where)
            cmp("v_i", h["v"], e["v"][i], where)
            cmp("df_i", h["df"], e["df"][i], where)
            cmp("weight_i", h["weight"], e["weight"][i], where)
            cmp("p_i", h["p"], e["p"][i], where)
            cmp("p_holm_i", h["p_holm"], e["p_holm"][i], where)
            if h["differs"] != e["differs"][i]:
                failed.append(f"{where}: {h['name']} differs {h['differs']}, want {e['differs'][i]}")
            if "without" in e:
                for j, key in enumerate(("without_est", "without_lo", "without_hi")):
                    cmp(key, h[key], e["without"][i][j], where)
            if "loo_lo" in e:
                cmp("loo_lo", h["loo_lo"], e["loo_lo"][i], where)
                cmp("loo_hi", h["loo_hi"], e["loo_hi"][i], where)
                if h["outlier"] != e["outlier"][i]:
                    failed.append(f"{where}: {h['name']} outlier {h['outlier']}, want {e['outlier'][i]}")
    print(f"pool.c against statsmodels, {len(out.splitlines())} fits, tolerance {a.tol:g}:")
    for what, (d, where) in worst.items():
        print(f"  {what:9} max |diff| {d:.3g}  ({where})")
    for f in failed:
        print("MISMATCH " + f)
    print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
