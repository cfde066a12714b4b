#!/usr/bin/python3
"""Check abpath bench --factorial's fit against statsmodels.

usage: factorial-check.py [--tol T] RESULT.json [RESULT.json ...]

For each result (abpath bench -j --factorial ...), fits the same model
with statsmodels' formula OLS on the runs the result counts (measured,
not invalid):

    log_y ~ C(block) + (P1 + P2 + ...)**ORDER

each path's column +1 in legacy and -1 in optimized, ORDER the result's
("order"), and compares every effect's coefficient, standard error, t,
p, 95% interval, Holm-adjusted p (multipletests over the effects) and
ratio (exp(2^order b)), the residual df and sigma, and each effect's
type III ANOVA F p-value (one column each, so F = t^2 and the p is the
t test's), to an absolute TOL (default 1e-9; t relative to it). Prints the largest
difference of each quantity; exits 1 if any is over TOL, 2 on bad input.
"""
import json
import math
import sys

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf
from statsmodels.stats.anova import anova_lm
from statsmodels.stats.multitest import multipletests


def fit(result):
    paths = result["factorial"]
    rows = []
    for s in result["samples"]:
        if s["warmup"] or s["invalid"] is not None or s["block"] is None:
            continue
        row = {"log_y": math.log(s["value"]), "block": s["block"]}
        for p, c in zip(paths, s["cell"]):
            row[p] = 1.0 if c == "L" else -1.0
        rows.append(row)
    df = pd.DataFrame(rows)
    order = result["order"]
    terms = "(" + " + ".join(paths) + ")" + ("**%d" % order if order > 1 else "")
    blocks = "C(block) + " if df["block"].nunique() > 1 else ""
    formula = "log_y ~ " + blocks + terms
    model = smf.ols(formula, data=df).fit()
    return formula, model


def check(path, tol, worst):
    with open(path) as f:
        r = json.load(f)
    if r.get("schema") != "abpath-bench/5":
        print("%s: not a factorial result (schema %r)" % (path, r.get("schema")))
        sys.exit(2)
    formula, m = fit(r)
    ci = m.conf_int(0.05)
    names = [e["effect"].replace(" × ", ":") for e in r["effects"]]
    holm = multipletests([m.pvalues[n] for n in names], method="holm")[1]
    anova = anova_lm(m, typ=3)
    diffs = {}

    def cmp(what, got, want):
        d = abs(got - want)
        diffs[what] = max(diffs.get(what, 0.0), d)

    cmp("residual_df", r["model"]["residual_df"], m.df_resid)
    cmp("sigma", r["model"]["sigma"], math.sqrt(m.scale))
    for e, n, ph in zip(r["effects"], names, holm):
        w = 2 ** e["order"]
        cmp("coef", e["coef"], m.params[n])
        cmp("se", e["se"], m.bse[n])
        # t grows as the noise shrinks (hundreds here): relative.
        cmp("t (relative)", e["t"] / m.tvalues[n], 1.0)
        cmp("p", e["p"], m.pvalues[n])
        cmp("p_holm", e["p_holm"], ph)
        cmp("ci95 (coef)", e["coef_ci95"][0], ci.loc[n, 0])
        cmp("ci95 (coef)", e["coef_ci95"][1], ci.loc[n, 1])
        cmp("ratio", e["ratio"], math.exp(w * m.params[n]))
        cmp("ci95 (ratio)", e["ci95"][0], math.exp(w * ci.loc[n, 0]))
        cmp("ci95 (ratio)", e["ci95"][1], math.exp(w * ci.loc[n, 1]))
        cmp("anova F p", e["p"], anova.loc[n, "PR(>F)"])
    print("%s: %s, %d runs, %d effects" % (path, formula, int(m.nobs), len(names)))
    for k, v in diffs.items():
        worst[k] = max(worst.get(k, 0.0), v)
        print("  %-14s max |abpath - statsmodels| %.3g%s" % (k, v, "" if v <= tol else "  <- over %g" % tol))
    return all(v <= tol for v in diffs.values())


def main(argv):
    tol = 1e-9
    if len(argv) > 2 and argv[1] == "--tol":
        tol = float(argv[2])
        argv = argv[2:]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    ok = True
    worst = {}
    for p in argv[1:]:
        ok &= check(p, tol, worst)
    print("over all %d results:" % (len(argv) - 1))
    for k, v in worst.items():
        print("  %-14s max %.3g" % (k, v))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
