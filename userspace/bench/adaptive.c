// SPDX-License-Identifier: GPL-2.0
/*
 * abpath bench --runs auto: the stopping rule (sequential.h) over a
 * bench's runs.  The looks are derived from the samples alone, in the
 * order they ran, by one function for the bench that is running (run.c
 * asks after each run whether to stop) and for the report, so that
 * --from derives the same looks and the same verdict from a saved
 * result: the file keeps the rule's parameters and every look, but only
 * the runs are trusted.
 *
 * A look comes after every ABBA block (4 measured runs, 2 per mode) from
 * the rule's first look on, and at the cap.  An invalid run is in its
 * block, so it neither adds a look nor removes one; it is only left out
 * of the runs the look sees.  A bench interrupted inside a block keeps
 * the looks before it, and the last one's interval, whose level holds at
 * any stop, is the headline.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "digits.h"
#include "internal.h"
#include "../output.h"

void bench_looks_free(struct bench_looks *L)
{
	free(L->look);
	L->look = NULL;
	L->n = 0;
}

int bench_looks(const struct bench *b, struct bench_looks *L)
{
	const struct seq_rule *r = &b->o->seq;
	double *v[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 };
	int measured = 0, err = 0;

	*L = (struct bench_looks){ .stop = SEQ_GO_ON };
	L->look = calloc((size_t)r->cap / 2 + 1, sizeof(*L->look));
	v[0] = calloc((size_t)b->done + 1, sizeof(double));
	v[1] = calloc((size_t)b->done + 1, sizeof(double));
	if (!L->look || !v[0] || !v[1]) {
		err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < b->done && L->stop == SEQ_GO_ON; i++) {
		const struct bench_sample *s = &b->s[i];

		if (s->warmup)
			continue;
		measured++;
		if (bench_counts(s))
			v[s->mode][n[s->mode]++] = s->value;
		/* Looks are at even runs per mode: whole blocks. */
		if (measured % 4 || !seq_is_look(r, measured / 2))
			continue;
		err = seq_look(r, measured / 2, v[BENCH_LEGACY],
			       n[BENCH_LEGACY], v[BENCH_OPTIMIZED],
			       n[BENCH_OPTIMIZED], &L->look[L->n]);
		if (err)
			goto out;
		L->stop = L->look[L->n++].stop;
	}
	/* A run after the stop: not a bench this rule ran. */
	L->extra = 0;
	for (int i = 0, m = 0; i < b->done; i++)
		if (!b->s[i].warmup && ++m > measured)
			L->extra++;
out:
	free(v[0]);
	free(v[1]);
	if (err)
		bench_looks_free(L);
	return err;
}

/*
 * What a look's interval is judged against: 1, and the margin's ends when
 * there is a margin.  Its numbers are printed beside these (report.h),
 * so that "equivalent" is never shown with an end on the margin.
 */
static size_t rule_bounds(const struct seq_rule *r, double *b)
{
	b[0] = 1;
	if (!(r->margin > 0))
		return 1;
	b[1] = 1 / (1 + r->margin);
	b[2] = 1 + r->margin;
	return 3;
}

bool bench_rule_stops(struct bench *b)
{
	struct bench_looks L;
	const struct seq_look *l;
	char v[32], lo[32], hi[32];
	double bd[3];
	size_t nb = rule_bounds(&b->o->seq, bd);

	if (bench_looks(b, &L)) {
		/* A value <= 0 or no memory: the report says which. */
		return false;
	}
	if (L.n > b->looks_seen) {
		l = &L.look[L.n - 1];
		b->looks_seen = L.n;
		fprintf(stderr, "abpath: bench: %s%slook %d at %d runs per mode: "
			"legacy/optimized %s (%.4g%% CI %s–%s): %s\n",
			b->o->label ? b->o->label : "", b->o->label ? ": " : "",
			l->look, l->runs,
			report_fmt_beside(v, sizeof(v), l->value, 3, bd, nb),
			100 * (1 - l->alpha),
			report_fmt_beside(lo, sizeof(lo), l->lo, 3, bd, nb),
			report_fmt_beside(hi, sizeof(hi), l->hi, 3, bd, nb),
			l->stop == SEQ_GO_ON ? "go on" :
			seq_stop_name[l->stop]);
	}
	bench_looks_free(&L);
	return L.stop != SEQ_GO_ON;
}

/* The look whose interval is the headline: the last one, or NULL. */
static const struct seq_look *last_look(const struct bench_looks *L)
{
	return L->n ? &L->look[L->n - 1] : NULL;
}

static const char *stopped_by(const struct bench *b,
			      const struct bench_looks *L)
{
	if (L->stop != SEQ_GO_ON)
		return seq_stop_name[L->stop];
	return b->incomplete ? "interrupted" : "none";
}

void bench_seq_verdict(const struct bench *b, const struct bench_looks *L,
		       bool speed, char *buf, size_t len)
{
	const struct seq_look *l = last_look(L);
	const struct seq_rule *r = &b->o->seq;
	char f[32], lo[32], hi[32], at[96], bnd[2][32], over[160];
	double v, a, z, bd[3], bias;
	size_t nb = rule_bounds(r, bd);

	if (!l || !isfinite(l->lo)) {
		snprintf(buf, len, "inconclusive: %s before the rule's first "
			 "interval (%d runs per mode, two valid runs of each "
			 "mode)", b->incomplete ? "interrupted" : "stopped",
			 r->first < r->cap ? r->first : r->cap);
		return;
	}
	snprintf(at, sizeof(at), "%d look%s, %d runs per mode", L->n,
		 L->n == 1 ? "" : "s", l->runs);
	v = l->value;
	a = l->lo;
	z = l->hi;
	switch (L->stop) {
	case SEQ_DIFFERENT:
		/* The larger-than-one side, as the fixed-count verdict. */
		if (v < 1) {
			v = 1 / l->value;
			a = 1 / l->hi;
			z = 1 / l->lo;
		}
		bias = seq_stop_bias(r, l->runs);
		if (isnan(bias))
			snprintf(over, sizeof(over), "; a stop by the rule "
				 "overstates the ratio (not simulated for this "
				 "rule; the interval holds)");
		else
			snprintf(over, sizeof(over), "; a stop after %d runs "
				 "per mode overstates the ratio: in simulation it "
				 "averaged up to %.2f× the true one (the interval "
				 "holds)", l->runs, 1 + bias);
		snprintf(buf, len, "legacy is %sx %s (%g%% sequential CI "
			 "%s–%s): the interval excludes 1 (%s)%s",
			 report_fmt_beside(f, sizeof(f), v, 3, bd, 1),
			 (b->lower_is_better ? l->value > 1 : l->value < 1) ?
			 (speed ? "slower" : "worse") :
			 (speed ? "faster" : "better"),
			 100 * (1 - r->alpha),
			 report_fmt_beside(lo, sizeof(lo), a, 3, bd, 1),
			 report_fmt_beside(hi, sizeof(hi), z, 3, bd, 1), at, over);
		return;
	case SEQ_EQUIVALENT:
		snprintf(buf, len, "equivalent within ±%g%% (%s–%s): "
			 "legacy/optimized %s (%g%% sequential CI %s–%s) (%s)",
			 100 * r->margin,
			 out_fmt_sig(bnd[0], sizeof(bnd[0]), bd[1], 4),
			 out_fmt_sig(bnd[1], sizeof(bnd[1]), bd[2], 4),
			 report_fmt_beside(f, sizeof(f), v, 3, bd, nb),
			 100 * (1 - r->alpha),
			 report_fmt_beside(lo, sizeof(lo), a, 3, bd, nb),
			 report_fmt_beside(hi, sizeof(hi), z, 3, bd, nb), at);
		return;
	default:
		snprintf(buf, len, "%s: legacy/optimized %s (%g%% sequential "
			 "CI %s–%s) (%s)",
			 L->stop == SEQ_PRECISE ? "no difference shown, the "
			 "interval as narrow as asked" :
			 L->stop == SEQ_CAP ? "inconclusive: the cap was "
			 "reached" : b->incomplete ? "inconclusive: "
			 "interrupted" : "inconclusive: the rule did not stop",
			 report_fmt_beside(f, sizeof(f), v, 3, bd, nb),
			 100 * (1 - r->alpha),
			 report_fmt_beside(lo, sizeof(lo), a, 3, bd, nb),
			 report_fmt_beside(hi, sizeof(hi), z, 3, bd, nb), at);
	}
}

void bench_emit_sequential(const struct bench *b, const struct bench_looks *L)
{
	const struct seq_rule *r = &b->o->seq;
	const struct seq_look *l = last_look(L);
	double bd[3];
	size_t nb = rule_bounds(r, bd);

	out_begin_object("sequential", OUT_PLAIN);
	out_string("rule", "hsd-alpha-spending-welch-t-log-union-bound");
	out_real("alpha", r->alpha, SIG);
	out_real("gamma", r->gamma, SIG);
	out_u64("first_look_runs", (uint64_t)r->first);
	out_u64("cap_runs", (uint64_t)r->cap);
	out_real("margin", r->margin, SIG);
	if (r->precision > 0)
		out_real("precision", r->precision, SIG);
	else
		out_null("precision");
	out_u64("looks_made", (uint64_t)L->n);
	out_string("stopped_by", stopped_by(b, L));
	out_real("level", 1 - r->alpha, SIG);
	out_real("value", l ? l->value : NAN, SIG);
	/* How much a "different" stop here overstates it, in simulation. */
	out_real("value_bias_max", l && L->stop == SEQ_DIFFERENT ?
		 seq_stop_bias(r, l->runs) : NAN, 2);
	out_range("ci", l ? l->lo : NAN, l ? l->hi : NAN,
		  l ? report_range_sig(l->lo, l->hi, SIG, bd, nb) : SIG);
	out_u64("runs_after_stop", (uint64_t)L->extra);
	out_hint(OUT_HIDDEN);
	out_begin_array("looks");
	out_hint(OUT_ROWS);
	for (int i = 0; i < L->n; i++) {
		l = &L->look[i];
		out_begin_object(NULL, OUT_PLAIN);
		out_u64("look", (uint64_t)l->look);
		out_u64("runs", (uint64_t)l->runs);
		out_u64("legacy_n", l->n[0]);
		out_u64("optimized_n", l->n[1]);
		out_real("alpha", l->alpha, SIG);
		out_real("spent", l->spent, SIG);
		out_real("value", l->value, SIG);
		out_range("ci", l->lo, l->hi,
			  report_range_sig(l->lo, l->hi, SIG, bd, nb));
		out_real("df", l->df, SIG);
		out_real("half_width", l->half, SIG);
		out_string("decision", seq_stop_name[l->stop]);
		out_end();
	}
	out_end();
	out_end();
}
