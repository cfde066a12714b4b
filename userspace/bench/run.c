// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE	/* pipe2, ppoll, strsignal */
/*
 * abpath bench: run one workload many times, switching the benched path(s)
 * between legacy and optimized before each run, and record the workload's
 * metric and the module's counter deltas for every run.
 *
 * The modes alternate in ABBA order (L O O L L O O L ...), warm-ups first:
 * a slow drift of the machine (thermal, page cache, a neighbour VM) then
 * adds about equally to both modes instead of biasing the later one.
 *
 * Whatever happens (a failed run, SIGINT, SIGTERM, a failed write), every
 * path goes back to the mode it had before the bench: an engineer who
 * interrupts a bench must not be left with a kernel in legacy mode.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "../control.h"
#include "../output.h"
#include "../counters.h"


/* A workload has this long to clean up after SIGTERM before SIGKILL. */
#define BENCH_KILL_GRACE_S	10
/* More output than this is not a workload report. */
#define BENCH_MAX_OUTPUT	(16 << 20)
/* Of a command's standard error, the start is kept for an error message. */
#define BENCH_KEEP_STDERR	(64 << 10)

const char *const bench_mode_name[2] = { "legacy", "optimized" };

const char *bench_workload_dir(void)
{
	const char *dir = getenv("ABPATH_WORKLOAD_DIR");

	return dir && *dir ? dir : ABPATH_WORKLOAD_DIR;
}

int bench_no_workload_dir(void)
{
	abpath_error("workload directory %s does not exist; install the "
		     "workloads (the Debian package, or 'make -C userspace/workloads "
		     "install' from a clone) or set ABPATH_WORKLOAD_DIR",
		     bench_workload_dir());
	return 1;
}

/* Which path each built-in workload was written to exercise (docs/design.md). */
const char *bench_default_path(const char *workload)
{
	static const struct { const char *workload, *path; } map[] = {
		{ "pound-times", "group_cputime" },
		{ "pound-clock", "group_cputime" },
		{ "forkexit", "exit_reparent" },
		{ "thread-churn", "exit_reparent" },
		{ "itimer-threads", "timer_fastpath" },
		{ "sleep-loop", "timer_softirq" },
		{ "softirq-rate", "timer_softirq" },
	};
	const char *base = strrchr(workload, '/');

	base = base ? base + 1 : workload;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].workload, base))
			return map[i].path;
	return NULL;
}

enum bench_mode bench_order(int i, int warmup_per_mode)
{
	int k = i < 2 * warmup_per_mode ? i : i - 2 * warmup_per_mode;

	return k % 4 == 0 || k % 4 == 3 ? BENCH_LEGACY : BENCH_OPTIMIZED;
}

/* ---- signals ----------------------------------------------------------- */

static volatile sig_atomic_t stop_sig, stop_count;
static sigset_t bench_sigs, orig_mask;
static int sig_depth;

static void on_stop(int sig)
{
	stop_sig = sig;
	stop_count++;
}

/* Only there so that SIGCHLD interrupts ppoll(); waitpid() does the rest. */
static void on_child(int sig)
{
	(void)sig;
}

/*
 * The signals stay blocked except inside ppoll(), so that a signal can
 * never slip in between "is there a stop request?" and "sleep".  Between
 * runs they are let through here, briefly.
 */
static void signals_take(void)
{
	struct sigaction sa = { .sa_handler = on_stop };

	sigemptyset(&bench_sigs);
	sigaddset(&bench_sigs, SIGINT);
	sigaddset(&bench_sigs, SIGTERM);
	sigaddset(&bench_sigs, SIGHUP);
	sigaddset(&bench_sigs, SIGCHLD);
	sigprocmask(SIG_BLOCK, &bench_sigs, &orig_mask);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
}

static void signals_poll(void)
{
	sigprocmask(SIG_SETMASK, &orig_mask, NULL);
	sigprocmask(SIG_BLOCK, &bench_sigs, NULL);
}

static void signals_release(void)
{
	/* A stop request still pending must count, not kill us by default. */
	signals_poll();
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_SETMASK, &orig_mask, NULL);
}

void bench_signals_begin(void)
{
	if (!sig_depth++)
		signals_take();
}

void bench_signals_end(void)
{
	if (sig_depth > 0 && !--sig_depth)
		signals_release();
}

const char *bench_signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" :
	       sig == SIGHUP ? "SIGHUP" : "a signal";
}

int bench_reraise(int sig)
{
	sigset_t set;

	fflush(stdout);
	fflush(stderr);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	return 128 + sig;
}

int bench_stop_signal(void)
{
	/* Let a pending request in first, if the signals are still ours. */
	if (sig_depth)
		signals_poll();
	return stop_sig;
}

/* ---- provenance ---------------------------------------------------- */

static int not_dot(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

/*
 * {name: value} of every parameter the loaded module has, or NULL; in
 * name order (scandir's alphasort), for a stable result.
 */
static json_t *module_parameters(void)
{
	char dir[4096], val[512];
	struct dirent **names;
	json_t *params;
	int n;

	ctl_sys_path(dir, sizeof(dir), "module/abpath/parameters");
	n = scandir(dir, &names, not_dot, alphasort);
	if (n < 0)
		return NULL;
	params = json_object();
	for (int i = 0; i < n; i++) {
		if (params && !ctl_param(names[i]->d_name, val, sizeof(val)))
			json_object_set_new(params, names[i]->d_name,
					    json_string(val));
		free(names[i]);
	}
	free(names);
	return params;
}

/* The first "model name" of /proc/cpuinfo, or NULL. */
static json_t *cpu_model(void)
{
	char file[4096], line[512], *colon, *end;
	json_t *model = NULL;
	FILE *f;

	snprintf(file, sizeof(file), "%s/cpuinfo", ctl_proc());
	f = fopen(file, "re");
	while (f && !model && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) || !(colon = strchr(line, ':')))
			continue;
		for (colon++; *colon == ' ' || *colon == '\t'; colon++)
			;
		end = colon + strcspn(colon, "\n");
		*end = '\0';
		model = json_string(colon);
	}
	if (f)
		fclose(f);
	return model;
}

/*
 * Every CPU's cpufreq governor, once each ("performance", or
 * "ondemand,performance" when they differ); "none" without cpufreq
 * (a VM, or a kernel without it), where the clock cannot change.
 */
static json_t *cpufreq_governors(void)
{
	char rel[128], gov[64], seen[8][64], all[8 * 65] = "";
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int nseen = 0, k;
	size_t used = 0;

	for (long cpu = 0; cpu < n && nseen < 8; cpu++) {
		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpu%ld/cpufreq/scaling_governor",
			 cpu);
		if (ctl_sys_read(rel, gov, sizeof(gov)) || !*gov)
			continue;
		for (k = 0; k < nseen && strcmp(seen[k], gov); k++)
			;
		if (k < nseen)
			continue;
		ctl_copy(seen[nseen++], sizeof(seen[0]), gov);
		used += (size_t)snprintf(all + used, sizeof(all) - used,
					 "%s%s", used ? "," : "", gov);
	}
	return json_string(*all ? all : "none");
}

json_t *bench_provenance(void)
{
	char when[32] = "", file[4096], backend[CTL_NAME_MAX], site[512];
	char watchdog[128], clocksource[64];
	struct ctl_paths paths;
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;
	bool have_backend, have_watchdog, have_clock;
	json_t *sites;

	if (uname(&u))
		u.release[0] = u.version[0] = u.nodename[0] = '\0';
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	/* Two backends on one kernel release measure different sites. */
	snprintf(file, sizeof(file), "%s/backend", ctl_sysfs());
	have_backend = !ctl_read(file, backend, sizeof(backend));
	/*
	 * Where each legacy arm ran: on PREEMPT_RT timer_fastpath's is a
	 * variant, and its site says so in every result.
	 */
	sites = json_object();
	ctl_path_names(&paths);
	for (int i = 0; sites && i < paths.n; i++)
		if (!ctl_path_site(paths.name[i], site, sizeof(site)))
			json_object_set_new(sites, paths.name[i],
					    json_string(site));
	/* A legacy arm's calls were judged against these budgets. */
	have_watchdog = !ctl_param("watchdog_us", watchdog, sizeof(watchdog));
	/*
	 * Every wall time came from this clock: a VM that fell back from
	 * the TSC to hpet or acpi_pm pays for every read of it.
	 */
	have_clock = !ctl_sys_read("devices/system/clocksource/clocksource0/"
				   "current_clocksource", clocksource,
				   sizeof(clocksource));
	return json_pack("{s:s, s:s, s:s, s:s?, s:o?, s:s?, s:o?, s:I, s:o?, "
			 "s:o?, s:s?, s:s, s:s}",
			 "abpath_version", ABPATH_VERSION,
			 "kernel", u.release,
			 "kernel_version", u.version,
			 "backend", have_backend ? backend : NULL,
			 "sites", sites,
			 "watchdog_us", have_watchdog ? watchdog : NULL,
			 "module_parameters", module_parameters(),
			 "cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN),
			 "cpu_model", cpu_model(),
			 "cpufreq_governor", cpufreq_governors(),
			 "clocksource", have_clock ? clocksource : NULL,
			 "host", u.nodename, "time", when);
}

char *bench_fmt_provenance(char *buf, size_t len, json_t *pv)
{
	snprintf(buf, len, "kernel %s, %" JSON_INTEGER_FORMAT " CPUs, host %s, "
		 "%s, abpath %s",
		 json_string_value(json_object_get(pv, "kernel")) ?: "?",
		 json_integer_value(json_object_get(pv, "cpus")),
		 json_string_value(json_object_get(pv, "host")) ?: "?",
		 json_string_value(json_object_get(pv, "time")) ?: "?",
		 json_string_value(json_object_get(pv, "abpath_version")) ?: "?");
	return buf;
}

char *bench_fmt_machine(char *buf, size_t len, json_t *pv)
{
	const char *model = json_string_value(json_object_get(pv, "cpu_model"));
	const char *gov = json_string_value(json_object_get(pv,
							    "cpufreq_governor"));
	const char *clock = json_string_value(json_object_get(pv, "clocksource"));

	buf[0] = '\0';
	if (model || gov || clock)
		snprintf(buf, len, "CPU %s, cpufreq governor %s, clocksource %s",
			 model ?: "?", gov ?: "?", clock ?: "?");
	return buf;
}

char *bench_fmt_params(char *buf, size_t len, json_t *pv)
{
	json_t *params = json_object_get(pv, "module_parameters"), *v;
	const char *k;
	size_t used = 0;

	buf[0] = '\0';
	json_object_foreach(params, k, v) {
		if (used >= len)
			break;
		used += (size_t)snprintf(buf + used, len - used, "%s%s=%s",
					 used ? ", " : "", k,
					 json_string_value(v) ?: "?");
	}
	return buf;
}

/* ---- modes ------------------------------------------------------------- */

static struct {
	bool armed;
	int n;
	char path[CTL_MAX_PATHS][CTL_NAME_MAX];
	char mode[CTL_MAX_PATHS][CTL_NAME_MAX];
} orig;

static void mode_file(char *buf, size_t len, const char *path)
{
	snprintf(buf, len, "%s/%s/mode", ctl_sysfs(), path);
}

static int save_modes(const struct ctl_paths *p)
{
	char file[4096];
	int err;

	orig.n = 0;
	for (int i = 0; i < p->n; i++) {
		err = ctl_path_mode(p->name[i], orig.mode[i], CTL_NAME_MAX);
		if (err) {
			mode_file(file, sizeof(file), p->name[i]);
			return ctl_explain(file, err, false);
		}
		ctl_copy(orig.path[i], CTL_NAME_MAX, p->name[i]);
		orig.n++;
	}
	orig.armed = true;
	return 0;
}

/* Returns 0, or 1 after saying which path is left in which mode. */
static int restore_modes(void)
{
	char file[4096], now[CTL_NAME_MAX];
	int ret = 0, err;

	if (!orig.armed)
		return 0;
	orig.armed = false;
	for (int i = 0; i < orig.n; i++) {
		if (!ctl_path_mode(orig.path[i], now, sizeof(now)) &&
		    !strcmp(now, orig.mode[i]))
			continue;
		mode_file(file, sizeof(file), orig.path[i]);
		err = ctl_write(file, orig.mode[i]);
		if (err) {
			abpath_error("could not restore %s to %s: %s; run "
				     "'abpath set %s %s'", orig.path[i],
				     orig.mode[i], strerror(-err), orig.path[i],
				     orig.mode[i]);
			ret = 1;
		}
	}
	return ret;
}

/* Last resort for an exit() deep down (out of memory in the emitter). */
static void restore_at_exit(void)
{
	restore_modes();
}

static int set_mode(const struct ctl_paths *p, enum bench_mode m)
{
	const char *mode = bench_mode_name[m];
	char file[4096], now[CTL_NAME_MAX];
	int err;

	/*
	 * One write per path rather than the global mode file: the same
	 * code then serves one path and "all", and every path is checked.
	 */
	for (int i = 0; i < p->n; i++) {
		mode_file(file, sizeof(file), p->name[i]);
		err = ctl_write(file, mode);
		if (err == -EOPNOTSUPP)
			return ctl_explain_unsupported(p->name[i], mode);
		if (err)
			return ctl_explain(file, err, false);
		/* A module that took the write but did not switch is a bug. */
		err = ctl_path_mode(p->name[i], now, sizeof(now));
		if (err)
			return ctl_explain(file, err, false);
		if (strcmp(now, mode)) {
			abpath_error("%s reads '%s' after writing '%s'; the "
				     "module did not switch", file, now, mode);
			return 1;
		}
	}
	return 0;
}

/* ---- running one workload ---------------------------------------------- */

struct buf {
	char *p;
	size_t n, cap;
	int fd;		/* our end of the pipe, -1 once at EOF */
	size_t max;	/* what is kept, at most */
	bool discard;	/* past max: read on and drop (else an error) */
};

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Reads what is there; returns -1 on error or past max (unless the buffer
 * discards the excess), 0 otherwise.
 */
static int buf_fill(struct buf *b)
{
	char sink[4096], *dst;
	size_t room;
	ssize_t r;

	while (b->fd >= 0) {
		if (b->n + 1 >= b->max) {
			if (!b->discard)
				return -1;
			dst = sink;
			room = sizeof(sink);
		} else {
			if (b->cap - b->n < 4096 && b->cap < b->max) {
				size_t cap = b->cap ? 2 * b->cap : 8192;
				char *p;

				cap = cap < b->max ? cap : b->max;
				p = realloc(b->p, cap);
				if (!p)
					return -1;
				b->p = p;
				b->cap = cap;
			}
			dst = b->p + b->n;
			room = b->cap - b->n - 1;
		}
		r = read(b->fd, dst, room);
		if (r > 0 && dst != sink) {
			b->n += (size_t)r;
			b->p[b->n] = '\0';
		} else if (r > 0) {
			continue;
		} else if (r == 0) {
			close(b->fd);
			b->fd = -1;
		} else if (errno == EINTR) {
			continue;
		} else {
			return errno == EAGAIN ? 0 : -1;
		}
	}
	return 0;
}

/* What to run: a workload, a command, or --prepare's shell. */
struct child {
	char *const *argv;
	bool search;	/* look argv[0] up in $PATH (execvp) */
	bool stdout_kept;	/* into out, else /dev/null */
	/*
	 * Both onto our standard error, beside the progress lines
	 * (--show-output): standard output stays the report.
	 */
	bool shown;
};

static void child_exec(const struct child *c, int out, int err)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	sigprocmask(SIG_SETMASK, &orig_mask, NULL);
	/* A workload reading the terminal would stop a background bench. */
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	if (c->shown) {
		dup2(STDERR_FILENO, STDOUT_FILENO);
	} else {
		dup2(c->stdout_kept || null < 0 ? out : null, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
	}
	if (c->search)
		execvp(c->argv[0], c->argv);
	else
		execv(c->argv[0], c->argv);
	dprintf(STDERR_FILENO, "cannot execute %s: %s\n", c->argv[0],
		strerror(errno));
	_exit(127);
}

/*
 * Run c once, collecting its stdout and stderr, until it exits.  A stop
 * request turns into SIGTERM (the workloads clean up on it), then SIGKILL
 * after a grace period or a second request.  Returns 0 with *status, the
 * child's rusage (its waited-for descendants included) and its wall time
 * in seconds, or 1 after an error message.
 */
static int spawn(const struct child *c, struct buf *out, struct buf *err,
		 int *status, struct rusage *ru, double *wall)
{
	int po[2], pe[2], n, got;
	bool term_sent = false, kill_sent = false;
	double deadline = 0, t0;
	struct pollfd fds[2];
	struct timespec ts;
	pid_t pid;

	if (pipe2(po, O_CLOEXEC)) {
		abpath_error("pipe: %s", strerror(errno));
		return 1;
	}
	if (pipe2(pe, O_CLOEXEC)) {
		abpath_error("pipe: %s", strerror(errno));
		close(po[0]);
		close(po[1]);
		return 1;
	}
	t0 = mono_now();
	pid = fork();
	if (pid < 0) {
		abpath_error("fork: %s", strerror(errno));
		for (int i = 0; i < 2; i++) {
			close(po[i]);
			close(pe[i]);
		}
		return 1;
	}
	if (pid == 0)
		child_exec(c, po[1], pe[1]);
	close(po[1]);
	close(pe[1]);
	out->fd = po[0];
	err->fd = pe[0];
	fcntl(po[0], F_SETFL, O_NONBLOCK);
	fcntl(pe[0], F_SETFL, O_NONBLOCK);

	for (;;) {
		got = wait4(pid, status, WNOHANG, ru);
		if (got == pid) {
			*wall = mono_now() - t0;
			break;
		}
		if (stop_sig && !term_sent) {
			kill(pid, SIGTERM);
			term_sent = true;
			deadline = mono_now() + BENCH_KILL_GRACE_S;
		}
		if (term_sent && !kill_sent &&
		    (stop_count > 1 || mono_now() >= deadline)) {
			kill(pid, SIGKILL);
			kill_sent = true;
		}
		n = 0;
		if (out->fd >= 0)
			fds[n++] = (struct pollfd){ out->fd, POLLIN, 0 };
		if (err->fd >= 0)
			fds[n++] = (struct pollfd){ err->fd, POLLIN, 0 };
		ts = (struct timespec){ 1, 0 };
		/* Signals are let in only while we sleep here. */
		if (ppoll(fds, (nfds_t)n, term_sent ? &ts : NULL,
			  &orig_mask) < 0 && errno != EINTR) {
			abpath_error("ppoll: %s", strerror(errno));
			kill(pid, SIGKILL);
			wait4(pid, status, 0, ru);
			return 1;
		}
		if (buf_fill(out) || buf_fill(err)) {
			/* Too much output: no report; stop it, keep reaping. */
			if (!term_sent)
				kill(pid, SIGKILL);
			term_sent = kill_sent = true;
			close(out->fd);
			close(err->fd);
			out->fd = err->fd = -1;
		}
	}
	/*
	 * Take what is left, but do not wait for EOF: a grandchild that
	 * outlived the workload may hold the pipes open.
	 */
	buf_fill(out);
	buf_fill(err);
	if (out->fd >= 0)
		close(out->fd);
	if (err->fd >= 0)
		close(err->fd);
	out->fd = err->fd = -1;
	return 0;
}

/* The workload's standard error under the error line, indented. */
static void show_stderr(const char *text)
{
	const char *line = text, *nl;

	if (!text || !*text) {
		fputs("  (nothing on its standard error)\n", stderr);
		return;
	}
	while (*line) {
		nl = strchr(line, '\n');
		fprintf(stderr, "  %.*s\n", (int)(nl ? nl - line : (long)strlen(line)),
			line);
		if (!nl)
			break;
		line = nl + 1;
	}
}

/* A failed run's standard error: kept, or already shown (--show-output). */
static void show_child_stderr(const struct bench_opts *o, const char *text)
{
	if (o->show_output)
		fputs("  (above, with --show-output)\n", stderr);
	else
		show_stderr(text);
}

/* Check the report and take what the bench needs from it. */
static int take_report(struct bench *b, const char *what, struct buf *out,
		       struct buf *err, struct bench_sample *smp)
{
	json_t *rep, *v, *passed;
	json_error_t jerr;

	rep = json_loadb(out->p ? out->p : "", out->n, 0, &jerr);
	v = rep ? json_object_get(rep, "value") : NULL;
	if (!json_is_object(rep) || !json_is_number(v)) {
		abpath_error("%s: %s printed no JSON report with a \"value\" "
			     "(%s); is it an abpath workload? Its standard "
			     "error:", what, b->o->workload,
			     rep ? "not an object with a number \"value\""
				 : jerr.text);
		show_stderr(err->p);
		json_decref(rep);
		return 1;
	}
	passed = json_object_get(json_object_get(rep, "checks"), "passed");
	if (!json_is_true(passed)) {
		abpath_error("%s: %s reported a failed check (checks.passed "
			     "is %s); its standard error:", what,
			     b->o->workload, passed ? "false" : "missing");
		show_stderr(err->p);
		json_decref(rep);
		return 1;
	}
	smp->value = json_number_value(v);
	smp->results = json_incref(json_object_get(rep, "results"));
	if (!b->metric) {
		const char *name = json_string_value(json_object_get(rep, "workload"));
		const char *metric = json_string_value(json_object_get(rep, "metric"));
		const char *unit = json_string_value(json_object_get(rep, "unit"));

		b->workload_name = strdup(name ? name : b->o->workload);
		b->metric = strdup(metric ? metric : "value");
		b->unit = strdup(unit ? unit : "");
		if (!b->workload_name || !b->metric || !b->unit) {
			abpath_error("out of memory");
			json_decref(smp->results);
			json_decref(rep);
			return 1;
		}
		/* A workload that does not say is taken to time something. */
		v = json_object_get(rep, "lower_is_better");
		b->lower_is_better = !json_is_false(v);
	}
	json_decref(rep);
	return 0;
}

static const struct counter_entry *find_entry(const struct counter_set *s,
					   const struct counter_entry *e)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->e[i].path, e->path) &&
		    !strcmp(s->e[i].mode, e->mode) &&
		    !strcmp(s->e[i].counter, e->counter))
			return &s->e[i];
	return NULL;
}

/*
 * {path: {counter: delta}} for the benched paths in the mode that ran.
 * A maximum (ns_max, any "*_max") is its value after the run: a
 * difference of maxima means nothing.  A counter that went down was reset
 * during the run, and has no delta (null).
 */
static json_t *counter_deltas(const struct ctl_paths *p, const char *mode,
			      const struct counter_set *before,
			      const struct counter_set *after)
{
	json_t *all = json_object(), *per;
	const struct counter_entry *e, *prev;

	for (int i = 0; i < p->n; i++) {
		per = json_object();
		for (size_t j = 0; j < after->n; j++) {
			e = &after->e[j];
			if (strcmp(e->path, p->name[i]) || strcmp(e->mode, mode))
				continue;
			prev = find_entry(before, e);
			if (bench_is_max_counter(e->counter) || !prev)
				json_object_set_new(per, e->counter,
						    json_integer((json_int_t)e->value));
			else if (e->value >= prev->value)
				json_object_set_new(per, e->counter,
						    json_integer((json_int_t)
							(e->value - prev->value)));
			else
				json_object_set_new(per, e->counter, json_null());
		}
		json_object_set_new(all, p->name[i], per);
	}
	return all;
}

/*
 * The benched path whose legacy arm the watchdog sent back to optimized
 * during a run, or NULL.  Such a run ran partly in the other mode, so it
 * measures neither.
 */
static const char *reverted_path(const struct ctl_paths *p,
				 const struct counter_set *before,
				 const struct counter_set *after)
{
	const struct counter_entry *e, *prev;

	for (size_t j = 0; j < after->n; j++) {
		e = &after->e[j];
		if (strcmp(e->counter, "watchdog_reverts") ||
		    strcmp(e->mode, "legacy") ||
		    !ctl_valid_path(p, e->path))
			continue;
		prev = find_entry(before, e);
		if (prev && e->value > prev->value)
			return e->path;
	}
	return NULL;
}

/*
 * Why a run did not measure mode @m, into @why (left "" for a good run):
 * the watchdog sent a benched path back to optimized during it (the run
 * then ran partly in the other mode), a cross-check disagreed (the
 * legacy arm did not do what it reproduces), or a path was not in @m at
 * the end (someone else switched it).  The counters, read before and
 * after every run, show a revert or a mismatch even when the mode is
 * back by the end; a switch and back by someone else is not seen.
 */
static void judge_run(const struct ctl_paths *p, enum bench_mode m,
		      const struct counter_set *before,
		      const struct counter_set *after, char *why, size_t len)
{
	const struct counter_entry *e, *prev;
	char now[CTL_NAME_MAX];
	const char *path;

	why[0] = '\0';
	path = reverted_path(p, before, after);
	if (path) {
		snprintf(why, len, "the watchdog sent %s back to optimized "
			 "during the run (a legacy call over its budget, "
			 "module parameter watchdog_us)", path);
		return;
	}
	for (size_t j = 0; j < after->n; j++) {
		e = &after->e[j];
		if (strcmp(e->counter, "mismatches") ||
		    !ctl_valid_path(p, e->path))
			continue;
		prev = find_entry(before, e);
		if (prev && e->value > prev->value) {
			snprintf(why, len, "%s counted %llu mismatch%s in %s "
				 "mode: its cross-check disagreed with the "
				 "stock code", e->path,
				 (unsigned long long)(e->value - prev->value),
				 e->value - prev->value == 1 ? "" : "es",
				 e->mode);
			return;
		}
	}
	for (int i = 0; i < p->n; i++) {
		if (ctl_path_mode(p->name[i], now, sizeof(now)))
			ctl_copy(now, sizeof(now), "unreadable");
		if (strcmp(now, bench_mode_name[m])) {
			snprintf(why, len, "%s was %s at the end of the run, "
				 "not %s: something else switched it",
				 p->name[i], now, bench_mode_name[m]);
			return;
		}
	}
}

/*
 * --prepare's command, in the mode of the run it prepares (it may warm a
 * cache the run then finds): 0, or 1 after saying why.
 */
static int run_prepare(const struct bench *b, const char *what)
{
	char *argv[] = { "/bin/sh", "-c", (char *)b->o->prepare, NULL };
	struct child c = { argv, false, false, false };
	struct buf out = { .fd = -1, .max = 1, .discard = true };
	struct buf err = { .fd = -1, .max = BENCH_KEEP_STDERR, .discard = true };
	struct rusage ru;
	double wall;
	int ret, status;

	ret = spawn(&c, &out, &err, &status, &ru, &wall);
	if (!ret && !stop_sig && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		abpath_error("%s: --prepare '%s' %s %d; its standard error:",
			     what, b->o->prepare,
			     WIFEXITED(status) ? "exited with status"
					       : "was killed by signal",
			     WIFEXITED(status) ? WEXITSTATUS(status)
					       : WTERMSIG(status));
		show_stderr(err.p);
		ret = 1;
	}
	free(out.p);
	free(err.p);
	return ret;
}

/*
 * A command's measurement: the wall time is the metric; user and system
 * time come from wait4, which counts the descendants the command waited
 * for (sh -c's children included).
 */
static int take_times(struct bench *b, double wall, const struct rusage *ru,
		      int status, struct bench_sample *smp)
{
	double user = (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6;
	double sys = (double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;

	smp->value = wall;
	/* exit_status is null for a signal death, signal null otherwise. */
	smp->results = json_pack("{s:f, s:f, s:f, s:f, s:I, s:o, s:o}",
				 "wall_s", wall, "user_s", user, "sys_s", sys,
				 "cpu_s", user + sys, "max_rss_kb",
				 (json_int_t)ru->ru_maxrss, "exit_status",
				 WIFEXITED(status) ?
				 json_integer(WEXITSTATUS(status)) : json_null(),
				 "signal", WIFSIGNALED(status) ?
				 json_integer(WTERMSIG(status)) : json_null());
	if (!b->metric) {
		b->workload_name = strdup("command");
		b->metric = strdup("wall");
		b->unit = strdup("s");
		b->lower_is_better = true;
	}
	if (!smp->results || !b->workload_name || !b->metric || !b->unit) {
		abpath_error("out of memory");
		return 1;
	}
	return 0;
}

/* "run 3 of 14 (optimized); last 1.23 ms, about 40 s left" */
static void progress(const struct bench *b, const char *what, double spent)
{
	char last[32] = "", left[64] = "";

	if (b->done) {
		const struct bench_sample *s = &b->s[b->done - 1];
		int runs = b->done;	/* runs end with a sample or the bench */
		double eta = spent / runs * (b->total - runs);

		out_fmt_sig(last, sizeof(last), s->value, 3);
		snprintf(left, sizeof(left), eta < 90 ? "%.0f s" : "%.0f min",
			 eta < 90 ? eta : eta / 60);
		fprintf(stderr, "abpath: bench: %s; last %s%s%s, about %s "
			"left\n", what, last, *b->unit ? " " : "", b->unit,
			left);
	} else {
		fprintf(stderr, "abpath: bench: %s\n", what);
	}
}

/*
 * A marker and what came before it, or false when the log cannot be read
 * (any more): then the runs from here on are not judged by it, and the
 * result says so instead of "read around every run".
 */
static bool log_mark(struct bench *b, struct kmsg_reports *r,
		     const char *what, const char *end)
{
	bool was_open = b->kmsg.open;

	if (!kmsg_mark(&b->kmsg, r, NULL, "%s %s", what, end))
		return true;
	if (was_open) {
		abpath_warn("%s: the kernel's log: %s; the runs from here on "
			    "are not checked for kernel reports", what,
			    strerror(b->kmsg.err));
		json_object_set_new(b->provenance, "kernel_log",
				    json_sprintf("read until %s: %s", what,
						 strerror(b->kmsg.err)));
		kmsg_close(&b->kmsg);
	}
	return false;
}

/*
 * Adds what the log held during @what (a run in mode @m, or the time
 * after one) to the run's sample: 0, or 1 after saying that the kernel
 * reported a problem, which fails the run.  Only RCU stall reports in
 * which no CPU stalled, during or right after a legacy run, are the
 * legacy arm's doing (kmsg.h); they are kept with the sample, said on
 * stderr, and named in the log for tests/vm/run.
 */
static int judge_reports(struct bench *b, const struct kmsg_reports *r,
			 int m, const char *what, struct bench_sample *smp)
{
	json_int_t n;

	if (!kmsg_any(r))
		return 0;
	if (m != BENCH_LEGACY || !kmsg_only_starved(r)) {
		if (r->lost)
			abpath_error("%s: the kernel's log overflowed before "
				     "abpath read it, so its reports cannot "
				     "be told apart; see dmesg", what);
		else
			abpath_error("%s: the kernel reported a problem "
				     "(dmesg from %.6f s): %s", what,
				     r->t_first, r->other ? r->first :
				     r->starved < r->stalls ?
				     "an RCU stall naming a stalled CPU" :
				     "an RCU stall with no CPU stalled, "
				     "outside a legacy run");
		return 1;
	}
	fprintf(stderr, "abpath: bench: %s: the kernel reported %d RCU "
		"stall%s (dmesg %.6f-%.6f s) with every CPU's quiescent state "
		"seen: the legacy arm left the grace-period kthread no CPU "
		"time, which is its collapse, not a CPU stuck; kept with the "
		"run\n", what, r->stalls, r->stalls == 1 ? "" : "s",
		r->t_first, r->t_last);
	kmsg_mark(&b->kmsg, NULL, NULL, "collapse reports %.6f-%.6f: %d RCU "
		  "stall%s, no CPU stalled, in %s", r->t_first, r->t_last,
		  r->stalls, r->stalls == 1 ? "" : "s", what);
	if (!smp)
		return 0;
	if (!smp->kernel_reports) {
		smp->kernel_reports = json_pack("{s:I, s:f}",
						"rcu_stalls_starved",
						(json_int_t)0, "from_s",
						r->t_first);
		if (!smp->kernel_reports) {
			abpath_error("out of memory");
			return 1;
		}
	}
	n = json_integer_value(json_object_get(smp->kernel_reports,
					       "rcu_stalls_starved"));
	json_object_set_new(smp->kernel_reports, "rcu_stalls_starved",
			    json_integer(n + r->stalls));
	json_object_set_new(smp->kernel_reports, "to_s", json_real(r->t_last));
	return 0;
}

static int run_one(struct bench *b, int i, double spent)
{
	struct bench_sample *smp = &b->s[b->done];
	struct counter_set before = { 0 }, after = { 0 };
	struct buf out = { .fd = -1, .max = BENCH_MAX_OUTPUT };
	struct buf err = { .fd = -1, .max = BENCH_MAX_OUTPUT };
	enum bench_mode m = bench_order(i, b->o->warmup);
	const struct bench_opts *o = b->o;
	char what[256], **argv = NULL;
	struct child c = { o->args, true, false, o->show_output };
	const char *name = o->command ? o->args[0] : o->workload;
	struct kmsg_reports gap = { 0 }, during = { 0 };
	struct rusage ru;
	double wall;
	int ret, status;

	json_decref(smp->kernel_reports);
	smp->kernel_reports = NULL;
	smp->invalid[0] = '\0';
	snprintf(what, sizeof(what), "%s%srun %d of %d (%s%s)",
		 o->label ? o->label : "", o->label ? ": " : "",
		 i + 1, b->total, bench_mode_name[m],
		 i < 2 * o->warmup ? ", warm-up" : "");
	progress(b, what, spent);
	if (o->command) {
		/* Only its errors matter: the start is enough to show. */
		err.max = BENCH_KEEP_STDERR;
		err.discard = true;
	} else {
		/* -j first: after the user's arguments it could follow "--". */
		argv = calloc((size_t)o->nargs + 3, sizeof(*argv));
		if (!argv) {
			abpath_error("out of memory");
			return 1;
		}
		argv[0] = (char *)o->exe;
		argv[1] = "-j";
		memcpy(argv + 2, o->args, (size_t)o->nargs * sizeof(*argv));
		c = (struct child){ argv, false, true, false };
	}
	ret = set_mode(&b->paths, m);
	if (!ret && o->prepare)
		ret = run_prepare(b, what);
	if (!ret && !stop_sig)
		ret = counters_read(&before);
	/* What came since the last run belongs to it (or to none). */
	if (!ret && !stop_sig &&
	    log_mark(b, &gap, what, "begins"))
		ret = judge_reports(b, &gap, b->last_mode, "between runs",
				    b->done ? &b->s[b->done - 1] : NULL);
	if (!ret && !stop_sig)
		ret = spawn(&c, &out, &err, &status, &ru, &wall);
	/*
	 * Ctrl-C reaches the workload too; if it died of it before our own
	 * signal got in, this is an interruption, not a failed run.
	 */
	signals_poll();
	if (ret || stop_sig)
		goto out;
	b->last_mode = m;
	if (log_mark(b, &during, what, "ends"))
		ret = judge_reports(b, &during, m, what, smp);
	if (ret)
		goto out;
	ret = counters_read(&after);
	if (ret)
		goto out;
	judge_run(&b->paths, m, &before, &after, smp->invalid,
		  sizeof(smp->invalid));
	if (o->ignore_failure && (WIFSIGNALED(status) || WEXITSTATUS(status))) {
		/* Kept, and said: a failure the user chose to measure. */
		fprintf(stderr, "abpath: bench: %s: %s %s %d; going on "
			"(--ignore-failure)\n", what, name,
			WIFSIGNALED(status) ? "was killed by signal"
					    : "exited with status",
			WIFSIGNALED(status) ? WTERMSIG(status)
					    : WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		abpath_error("%s: %s was killed by signal %d (%s); its "
			     "standard error:", what, name,
			     WTERMSIG(status), strsignal(WTERMSIG(status)));
		show_child_stderr(o, err.p);
		ret = 1;
		goto out;
	} else if (WEXITSTATUS(status)) {
		abpath_error("%s: %s exited with status %d; its standard "
			     "error:", what, name, WEXITSTATUS(status));
		show_child_stderr(o, err.p);
		if (o->command)
			fputs("  (to time a command that fails, add "
			      "--ignore-failure)\n", stderr);
		ret = 1;
		goto out;
	}
	if (o->command) {
		ret = take_times(b, wall, &ru, status, smp);
	} else {
		ret = take_report(b, what, &out, &err, smp);
		/* A successful run's warnings still belong to the user. */
		if (!ret && err.n)
			fputs(err.p, stderr);
	}
	if (ret)
		goto out;
	smp->index = i + 1;
	smp->mode = m;
	smp->warmup = i < 2 * o->warmup;
	smp->counters = counter_deltas(&b->paths, bench_mode_name[m], &before,
				       &after);
	b->done++;
	if (smp->invalid[0])
		fprintf(stderr, "abpath: bench: %s is invalid, left out of "
			"the statistics: %s\n", what, smp->invalid);
out:
	counters_free(&before);
	counters_free(&after);
	free(argv);
	free(out.p);
	free(err.p);
	return ret;
}

/* ---- the bench --------------------------------------------------------- */

void bench_free(struct bench *b)
{
	for (int i = 0; i < b->done; i++) {
		json_decref(b->s[i].counters);
		json_decref(b->s[i].results);
		json_decref(b->s[i].kernel_reports);
	}
	if (b->done < b->total && b->s)
		json_decref(b->s[b->done].kernel_reports);
	kmsg_close(&b->kmsg);
	free(b->s);
	free(b->workload_name);
	free(b->metric);
	free(b->unit);
	json_decref(b->provenance);
	*b = (struct bench){ 0 };
}

int bench_prepare(struct bench *b, const struct bench_opts *o)
{
	struct counter_set probe = { 0 };
	int ret;

	*b = (struct bench){ .o = o, .last_mode = -1 };
	if (!ctl_module_present())
		return ctl_explain_not_loaded();
	if (!strcmp(o->path, "all")) {
		ctl_path_names(&b->paths);
	} else {
		b->paths.n = 1;
		ctl_copy(b->paths.name[0], CTL_NAME_MAX, o->path);
	}
	/* Fail on a missing debugfs now, not after the first run. */
	ret = counters_read(&probe);
	counters_free(&probe);
	if (ret)
		return ret;

	kmsg_open(&b->kmsg);
	b->total = 2 * (o->warmup + o->runs);
	b->s = calloc((size_t)b->total, sizeof(*b->s));
	b->provenance = bench_provenance();
	if (!b->s || !b->provenance) {
		abpath_error("out of memory");
		return 1;
	}
	/* Whether a run's kernel reports were looked at, and if not why. */
	if (b->kmsg.open)
		json_object_set_new(b->provenance, "kernel_log",
				    json_string("read around every run"));
	else
		json_object_set_new(b->provenance, "kernel_log",
				    json_sprintf("unread: %s: %s", kmsg_path(),
						 strerror(b->kmsg.err)));
	return 0;
}

int bench_collect(struct bench *b)
{
	static bool atexit_armed;
	double t0 = mono_now();
	int ret, i;

	bench_signals_begin();
	ret = save_modes(&b->paths);
	if (!ret && !atexit_armed)
		atexit_armed = !atexit(restore_at_exit);
	for (i = 0; !ret && i < b->total; i++) {
		signals_poll();
		if (stop_sig)
			break;
		ret = run_one(b, i, mono_now() - t0);
		if (stop_sig)
			break;
	}
	b->restore_err = restore_modes();
	bench_signals_end();

	if (stop_sig) {
		fprintf(stderr, "abpath: bench: interrupted by %s in %s%srun %d "
			"of %d", bench_signal_name(stop_sig), b->o->label ? b->o->label : "", b->o->label ? ", " : "",
			i < b->total ? i + 1 : b->total, b->total);
		for (int k = 0; k < orig.n && !b->restore_err; k++)
			fprintf(stderr, "%s %s to %s", k ? "," : "; restored",
				orig.path[k], orig.mode[k]);
		fputc('\n', stderr);
		b->stop_sig = stop_sig;
		b->incomplete = true;
		ret = 128 + stop_sig;
	}
	return ret;
}
