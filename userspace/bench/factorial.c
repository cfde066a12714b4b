// SPDX-License-Identifier: GPL-2.0
/*
 * abpath bench --factorial PATHS: every combination of the paths' modes,
 * 2^k cells, in r replicates, each replicate a block of the cells in a
 * random order (maths/factorial.c has the design and the fit).  The runs
 * are run.c's, one per cell; this file checks the command line, plans the
 * order, holds the module's other paths where they were, and reports the
 * fit as one tree for text and JSON.
 *
 * A path that cannot run legacy on this kernel (its site "unavailable")
 * is refused before any run: a factorial without it is a different
 * experiment, which the user should ask for by name.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "report.h"
#include "maths/factorial.h"
#include "maths/pool.h"
#include "../cli.h"
#include "../output.h"

_Static_assert(BENCH_FAC_MAX_K == FAC_MAX_K, "one cap for CLI and maths");

const char *bench_factorial_check(const struct bench_opts *o)
{
	if (o->nfrom || o->suite || o->pool || o->quick || o->out)
		return "--factorial runs a workload: not with --from, --pool "
		       "or --suite";
	if (o->path)
		return "--factorial names its paths: not with --path";
	if (o->adaptive)
		return "--factorial takes a number of replicates, not --runs "
		       "auto: its stopping rule is made for one path's two "
		       "modes, not for a family of effects";
	if (o->max_runs_given || o->precision_given)
		return "--max-runs and --precision go with --runs auto, not "
		       "with --factorial";
	if (o->export_csv)
		return "--factorial writes text, JSON (-j), --export-json, "
		       "--export-markdown and --plot: not --export-csv";
	return NULL;
}

int bench_factorial_paths(const struct cmd *c, struct bench_opts *o)
{
	struct ctl_paths all;
	const char *s = o->factorial, *comma;
	char name[CTL_NAME_MAX];
	int n = 0, ret, k;

	ctl_path_names(&all);
	if (!strcmp(s, "all")) {
		if (all.n > FAC_MAX_K)
			return cli_usage_error(c, "--factorial all: %d paths "
					       "make %d cells; at most %d (%d "
					       "paths): name them", all.n,
					       1 << (all.n < 20 ? all.n : 20),
					       FAC_MAX_CELLS, FAC_MAX_K);
		for (int i = 0; i < all.n; i++)
			ctl_copy(o->fac_path[n++], CTL_NAME_MAX, all.name[i]);
		s = "";
	}
	while (*s) {
		size_t len;

		comma = strchr(s, ',');
		len = comma ? (size_t)(comma - s) : strlen(s);
		if (!len || len >= sizeof(name))
			return cli_usage_error(c, "invalid --factorial '%s'; "
					       "expected paths separated by "
					       "commas, or all", o->factorial);
		memcpy(name, s, len);
		name[len] = '\0';
		if (!strcmp(name, "all"))
			return cli_usage_error(c, "--factorial: all stands "
					       "alone, not in a list");
		ret = cli_check_path(c, name);
		if (ret >= 0)
			return ret;
		for (int i = 0; i < n && i < FAC_MAX_K; i++)
			if (!strcmp(o->fac_path[i], name))
				return cli_usage_error(c, "--factorial: path "
						       "'%s' given twice",
						       name);
		if (n < FAC_MAX_K)
			ctl_copy(o->fac_path[n], CTL_NAME_MAX, name);
		n++;
		s += len + (comma ? 1 : 0);
		if (comma && !*s)
			return cli_usage_error(c, "invalid --factorial '%s'; "
					       "expected paths separated by "
					       "commas, or all", o->factorial);
	}
	if (n > FAC_MAX_K)
		return cli_usage_error(c, "--factorial: %d paths make %d "
				       "cells; at most %d (%d paths)", n,
				       1 << (n < 20 ? n : 20), FAC_MAX_CELLS,
				       FAC_MAX_K);
	if (n < 2)
		return cli_usage_error(c, "--factorial needs two paths or "
				       "more; for one, bench it with --path");
	k = n;
	o->fac_k = k;
	if (!o->order_given)
		o->fac_order = k < 2 ? k : 2;
	if (o->fac_order > k)
		return cli_usage_error(c, "--order %d: %d paths have "
				       "interactions up to order %d",
				       o->fac_order, k, k);
	if (!o->runs_given)
		o->runs = fac_default_reps(k);
	if (o->runs > FAC_MAX_REPS)
		return cli_usage_error(c, "--factorial: at most %d replicates "
				       "(--runs)", FAC_MAX_REPS);
	{
		/* The fit needs residual degrees of freedom. */
		unsigned e[FAC_MAX_EFFECTS];
		int params = o->runs + fac_effects(k, o->fac_order, e);

		if ((o->runs << k) - params < 2)
			return cli_usage_error(c, "--factorial: %d replicates "
					       "of %d cells leave the model "
					       "with %d degrees of freedom "
					       "for its error; give more "
					       "(--runs)", o->runs, 1 << k,
					       (o->runs << k) - params);
	}
	return -1;
}

/* "exit_reparent" or "exit_reparent × timer_fastpath". */
static const char *effect_name(const struct bench *b, unsigned mask,
			       char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int j = 0; j < b->paths.n && n < len; j++)
		if (mask & (1u << j))
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? " × " : "",
					      b->paths.name[j]);
	return buf;
}

/* "LOLO": each path's mode in the cell, in --factorial's order. */
static const char *cell_name(const struct bench *b, unsigned cell, char *buf)
{
	int j;

	for (j = 0; j < b->paths.n; j++)
		buf[j] = cell & (1u << j) ? 'L' : 'O';
	buf[j] = '\0';
	return buf;
}

/*
 * The numbers an effect's verdict quotes: its ratio and interval, its p
 * and Holm's, the margin's bounds, and the ratio and interval folded
 * above 1 (as they are when up, else inverted), each with the digits
 * that tell it from 1 and the margin's bounds.
 */
struct words {
	double m, bd[3];
	bool up;
	char f[96], p[32], ph[32], x[32], lo[32], hi[32], mlo[32], mhi[32];
};

static void effect_words(const struct bench *b, const struct fac_effect *e,
			 struct words *w)
{
	double m = b->o->seq.margin;

	*w = (struct words){ .m = m, .bd = { 1, 1 / (1 + m), 1 + m },
			     .up = e->ratio > 1 };
	report_fmt_ratio_ci_beside(w->f, sizeof(w->f), e->ratio, e->ratio_lo,
				   e->ratio_hi, w->bd, 3);
	st_fmt_p(w->p, sizeof(w->p), e->p);
	st_fmt_p(w->ph, sizeof(w->ph), e->p_holm);
	report_fmt_beside(w->x, sizeof(w->x),
			  w->up ? e->ratio : 1 / e->ratio, 3, w->bd, 1);
	report_fmt_beside(w->lo, sizeof(w->lo),
			  w->up ? e->ratio_lo : 1 / e->ratio_hi, 3, w->bd, 1);
	report_fmt_beside(w->hi, sizeof(w->hi),
			  w->up ? e->ratio_hi : 1 / e->ratio_lo, 3, w->bd, 1);
	out_fmt_sig(w->mlo, sizeof(w->mlo), w->bd[1], 4);
	out_fmt_sig(w->mhi, sizeof(w->mhi), w->bd[2], 4);
}

/*
 * An effect's verdict.  A main effect's, in the single bench's words: a
 * difference only when Holm's adjusted p is below 0.05 (the interval
 * then excludes 1), "equivalent" when the 95% interval lies inside the
 * margin.  An interaction's, the same tests in its own words: together
 * against the product of the paths' costs.
 */
static void effect_verdict(const struct bench *b, const struct fac_effect *e,
			   int family, char *buf, size_t len)
{
	bool main_effect = fac_order(e->mask) == 1;
	const char *what = main_effect ? "legacy/optimized" : "interaction";
	struct words w;

	effect_words(b, e, &w);
	if (e->p_holm < 0.05) {
		bool speed = report_speed_words(b->unit, b->lower_is_better);
		bool more = b->lower_is_better ? w.up : !w.up;

		if (main_effect)
			snprintf(buf, len, "legacy is %sx %s (95%% CI %s–%s), "
				 "Holm %s", w.x,
				 more ? (speed ? "slower" : "worse")
				      : (speed ? "faster" : "better"),
				 w.lo, w.hi, w.ph);
		else
			snprintf(buf, len, "together in legacy they cost %sx "
				 "%s than their separate costs multiplied "
				 "(95%% CI %s–%s), Holm %s", w.x,
				 more ? "more" : "less", w.lo, w.hi, w.ph);
	} else if (w.m > 0 && e->ratio_lo > w.bd[1] && e->ratio_hi < w.bd[2]) {
		snprintf(buf, len, "%s within ±%g%% (%s–%s): %s %s",
			 main_effect ? "equivalent" : "their costs multiply",
			 100 * w.m, w.mlo, w.mhi, what, w.f);
	} else if (e->p < 0.05) {
		snprintf(buf, len, "inconclusive: the interval excludes 1 (%s) "
			 "but not after Holm's adjustment over the %d effects "
			 "(%s); %s %s", w.p, family, w.ph, what, w.f);
	} else if (main_effect) {
		snprintf(buf, len, "no significant difference: "
			 "legacy/optimized %s, Holm %s", w.f, w.ph);
	} else {
		snprintf(buf, len, "no interaction shown: %s, Holm %s", w.f,
			 w.ph);
	}
}

/* The valid measured runs into the fit's arrays; how many. */
static size_t fit_runs(const struct bench *b, unsigned *cell, int *block,
		       double *y)
{
	size_t n = 0;

	for (int i = 0; i < b->done; i++) {
		const struct bench_sample *s = &b->s[i];

		if (!bench_counts(s) || s->block < 0)
			continue;
		cell[n] = s->cell;
		block[n] = s->block;
		y[n++] = s->value;
	}
	return n;
}

static const char *fit_error(int err)
{
	switch (err) {
	case -EDOM:
		return "a run measured 0 or less, and the model is on the logs";
	case -ERANGE:
		return "the valid runs cannot tell every effect from the "
		       "others and the blocks, or leave no degrees of freedom "
		       "for the error (too many invalid or missing runs)";
	default:
		return strerror(-err);
	}
}

/* A run's replicate (none for a warm-up) and cell, in "samples". */
static void place_cell(const struct bench *b, const struct bench_sample *s)
{
	char cell[FAC_MAX_K + 1];

	if (s->block >= 0)
		out_u64("block", (uint64_t)s->block + 1);
	else
		out_null("block");
	out_string("cell", cell_name(b, s->cell, cell));
}

static void emit(const struct bench *b, const struct fac_fit *f, int err)
{
	const struct bench_opts *o = b->o;
	char name[256], v[512];

	report_emit_command(b);
	report_emit_paths(b, "factorial");
	/* The module's other paths, each in the mode it was held in. */
	out_begin_object("held", OUT_PLAIN);
	for (int j = 0; j < b->others.n; j++)
		out_string(b->others.name[j],
			   bench_mode_name[b->others_mode[j]]);
	out_end();
	report_emit_metric(b);
	out_u64("cells", 1u << o->fac_k);
	out_u64("replicates", (uint64_t)o->runs);
	out_u64("warmup_per_mode", (uint64_t)o->warmup);
	out_u64("order", (uint64_t)o->fac_order);
	out_real("margin", o->seq.margin, SIG);
	out_bool("complete", !b->incomplete);
	out_string("schema", BENCH_SCHEMA_FACTORIAL);
	out_hint(OUT_HIDDEN);
	out_u64("seed", b->seed);
	out_hint(OUT_HIDDEN);
	out_jansson("provenance", b->provenance);
	out_hint(OUT_HIDDEN);

	/* Every run, its replicate and cell: the order the result records. */
	report_emit_samples(b, place_cell);

	out_begin_object("model", OUT_PLAIN);
	if (o->fac_order == 1)
		snprintf(v, sizeof(v), "log(%s) = block + main effects; "
			 "every interaction in the error", b->metric);
	else
		snprintf(v, sizeof(v), "log(%s) = block + main effects + "
			 "interactions up to order %d%s", b->metric,
			 o->fac_order, o->fac_order < o->fac_k ?
			 "; higher orders in the error" : "");
	out_string("formula", v);
	out_string("coding", "x = +1 legacy, -1 optimized; a main effect's "
		   "ratio exp(2b), an interaction's exp(4b)");
	out_hint(OUT_HIDDEN);
	if (err) {
		out_string("error", fit_error(err));
		out_end();
		return;
	}
	out_u64("runs", f->n);
	out_u64("blocks", (uint64_t)f->nblocks);
	out_u64("params", (uint64_t)f->params);
	out_real("residual_df", f->df, SIG);
	out_real("sigma", f->sigma, SIG);
	out_end();

	out_begin_array("effects");
	out_hint(OUT_ROWS);
	for (int e = 0; e < f->neffects; e++) {
		const struct fac_effect *x = &f->e[e];

		out_begin_object(NULL, OUT_PLAIN);
		out_string("effect", effect_name(b, x->mask, name,
						 sizeof(name)));
		out_u64("order", (uint64_t)fac_order(x->mask));
		out_real("ratio", x->ratio, SIG);
		out_range("ci95", x->ratio_lo, x->ratio_hi, SIG);
		out_real("p", x->p, 3);
		out_real("p_holm", x->p_holm, 3);
		out_real_hidden("coef", x->coef, SIG);
		out_real_hidden("se", x->se, SIG);
		out_real_hidden("t", x->t, SIG);
		out_range("coef_ci95", x->lo, x->hi, SIG);
		out_hint(OUT_HIDDEN);
		out_end();
	}
	out_end();

	/* Each path's verdict, then each two-way interaction's. */
	out_begin_object("verdicts", OUT_PLAIN);
	for (int e = 0; e < f->neffects; e++) {
		const struct fac_effect *x = &f->e[e];

		if (fac_order(x->mask) > 2)
			continue;
		effect_verdict(b, x, f->neffects, v, sizeof(v));
		out_string(effect_name(b, x->mask, name, sizeof(name)), v);
	}
	out_end();
}

/* The result's JSON for --export-json, as -j prints it. */
static int write_json(FILE *fp, const void *ctx)
{
	json_t *j = (json_t *)ctx;

	return json_dumpf(j, fp, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) < 0 ||
	       fputc('\n', fp) == EOF;
}

struct md_ctx {
	const struct bench *b;
	const struct fac_fit *f;
	int err;
};

/* A p in a table cell: "0.0496" or "<0.001". */
static const char *p_cell(char *buf, size_t len, double p)
{
	st_fmt_p(buf, len, p);
	return buf + (buf[1] == '=' ? 2 : 1);
}

static int write_markdown(FILE *fp, const void *ctx)
{
	const struct md_ctx *m = ctx;
	const struct bench *b = m->b;
	char name[256], v[512], r[32], lo[32], hi[32], p[32], ph[32];

	fputc('`', fp);
	md_cell(fp, b->workload_name);
	for (int i = 0; i < b->o->nargs; i++) {
		fputc(' ', fp);
		md_cell(fp, b->o->args[i]);
	}
	fprintf(fp, "`, factorial of %d paths, %d cells × %d replicates; %s "
		"(%s, %s is better)%s\n\n", b->paths.n, 1 << b->paths.n,
		b->o->runs, b->metric, b->unit,
		b->lower_is_better ? "lower" : "higher",
		b->incomplete ? "; incomplete: interrupted" : "");
	if (m->err) {
		fprintf(fp, "No fit: %s.\n", fit_error(m->err));
		return ferror(fp);
	}
	fprintf(fp, "| effect | legacy/optimized | 95%% CI | p | Holm p |\n"
		"|---|---:|---:|---:|---:|\n");
	for (int e = 0; e < m->f->neffects; e++) {
		const struct fac_effect *x = &m->f->e[e];

		fputs("| ", fp);
		md_cell(fp, effect_name(b, x->mask, name, sizeof(name)));
		fprintf(fp, " | %s | %s–%s | %s | %s |\n",
			out_fmt_sig(r, sizeof(r), x->ratio, 3),
			out_fmt_sig(lo, sizeof(lo), x->ratio_lo, 3),
			out_fmt_sig(hi, sizeof(hi), x->ratio_hi, 3),
			p_cell(p, sizeof(p), x->p),
			p_cell(ph, sizeof(ph), x->p_holm));
	}
	fprintf(fp, "\nModel: log(%s) = block + effects up to order %d, "
		"least squares, %g residual df; t intervals, Holm over the "
		"%d effects.\n\n", b->metric, m->f->order, m->f->df,
		m->f->neffects);
	for (int e = 0; e < m->f->neffects; e++) {
		const struct fac_effect *x = &m->f->e[e];

		if (fac_order(x->mask) > 2)
			continue;
		effect_verdict(b, x, m->f->neffects, v, sizeof(v));
		fputs("- ", fp);
		md_cell(fp, effect_name(b, x->mask, name, sizeof(name)));
		fputs(": ", fp);
		md_cell(fp, v);
		fputc('\n', fp);
	}
	if (b->provenance)
		fprintf(fp, "\nMeasured on %s.\n",
			bench_fmt_provenance(v, sizeof(v), b->provenance));
	return ferror(fp);
}

/* ---- the interaction plots: one per pair of paths ---------------------- */

struct plot_ctx {
	const struct bench *b;
	const struct fac_effect *e;	/* the pair's, or NULL: no fit */
	int i, j;			/* the pair's paths */
};

/* The geometric mean of the valid measured runs with path i in mi, j in mj. */
static double cell_gmean(const struct bench *b, int i, int mi, int j, int mj)
{
	double acc = 0;
	int n = 0;

	for (int r = 0; r < b->done; r++) {
		const struct bench_sample *s = &b->s[r];

		if (!bench_counts(s) || s->block < 0 || !(s->value > 0) ||
		    !!(s->cell & (1u << i)) != mi || !!(s->cell & (1u << j)) != mj)
			continue;
		acc += log(s->value);
		n++;
	}
	return n ? exp(acc / n) : NAN;
}

/*
 * x: path i optimized (0) or legacy (1); a line for each mode of path j
 * through the cells' geometric means, each run a point beside it.  Lines
 * that are parallel on the log scale are no interaction.
 */
static void plot_script(FILE *f, const void *ctx)
{
	const struct plot_ctx *p = ctx;
	const struct bench *b = p->b;
	const char *pi = b->paths.name[p->i], *pj = b->paths.name[p->j];
	char t[512], r[96];

	if (p->e)
		report_fmt_ratio_ci(r, sizeof(r), p->e->ratio, p->e->ratio_lo,
				    p->e->ratio_hi);
	snprintf(t, sizeof(t), "%s: %s × %s%s%s", b->workload_name, pi, pj,
		 p->e ? ", interaction " : "", p->e ? r : "");
	/* Path names have underscores, which are not subscripts. */
	fputs("set termoption noenhanced\nset title ", f);
	bench_gp_quote(f, t);
	fputs("\nset xlabel ", f);
	bench_gp_quote(f, pi);
	snprintf(t, sizeof(t), "%s (%s), geometric mean", b->metric, b->unit);
	fputs("\nset ylabel ", f);
	bench_gp_quote(f, t);
	fputs("\nset logscale y\nset xtics ('optimized' 0, 'legacy' 1)\n"
	      "set xrange [-0.3:1.3]\nset key top left\nset grid ytics\n"
	      "plot '-' using 1:2 with linespoints lw 2 pt 7 title ", f);
	snprintf(t, sizeof(t), "%s optimized", pj);
	bench_gp_quote(f, t);
	fputs(", '-' using 1:2 with linespoints lw 2 pt 5 title ", f);
	snprintf(t, sizeof(t), "%s legacy", pj);
	bench_gp_quote(f, t);
	fputs(", '-' using 1:2 with points pt 1 lc rgb 'gray50' title 'runs'\n",
	      f);
	for (int mj = 0; mj < 2; mj++) {
		for (int mi = 0; mi < 2; mi++) {
			double g = cell_gmean(b, p->i, mi, p->j, mj);

			if (isfinite(g))
				fprintf(f, "%d %.15g\n", mi, g);
		}
		fputs("e\n", f);
	}
	for (int r2 = 0; r2 < b->done; r2++) {
		const struct bench_sample *s = &b->s[r2];

		if (!bench_counts(s) || s->block < 0 || !(s->value > 0))
			continue;
		fprintf(f, "%.2f %.15g\n", (s->cell & (1u << p->i) ? 1 : 0) +
			(s->cell & (1u << p->j) ? 0.06 : -0.06), s->value);
	}
	fputs("e\n", f);
}

/* FILE-<path>-<path>.svg for FILE.svg. */
static int plot_all(const struct bench *b, const struct fac_fit *f, int err)
{
	const char *file = b->o->plot, *dot = strrchr(file, '.');
	char out[4096];
	int ret;

	for (int i = 0; i < b->paths.n; i++)
		for (int j = i + 1; j < b->paths.n; j++) {
			struct plot_ctx p = { b, NULL, i, j };

			for (int e = 0; !err && e < f->neffects; e++)
				if (f->e[e].mask == ((1u << i) | (1u << j)))
					p.e = &f->e[e];
			snprintf(out, sizeof(out), "%.*s-%s-%s%s",
				 (int)(dot - file), file, b->paths.name[i],
				 b->paths.name[j], dot);
			ret = bench_gnuplot(out, plot_script, &p);
			if (ret)
				return ret;
			fprintf(stderr, "abpath: bench: wrote %s\n", out);
		}
	return 0;
}

int bench_factorial_report(const struct bench *b)
{
	size_t cap = (size_t)b->done + 1, n;
	unsigned *cell = calloc(cap, sizeof(*cell));
	int *block = calloc(cap, sizeof(*block));
	double *y = calloc(cap, sizeof(*y));
	struct fac_fit *f = calloc(1, sizeof(*f));
	int err, ret = 0;
	json_t *j = NULL;

	if (!cell || !block || !y || !f) {
		abpath_error("out of memory");
		ret = 1;
		goto out;
	}
	n = fit_runs(b, cell, block, y);
	err = fac_fit(b->o->fac_k, b->o->fac_order, cell, block, b->o->runs,
		      y, n, 0.95, f);
	if (err == -ENOMEM) {
		abpath_error("out of memory");
		ret = 1;
		goto out;
	}
	if (b->o->export_json) {
		out_init(true);
		emit(b, f, err);
		j = out_take();
	}
	out_init(b->o->json);
	emit(b, f, err);
	if (out_flush(stdout)) {
		abpath_error("writing to standard output: %s", strerror(errno));
		ret = 1;
	}
	if (!ret && b->o->export_md) {
		struct md_ctx m = { b, f, err };

		ret = export_to(b->o->export_md, write_markdown, &m);
	}
	if (!ret && j)
		ret = export_to(b->o->export_json, write_json, j);
	if (!ret && b->o->plot)
		ret = plot_all(b, f, err);
	if (!ret && err && !b->incomplete) {
		abpath_error("no fit: %s", fit_error(err));
		ret = 1;
	}
out:
	json_decref(j);
	free(cell);
	free(block);
	free(y);
	free(f);
	return ret;
}

/*
 * The plan, and the module's other paths held where they are; 0, or 1
 * after the error.  Nothing has run yet.
 */
int bench_factorial_plan(struct bench *b)
{
	const struct bench_opts *o = b->o;
	struct ctl_paths all;
	char site[256], mode[CTL_NAME_MAX];
	struct st_rng rng;
	int err;

	for (int j = 0; j < b->paths.n; j++) {
		if (ctl_path_site(b->paths.name[j], site, sizeof(site)) ||
		    strncmp(site, "unavailable", 11))
			continue;
		abpath_error("--factorial: %s cannot run legacy on this kernel "
			     "(%s); nothing was run: leave it out of the list "
			     "for a factorial of the others",
			     b->paths.name[j], site);
		return 1;
	}
	ctl_path_names(&all);
	for (int i = 0; i < all.n; i++) {
		if (ctl_valid_path(&b->paths, all.name[i]))
			continue;
		err = ctl_path_mode(all.name[i], mode, sizeof(mode));
		if (err)
			return ctl_explain_set(all.name[i], NULL, err);
		ctl_copy(b->others.name[b->others.n], CTL_NAME_MAX,
			 all.name[i]);
		b->others_mode[b->others.n++] =
			strcmp(mode, "legacy") ? BENCH_OPTIMIZED : BENCH_LEGACY;
	}
	if (getrandom(&b->seed, sizeof(b->seed), 0) != sizeof(b->seed))
		b->seed = (unsigned long long)time(NULL) ^
			  ((unsigned long long)getpid() << 32);
	/* Held to 53 bits, so that JSON's doubles keep it whole. */
	b->seed &= (1ULL << 53) - 1;
	st_rng_seed(&rng, b->seed);
	b->plan = calloc((size_t)o->runs << o->fac_k, sizeof(*b->plan));
	if (!b->plan) {
		abpath_error("out of memory");
		return 1;
	}
	fac_design(o->fac_k, o->runs, &rng, b->plan);
	return 0;
}

/* ---- --from: a factorial's result read back ---------------------------- */

static int bad(const char *what, const char *why)
{
	abpath_error("%s: not an abpath factorial result: %s", what, why);
	return 1;
}

static int get_int(json_t *j, const char *key, int min, int max, int *val)
{
	json_t *v = json_object_get(j, key);

	if (!json_is_integer(v) || json_integer_value(v) < min ||
	    json_integer_value(v) > max)
		return -1;
	*val = (int)json_integer_value(v);
	return 0;
}

/* One run: 0, or -1 when it is not one this factorial could have made. */
static int load_run(const struct bench *b, json_t *js, int i,
		    struct bench_sample *s)
{
	const char *cell = json_string_value(json_object_get(js, "cell"));
	json_t *v = json_object_get(js, "value");
	int k = b->o->fac_k;

	if (!json_is_object(js) || !cell || strlen(cell) != (size_t)k ||
	    strspn(cell, "LO") != (size_t)k || !json_is_number(v))
		return -1;
	s->cell = 0;
	for (int j = 0; j < k; j++)
		s->cell |= cell[j] == 'L' ? 1u << j : 0;
	s->mode = s->cell ? BENCH_LEGACY : BENCH_OPTIMIZED;
	s->warmup = json_is_true(json_object_get(js, "warmup"));
	if (s->warmup) {
		s->block = -1;
	} else if (get_int(js, "block", 1, b->o->runs, &s->block)) {
		return -1;
	} else {
		s->block--;
	}
	bench_load_run(js, i, s);
	return 0;
}

/*
 * A factorial result into b and o (o's strings borrowed from j: keep it
 * alive): 0, or 1 after the error.  Only the runs and the design are
 * taken; the fit is computed again.
 */
static int load(json_t *j, const char *what, struct bench *b,
		struct bench_opts *o)
{
	json_t *samples = json_object_get(j, "samples");
	json_t *fac = json_object_get(j, "factorial"), *e;
	json_t *margin = json_object_get(j, "margin");
	const char *key;
	size_t i;
	int err;

	*b = (struct bench){ .o = o };
	o->factorial = "";
	o->workload = json_string_value(json_object_get(j, "workload"));
	if (!o->workload)
		return bad(what, "no \"workload\"");
	if (!json_is_array(fac) || json_array_size(fac) < 2 ||
	    json_array_size(fac) > FAC_MAX_K)
		return bad(what, "\"factorial\" is not a list of 2 to 4 paths");
	json_array_foreach(fac, i, e) {
		if (!json_is_string(e) || !*json_string_value(e) ||
		    strlen(json_string_value(e)) >= CTL_NAME_MAX)
			return bad(what, "\"factorial\" is not a list of names");
		for (size_t k = 0; k < i; k++)
			if (!strcmp(o->fac_path[k], json_string_value(e)))
				return bad(what, "a path in \"factorial\" twice");
		ctl_copy(o->fac_path[i], CTL_NAME_MAX, json_string_value(e));
		ctl_copy(b->paths.name[i], CTL_NAME_MAX, json_string_value(e));
	}
	o->fac_k = b->paths.n = (int)json_array_size(fac);
	if (get_int(j, "replicates", 1, FAC_MAX_REPS, &o->runs) ||
	    get_int(j, "warmup_per_mode", 0, 100000, &o->warmup) ||
	    get_int(j, "order", 1, o->fac_k, &o->fac_order))
		return bad(what, "no \"replicates\", \"warmup_per_mode\" or "
			   "\"order\" a factorial of its paths can have");
	if (!json_is_number(margin) || !(json_number_value(margin) >= 0 &&
					 json_number_value(margin) < 1))
		return bad(what, "no \"margin\" in [0, 1)");
	o->seq.margin = json_number_value(margin);
	if (!json_is_array(samples) || !json_array_size(samples) ||
	    json_array_size(samples) > (size_t)(o->runs << o->fac_k) +
	    2 * (size_t)o->warmup)
		return bad(what, "no \"samples\", or more than its design has");
	json_object_foreach(json_object_get(j, "held"), key, e) {
		const char *m = json_string_value(e);

		if (!m || !*key || strlen(key) >= CTL_NAME_MAX ||
		    b->others.n >= CTL_MAX_PATHS ||
		    (strcmp(m, "legacy") && strcmp(m, "optimized")))
			return bad(what, "\"held\" is not an object of paths' "
				   "modes");
		ctl_copy(b->others.name[b->others.n], CTL_NAME_MAX, key);
		b->others_mode[b->others.n++] = strcmp(m, "legacy") ?
						BENCH_OPTIMIZED : BENCH_LEGACY;
	}
	err = bench_load_common(j, b, o);
	if (err == -EINVAL)
		return bad(what, "\"args\" is not a list of strings");
	if (err)
		return 1;
	if (json_is_integer(json_object_get(j, "seed")))
		b->seed = (unsigned long long)json_integer_value(
				json_object_get(j, "seed"));
	b->incomplete = json_is_false(json_object_get(j, "complete"));
	b->total = 2 * o->warmup + (o->runs << o->fac_k);
	json_array_foreach(samples, i, e) {
		if (load_run(b, e, (int)i, &b->s[i]))
			return bad(what, "a run without a \"cell\" of L and O "
				   "for each path, a \"block\" within its "
				   "replicates, or a numeric \"value\"");
		b->done++;
	}
	return 0;
}

int bench_factorial_from(const struct bench_opts *o, json_t *j,
			 const char *what)
{
	if (o->export_csv) {
		abpath_error("%s is a factorial's result: --export-csv takes "
			     "one bench's", what);
		return 1;
	}
	return bench_from_one(o, j, what, load, bench_factorial_report);
}

/* ---- --pool: each effect pooled over hosts ------------------------------ */

struct fhost {
	char label[128];
	const char *what;
	json_t *j;
	struct bench_opts o;
	struct bench b;
	struct fac_fit f;
	bool loaded;
};

/* The host's name: LABEL of LABEL=FILE, else FILE without ".json". */
static const char *host_label(const char *arg, char *label, size_t len,
			      const char **file)
{
	const char *base;
	size_t n;

	if (bench_from_label(arg, file, label, len))
		return label;
	if (!strcmp(arg, "-")) {
		snprintf(label, len, "stdin");
		return label;
	}
	base = strrchr(arg, '/');
	base = base ? base + 1 : arg;
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".json"))
		n -= 5;
	snprintf(label, len, "%.*s", (int)n, base);
	return label;
}

/* A host's result loaded and fitted: 0, or 1 after the error. */
static int pool_load(struct fhost *h)
{
	const char *schema = json_string_value(json_object_get(h->j, "schema"));
	size_t cap;
	unsigned *cell;
	int *block, err;
	double *y;

	if (!schema || strcmp(schema, BENCH_SCHEMA_FACTORIAL)) {
		abpath_error("%s is not a factorial's result (schema %s): "
			     "--pool pools one kind of result", h->what,
			     schema ? schema : "abpath-bench/1");
		return 1;
	}
	if (load(h->j, h->what, &h->b, &h->o))
		return 1;
	h->loaded = true;
	cap = (size_t)h->b.done + 1;
	cell = calloc(cap, sizeof(*cell));
	block = calloc(cap, sizeof(*block));
	y = calloc(cap, sizeof(*y));
	err = cell && block && y ? 0 : -ENOMEM;
	if (!err) {
		size_t n = fit_runs(&h->b, cell, block, y);

		err = fac_fit(h->o.fac_k, h->o.fac_order, cell, block,
			      h->o.runs, y, n, 0.95, &h->f);
	}
	free(cell);
	free(block);
	free(y);
	if (err) {
		abpath_error("%s: no fit: %s", h->what, fit_error(err));
		return 1;
	}
	return 0;
}

/* Two hosts' results must be one factorial's: 0, or 1 after the error. */
static int pool_same(const struct fhost *a, const struct fhost *h)
{
	const char *why = NULL;

	if (a->o.fac_k != h->o.fac_k)
		why = "the number of paths";
	for (int j = 0; !why && j < a->o.fac_k; j++)
		if (strcmp(a->b.paths.name[j], h->b.paths.name[j]))
			why = "the paths (or their order)";
	if (!why && a->o.fac_order != h->o.fac_order)
		why = "the model's order";
	if (!why && (strcmp(a->b.workload_name, h->b.workload_name) ||
		     strcmp(a->b.metric, h->b.metric) ||
		     strcmp(a->b.unit, h->b.unit) ||
		     a->b.lower_is_better != h->b.lower_is_better))
		why = "the workload or its metric";
	if (why) {
		abpath_error("%s and %s are not one factorial's results: %s "
			     "differ; --pool pools one bench over hosts",
			     a->what, h->what, why);
		return 1;
	}
	if (a->b.seed && a->b.seed == h->b.seed) {
		abpath_error("%s and %s are one run twice (the same random "
			     "order's seed): --pool needs one result per host",
			     a->what, h->what);
		return 1;
	}
	return 0;
}

/* Over the hosts: "legacy is 1.9x slower (95% CI ...)" or inconclusive. */
static void pool_verdict(const struct fhost *H, const struct fac_effect *e0,
			 const struct pool_result *r, char *buf, size_t len)
{
	const struct bench *b = &H[0].b;
	const struct pool_interval *m = &r->mean;
	bool speed = report_speed_words(b->unit, b->lower_is_better);
	bool pair = fac_order(e0->mask) == 2, up = m->ratio > 1;
	char f[96], x[32], lo[32], hi[32];
	const double one = 1;

	if (!(m->ratio_lo > 1 || m->ratio_hi < 1)) {
		report_fmt_ratio_ci(f, sizeof(f), m->ratio, m->ratio_lo,
				    m->ratio_hi);
		snprintf(buf, len, "inconclusive over the %zu hosts: %s %s",
			 r->k, pair ? "interaction" : "legacy/optimized", f);
		return;
	}
	report_fmt_beside(x, sizeof(x), up ? m->ratio : 1 / m->ratio, 3,
			  &one, 1);
	report_fmt_beside(lo, sizeof(lo), up ? m->ratio_lo : 1 / m->ratio_hi,
			  3, &one, 1);
	report_fmt_beside(hi, sizeof(hi), up ? m->ratio_hi : 1 / m->ratio_lo,
			  3, &one, 1);
	if (pair)
		snprintf(buf, len, "over the %zu hosts, together in legacy "
			 "they cost %sx %s than their separate costs "
			 "multiplied (95%% CI %s–%s)", r->k, x,
			 (b->lower_is_better ? up : !up) ? "more" : "less",
			 lo, hi);
	else
		snprintf(buf, len, "over the %zu hosts, legacy is %sx %s "
			 "(95%% CI %s–%s)", r->k, x,
			 (b->lower_is_better ? up : !up) ?
			 (speed ? "slower" : "worse") :
			 (speed ? "faster" : "better"), lo, hi);
}

static void pool_emit(const struct fhost *H, int k,
		      const struct pool_result *R)
{
	const struct bench *b = &H[0].b;
	const struct fac_fit *f0 = &H[0].f;
	char name[256], v[512];

	out_string("workload", b->workload_name);
	report_emit_paths(b, "factorial");
	report_emit_metric(b);
	out_u64("order", (uint64_t)H[0].o.fac_order);
	out_string("method", "per effect: random effects over hosts, "
		   "DerSimonian-Laird tau^2, HKSJ t(k-1) interval with the "
		   "hosts' own t intervals as its floor; not adjusted over "
		   "the effects");
	out_string("schema", "abpath-pool-factorial/1");
	out_hint(OUT_HIDDEN);
	out_begin_array("hosts");
	out_hint(OUT_ROWS);
	for (int i = 0; i < k; i++) {
		out_begin_object(NULL, OUT_PLAIN);
		out_string("host", H[i].label);
		out_u64("runs", H[i].f.n);
		out_real("residual_df", H[i].f.df, SIG);
		out_real("sigma", H[i].f.sigma, SIG);
		out_string("kernel", json_string_value(json_object_get(
				H[i].b.provenance, "kernel")));
		out_end();
	}
	out_end();
	out_begin_array("effects");
	out_hint(OUT_ROWS);
	for (int e = 0; e < f0->neffects; e++) {
		const struct pool_result *r = &R[e];

		out_begin_object(NULL, OUT_PLAIN);
		out_string("effect", effect_name(b, f0->e[e].mask, name,
						 sizeof(name)));
		out_real("ratio", r->mean.ratio, SIG);
		out_range("ci95", r->mean.ratio_lo, r->mean.ratio_hi, SIG);
		out_real("tau", r->tau, 3);
		out_real("i2", r->i2, 3);
		out_u64("hosts_differ", r->differ_above + r->differ_below);
		out_begin_array("host_ratios");
		for (int i = 0; i < k; i++)
			out_real(NULL, H[i].f.e[e].ratio, SIG);
		out_end();
		out_hint(OUT_HIDDEN);
		out_end();
	}
	out_end();
	out_begin_object("verdicts", OUT_PLAIN);
	for (int e = 0; e < f0->neffects; e++) {
		if (fac_order(f0->e[e].mask) > 2)
			continue;
		pool_verdict(H, &f0->e[e], &R[e], v, sizeof(v));
		out_string(effect_name(b, f0->e[e].mask, name, sizeof(name)), v);
	}
	out_end();
}

int bench_factorial_pool(const struct bench_opts *o, struct json_t *first,
			 const char *what)
{
	int k = o->nfrom, ret = 0;
	struct fhost *H = calloc((size_t)k, sizeof(*H));
	struct pool_result *R = calloc(FAC_MAX_EFFECTS, sizeof(*R));
	struct pool_host *ph = calloc((size_t)k, sizeof(*ph));
	const char *file;

	if (!H || !R || !ph) {
		abpath_error("out of memory");
		ret = 1;
		goto out;
	}
	if (o->plot || o->export_csv || o->export_json) {
		abpath_error("--pool writes text, JSON (-j) or Markdown "
			     "(--export-markdown): not --plot, --export-csv or "
			     "--export-json");
		ret = 1;
		goto out;
	}
	for (int i = 0; !ret && i < k; i++) {
		host_label(o->from[i], H[i].label, sizeof(H[i].label), &file);
		if (i) {
			H[i].j = bench_from_file(file, &H[i].what);
		} else {
			H[i].j = json_incref(first);
			H[i].what = what;
		}
		ret = !H[i].j || pool_load(&H[i]) ||
		      (i && pool_same(&H[0], &H[i]));
		for (int m = 0; !ret && m < i; m++)
			if (m && H[m].b.seed && H[m].b.seed == H[i].b.seed)
				ret = pool_same(&H[m], &H[i]);
	}
	for (int e = 0; !ret && e < H[0].f.neffects; e++) {
		double w = (double)(1u << fac_order(H[0].f.e[e].mask));
		int err;

		for (int i = 0; i < k; i++)
			ph[i] = (struct pool_host){
				.y = w * H[i].f.e[e].coef,
				.v = w * w * H[i].f.e[e].se * H[i].f.e[e].se,
				.df = H[i].f.df,
			};
		err = pool_combine(ph, (size_t)k, 0.95, POOL_SCALE_DEFAULT,
				   &R[e]);
		if (err) {
			abpath_error("pooling: %s", strerror(-err));
			ret = 1;
		}
	}
	if (!ret) {
		out_init(o->json);
		pool_emit(H, k, R);
		if (out_flush(stdout)) {
			abpath_error("writing to standard output: %s",
				     strerror(errno));
			ret = 1;
		}
	}
out:
	for (int i = 0; H && i < k; i++) {
		if (H[i].loaded || H[i].b.s)
			bench_free(&H[i].b);
		free(H[i].o.args);
		json_decref(H[i].j);
	}
	free(H);
	free(R);
	free(ph);
	return ret;
}
