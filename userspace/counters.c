// SPDX-License-Identifier: GPL-2.0
/*
 * The module's counters (its debugfs stats file, which control.c opens).
 * The file is deliberately dumb (one counter per line) so that the module
 * can add counters without a CLI change: nothing here knows a counter's
 * name, and paths and modes are shown in the order the module prints them.
 * Not to be confused with statistics.c, the maths of bench's results.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "output.h"
#include "counters.h"

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int counters_add(struct counter_set *s, const struct counter_entry *e)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct counter_entry *n = realloc(s->e, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->e = n;
		s->cap = cap;
	}
	s->e[s->n++] = *e;
	return 0;
}

void counters_free(struct counter_set *s)
{
	free(s->e);
	memset(s, 0, sizeof(*s));
}

static bool parse_u64(const char *str, uint64_t *val)
{
	char *end;

	/* strtoull() would accept "-1" and leading blanks; we must not. */
	if (*str < '0' || *str > '9')
		return false;
	errno = 0;
	*val = strtoull(str, &end, 10);
	return errno == 0 && *end == '\0';
}

int counters_read(struct counter_set *s)
{
	char file[4096], line[512], num[32], extra[2];
	struct counter_entry e;
	int lineno = 0, fields;
	FILE *f;

	s->n = 0;
	f = ctl_open_counters(file, sizeof(file));
	if (!f)
		return ctl_explain_counters(-errno);
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (line[strspn(line, " \t")] == '\0')
			continue;
		memset(&e, 0, sizeof(e));
		fields = sscanf(line, "%63s %15s %63s %31s %1s", e.path,
				e.mode, e.counter, num, extra);
		if (fields != 4 || !parse_u64(num, &e.value) ||
		    !ctl_is_name(e.path) || !ctl_is_name(e.mode) ||
		    !ctl_is_name(e.counter)) {
			abpath_error("%s:%d: cannot parse '%s' (expected "
				     "'<path> <mode> <counter> <value>'); the "
				     "module and the CLI disagree, update one",
				     file, lineno, line);
			fclose(f);
			return 1;
		}
		if (counters_add(s, &e)) {
			abpath_error("out of memory");
			fclose(f);
			return 1;
		}
	}
	if (ferror(f)) {
		int err = -errno;

		fclose(f);
		return ctl_explain_counters(err);
	}
	fclose(f);
	return 0;
}

static bool seen_before(const struct counter_set *s, size_t i, bool by_mode)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(s->e[j].path, s->e[i].path) &&
		    (!by_mode || !strcmp(s->e[j].mode, s->e[i].mode)))
			return true;
	return false;
}

static bool same_counter(const struct counter_entry *a,
			 const struct counter_entry *b)
{
	return !strcmp(a->counter, b->counter) && !strcmp(a->mode, b->mode) &&
	       !strcmp(a->path, b->path);
}

const struct counter_entry *counters_find(const struct counter_set *s,
					  const struct counter_entry *e,
					  size_t hint)
{
	/* The module prints in a fixed order, so the hint nearly always hits. */
	if (hint < s->n && same_counter(&s->e[hint], e))
		return &s->e[hint];
	for (size_t j = 0; j < s->n; j++)
		if (same_counter(&s->e[j], e))
			return &s->e[j];
	return NULL;
}

/*
 * A counter that went down was reset (or is a maximum, like ns_max): a
 * rate would be meaningless, so it is null rather than a negative number.
 */
static void emit_counters(const struct counter_set *s, const char *path,
			  const char *mode, const struct counter_set *prev,
			  double dt)
{
	const struct counter_entry *p;

	for (size_t i = 0; i < s->n; i++) {
		const struct counter_entry *e = &s->e[i];

		if (strcmp(e->path, path) || strcmp(e->mode, mode))
			continue;
		if (!prev) {
			out_u64(e->counter, e->value);
			continue;
		}
		p = counters_find(prev, e, i);
		if (p && e->value >= p->value && dt > 0)
			out_double(e->counter, (double)(e->value - p->value) / dt);
		else
			out_null(e->counter);
	}
}

/*
 * {"paths": {path: {mode: {counter: value}}}}, and "rates" alike: one
 * table per path in text, a column per mode, the rates' beside theirs.
 */
static void emit_tree(const char *key, unsigned flags, const char *label,
		      const struct counter_set *s,
		      const struct counter_set *prev, double dt)
{
	out_begin_table(key, flags, label);
	for (size_t i = 0; i < s->n; i++) {
		if (seen_before(s, i, false))
			continue;
		out_begin_table(s->e[i].path, OUT_COLS, "counter");
		for (size_t j = i; j < s->n; j++) {
			if (strcmp(s->e[j].path, s->e[i].path) ||
			    seen_before(s, j, true))
				continue;
			out_begin_object(s->e[j].mode, OUT_PLAIN);
			emit_counters(s, s->e[j].path, s->e[j].mode, prev, dt);
			out_end();
		}
		out_end();
	}
	out_end();
}

static int emit_sample(const struct counter_set *s,
		       const struct counter_set *prev, double dt, bool watch)
{
	if (watch) {
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		out_time("time", (double)now.tv_sec + (double)now.tv_nsec / 1e9);
		if (prev)
			out_double("interval", dt);
		else
			out_null("interval");
	}
	emit_tree("paths", OUT_INLINE, NULL, s, NULL, 0);
	if (prev)
		emit_tree("rates", OUT_BESIDE, "/s", s, prev, dt);
	if (out_flush(stdout)) {
		abpath_error("writing to standard output: %s", strerror(errno));
		return 1;
	}
	return 0;
}

int counters_show(void)
{
	struct counter_set s = { 0 };
	int ret;

	ret = counters_read(&s);
	if (!ret)
		ret = emit_sample(&s, NULL, 0, false);
	counters_free(&s);
	return ret;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct timespec to_timespec(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

int counters_watch(double interval)
{
	struct counter_set a = { 0 }, b = { 0 }, *cur = &a, *prev = NULL, *tmp;
	bool tty = !out_is_json() && isatty(STDOUT_FILENO);
	struct sigaction sa = { .sa_handler = on_stop };
	double t_prev = 0, t_now, deadline;
	struct timespec ts;
	int ret = 0;

	/* No SA_RESTART: the sleep must end at once on Ctrl-C. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* One write per frame, so a redraw never shows half a table. */
	if (tty)
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);

	deadline = mono_now();
	while (!stop_requested) {
		ret = counters_read(cur);
		if (ret)
			break;
		t_now = mono_now();
		if (tty)
			/* Home and clear; the cursor is never hidden. */
			printf("\033[H\033[2JEvery %gs, Ctrl-C to stop\n\n",
			       interval);
		else if (!out_is_json() && prev)
			putchar('\n');
		ret = emit_sample(cur, prev, t_now - t_prev, true);
		if (ret)
			break;
		t_prev = t_now;
		tmp = prev ? prev : &b;
		prev = cur;
		cur = tmp;

		deadline += interval;
		if (deadline < t_now)
			deadline = t_now + interval;
		ts = to_timespec(deadline);
		while (!stop_requested &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
	}
	if (tty) {
		/* Belt and braces for terminals left odd by a pager. */
		fputs("\033[?25h", stdout);
		fflush(stdout);
	}
	counters_free(&a);
	counters_free(&b);
	return ret;
}
