// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "wl.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *wl_name = "workload";
bool wl_json;
static const char *usage_text = "";

static const char common_usage[] =
	"  -j, --json          print one JSON object instead of the summary\n"
	"  -h, --help          show this help and exit\n"
	"\n"
	"Exit status: 0 ok, 1 failed check or error, 2 usage error.\n";

void wl_init(const char *name, const char *usage)
{
	wl_name = name;
	usage_text = usage;
}

void wl_usage(int code)
{
	FILE *f = code ? stderr : stdout;

	fputs(usage_text, f);
	fputs(common_usage, f);
	exit(code);
}

void wl_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", wl_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	wl_usage(2);
}

void wl_common_opt(int c)
{
	switch (c) {
	case 'h':
		wl_usage(0);
	case 'j':
		wl_json = true;
		return;
	default:	/* getopt_long() has already said what was wrong */
		wl_usage(2);
	}
}

void wl_no_args(int argc, char **argv)
{
	if (optind < argc)
		wl_usage_error("unexpected argument '%s'", argv[optind]);
}

long long wl_arg_ll(const char *opt, const char *arg, long long min,
		    long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		wl_usage_error("%s: '%s' is not an integer in [%lld, %lld]",
			       opt, arg, min, max);
	return v;
}

void wl_int_opts(int argc, char **argv, const struct wl_int_opt *opts,
		 int n)
{
	static const struct option common[] = { WL_LONGOPTS };
	struct option lopts[16 + 3] = { 0 };
	char shorts[2 * 16 + sizeof(WL_SHORTOPTS)] = "", name[64];
	int c, k = 0, i;

	if (n > 16)
		wl_die("wl_int_opts: %d options, 16 at most", n);
	for (i = 0; i < n; i++) {
		lopts[i] = (struct option){ opts[i].name, required_argument,
					    NULL, opts[i].letter };
		shorts[k++] = opts[i].letter;
		shorts[k++] = ':';
	}
	memcpy(&lopts[n], common, sizeof(common));
	strcat(shorts, WL_SHORTOPTS);
	while ((c = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		for (i = 0; i < n && opts[i].letter != c; i++)
			;
		if (i == n) {
			wl_common_opt(c);
			continue;
		}
		snprintf(name, sizeof(name), "--%s", opts[i].name);
		*opts[i].val = wl_arg_ll(name, optarg, opts[i].min,
					 opts[i].max);
	}
	wl_no_args(argc, argv);
}

double wl_arg_double(const char *opt, const char *arg, double min,
		     double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= min && v <= max))
		wl_usage_error("%s: '%s' is not a number in [%g, %g]",
			       opt, arg, min, max);
	return v;
}

static _Noreturn void vdie(int err, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: error: ", wl_name);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	exit(1);
}

void wl_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(0, fmt, ap);
}

void wl_die_err(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(err, fmt, ap);
}

double wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double wl_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void wl_rusage(double *user_s, double *sys_s)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6;
	*sys_s = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

void wl_sleep(double s)
{
	struct timespec ts;
	double end = wl_now() + s;

	/* An absolute deadline keeps signal interruptions from stretching it. */
	ts.tv_sec = (time_t)end;
	ts.tv_nsec = (long)((end - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_nsec = 999999999L;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static volatile uint64_t wl_sink;

uint64_t wl_spin(uint64_t x, uint64_t loops)
{
	x |= 1;		/* xorshift never leaves zero */
	while (loops--) {
		for (int i = 0; i < 1000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
	}
	return x;
}

void wl_consume(uint64_t x)
{
	wl_sink ^= x;
}

/* ---- idle background tasks ---- */

static volatile pid_t idle_pgid;

/* Async-signal-safe: also runs from the signal handler. */
static void idle_kill_and_reap(void)
{
	pid_t pg = idle_pgid;

	if (pg <= 0)
		return;
	kill(-pg, SIGKILL);
	/*
	 * We are a child subreaper, so grandchildren are reparented to us
	 * before their parent becomes reapable: waiting on the group until
	 * ECHILD collects the whole tree and leaves no zombie to init.
	 */
	for (;;) {
		if (waitpid(-pg, NULL, 0) > 0)
			continue;
		if (errno != EINTR)
			break;
	}
	idle_pgid = 0;
}

void wl_idle_stop(void)
{
	idle_kill_and_reap();
}

static void idle_signal(int sig)
{
	int saved = errno;

	idle_kill_and_reap();
	/*
	 * A child forked by the workload itself (forkexit's) exits at once;
	 * reap it too rather than leave a zombie to init.
	 */
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	/* SA_RESETHAND restored the default: die of the same signal. */
	kill(getpid(), sig);
	errno = saved;
}

static void idle_exit(void)
{
	idle_kill_and_reap();
}

/* Die with our parent; return false if it is already gone. */
static bool idle_tie_to_parent(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	return getppid() == parent;
}

/*
 * Runs in the group leader. Halving the share at each fork builds a
 * tree of depth log2(n), so creation spreads over the CPUs and every
 * process pays only a few forks.
 */
static _Noreturn void idle_tree(int n, int wfd)
{
	while (n > 1) {
		int half = n / 2;
		pid_t me = getpid();
		pid_t pid = fork();

		if (pid < 0) {
			/* Tell the parent how many of ours will never report. */
			for (int i = 0; i < half; i++)
				if (write(wfd, "x", 1) < 0)
					break;
			n -= half;
			continue;
		}
		if (pid == 0) {
			if (!idle_tie_to_parent(me))
				_exit(0);
			n = half;
		} else {
			n -= half;
		}
	}
	if (write(wfd, ".", 1) < 0)
		_exit(1);
	close(wfd);
	for (;;)
		pause();
}

double wl_idle_start(int n)
{
	struct sigaction sa;
	sigset_t stop_sigs, old_mask;
	int pfd[2];
	pid_t me = getpid(), pid;
	int ok = 0, bad = 0;
	double t0 = wl_now();

	if (n <= 0)
		return 0;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		wl_die_err(errno, "PR_SET_CHILD_SUBREAPER");
	if (pipe(pfd) < 0)
		wl_die_err(errno, "pipe");

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = idle_signal;
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	atexit(idle_exit);

	/*
	 * Until idle_pgid is set the handler could not kill the new tree,
	 * and its final waitpid(-1) would wait for it forever.
	 */
	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	sigaddset(&stop_sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop_sigs, &old_mask);
	pid = fork();
	if (pid < 0)
		wl_die_err(errno, "fork idle task");
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		setpgid(0, 0);
		close(pfd[0]);
		if (!idle_tie_to_parent(me))
			_exit(0);
		idle_tree(n, pfd[1]);
	}
	/* Both sides set the group, so neither order of running races. */
	setpgid(pid, pid);
	idle_pgid = pid;
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	close(pfd[1]);

	while (ok + bad < n) {
		char buf[512];
		ssize_t r = read(pfd[0], buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (ssize_t i = 0; i < r; i++)
			buf[i] == '.' ? ok++ : bad++;
	}
	close(pfd[0]);
	if (ok != n)
		wl_die("could only create %d of %d idle tasks (fork failed; "
		       "check ulimit -u and pid_max)", ok, n);
	return wl_now() - t0;
}

/* ---- checks ---- */

#define MAX_CHECKS 16
static struct { const char *key; int state; } checks[MAX_CHECKS];
static int nchecks;

static void add_check(const char *key, int state)
{
	if (nchecks < MAX_CHECKS)
		checks[nchecks++] = (typeof(checks[0])){ key, state };
}

void wl_check(const char *key, bool ok, const char *fmt, ...)
{
	va_list ap;

	add_check(key, ok);
	if (ok)
		return;
	fprintf(stderr, "%s: error: ", wl_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void wl_check_skip(const char *key)
{
	add_check(key, -1);
}

bool wl_checks_passed(void)
{
	for (int i = 0; i < nchecks; i++)
		if (checks[i].state == 0)
			return false;
	return true;
}

/* ---- report: JSON and the text summary are written side by side ---- */

#define MAX_DEPTH 8
static FILE *jf, *tf;
static char *jbuf, *tbuf;
static size_t jlen, tlen;
static int depth;
static bool first[MAX_DEPTH], is_arr[MAX_DEPTH], tbreak[MAX_DEPTH];
static const char *hdr_metric, *hdr_unit;
static double hdr_value;
static bool hdr_lower;

static void json_string(const char *s)
{
	fputc('"', jf);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':  fputs("\\\"", jf); break;
		case '\\': fputs("\\\\", jf); break;
		case '\n': fputs("\\n", jf); break;
		case '\r': fputs("\\r", jf); break;
		case '\t': fputs("\\t", jf); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(jf, "\\u%04x", *p);
			else
				fputc(*p, jf);
		}
	}
	fputc('"', jf);
}

static void indent(int n)
{
	fprintf(tf, "\n%*s", n, "");
}

/* JSON separator and key for the next member of the open container. */
static void jmember(const char *key)
{
	if (!first[depth])
		fputc(',', jf);
	first[depth] = false;
	if (!is_arr[depth]) {
		json_string(key);
		fputc(':', jf);
	}
}

/* The same for both outputs. */
static void member(const char *key)
{
	if (!first[depth] && is_arr[depth])
		fputc(',', tf);
	if (tbreak[depth]) {
		indent(2 * depth);
		tbreak[depth] = false;
	}
	jmember(key);
	if (!is_arr[depth])
		fprintf(tf, " %s=", key);
}

static void open_container(const char *key, bool arr)
{
	if (depth + 1 >= MAX_DEPTH)
		wl_die("report nested too deeply");
	if (depth == 1) {
		jmember(key);
		fprintf(tf, "  %s:", key);
	} else if (arr || is_arr[depth]) {
		member(key);
	} else {
		/* Nested objects get a line of their own in the summary. */
		jmember(key);
		indent(2 * depth);
		fprintf(tf, "%s:", key);
		tbreak[depth] = true;
	}
	fputc(arr ? '[' : '{', jf);
	if (arr)
		fputc('[', tf);
	depth++;
	first[depth] = true;
	is_arr[depth] = arr;
	tbreak[depth] = false;
}

void wl_obj(const char *key)
{
	open_container(key, false);
}

void wl_arr(const char *key)
{
	open_container(key, true);
}

void wl_end(void)
{
	if (depth <= 1)
		wl_die("report: unbalanced wl_end()");
	fputc(is_arr[depth] ? ']' : '}', jf);
	if (is_arr[depth])
		fputc(']', tf);
	depth--;
	if (depth == 1)
		fputc('\n', tf);
}

void wl_num(const char *key, double v)
{
	member(key);
	if (isfinite(v)) {
		fprintf(jf, "%.15g", v);
		fprintf(tf, "%.6g", v);
	} else {
		fputs("null", jf);
		fputs("-", tf);
	}
}

void wl_int(const char *key, long long v)
{
	member(key);
	fprintf(jf, "%lld", v);
	fprintf(tf, "%lld", v);
}

void wl_str(const char *key, const char *v)
{
	member(key);
	json_string(v);
	fputs(v, tf);
}

void wl_bool(const char *key, bool v)
{
	member(key);
	fputs(v ? "true" : "false", jf);
	fputs(v ? "true" : "false", tf);
}

void wl_null(const char *key)
{
	member(key);
	fputs("null", jf);
	fputs("-", tf);
}

void wl_report_begin(const char *metric, double value, const char *unit,
		     bool lower_is_better)
{
	jf = open_memstream(&jbuf, &jlen);
	tf = open_memstream(&tbuf, &tlen);
	if (!jf || !tf)
		wl_die_err(errno, "open_memstream");
	hdr_metric = metric;
	hdr_value = value;
	hdr_unit = unit;
	hdr_lower = lower_is_better;

	depth = 1;
	first[1] = true;
	is_arr[1] = false;
	fputc('{', jf);
	/* The header goes to JSON only; the summary prints its own. */
	jmember("workload"); json_string(wl_name);
	jmember("metric"); json_string(metric);
	jmember("value");
	if (isfinite(value))
		fprintf(jf, "%.15g", value);
	else
		fputs("null", jf);
	jmember("unit"); json_string(unit);
	jmember("lower_is_better");
	fputs(lower_is_better ? "true" : "false", jf);
}

int wl_report_end(void)
{
	bool passed = wl_checks_passed();

	while (depth > 1)
		wl_end();
	wl_obj("checks");
	wl_bool("passed", passed);
	for (int i = 0; i < nchecks; i++) {
		if (checks[i].state < 0)
			wl_null(checks[i].key);
		else
			wl_bool(checks[i].key, checks[i].state);
	}
	wl_end();
	fputs("}\n", jf);
	fclose(jf);
	fclose(tf);

	if (wl_json) {
		fputs(jbuf, stdout);
	} else {
		printf("%s: %s %.6g %s (%s is better)\n", wl_name, hdr_metric,
		       hdr_value, hdr_unit, hdr_lower ? "lower" : "higher");
		fputs(tbuf, stdout);
	}
	fflush(stdout);
	free(jbuf);
	free(tbuf);
	return passed ? 0 : 1;
}
