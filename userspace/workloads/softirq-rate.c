// SPDX-License-Identifier: GPL-2.0
/*
 * softirq-rate: TIMER softirqs per second per CPU from /proc/softirqs.
 * Kernels that raise TIMER_SOFTIRQ on every tick (mainline until v5.9,
 * the v4.8 timer wheel included) show about HZ per busy CPU; since
 * "timer: Spare timer softirq until next expiry" (v5.9) it is raised only
 * when a timer-wheel timer is due, so a busy CPU without timers shows
 * almost none (abpath path timer_softirq).
 *
 * timerfd and nanosleep use hrtimers, which expire in hard interrupt
 * context and never raise TIMER_SOFTIRQ; a read with a timeout that goes
 * through schedule_timeout() arms a timer-wheel timer. The "timers"
 * scenario mixes all three so both kinds are pending.
 */
#define _GNU_SOURCE
#include "wl.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
	"Usage: softirq-rate [OPTIONS]\n"
	"Count TIMER softirqs per second on each CPU (the TIMER: line of\n"
	"/proc/softirqs) over S seconds while running a scenario:\n"
	"  busy    one busy thread pinned to each usable CPU, no timers\n"
	"  timers  the same plus K timer threads waking every P us, round robin:\n"
	"          timerfd, nanosleep (both hrtimers) and wheel, a timer-wheel\n"
	"          timer: a UNIX socket receive timeout, or without networking a\n"
	"          pty read with VTIME (needs /dev/pts; tenths of a second)\n"
	"  idle    nothing\n"
	"The mean is over the online CPUs (/sys/devices/system/cpu/online).\n"
	"Also reports, per busy CPU, the wake-ups (voluntary switches) and all\n"
	"context switches of its softirq threads, ksoftirqd/N and, where the\n"
	"kernel has it, ktimers/N: on PREEMPT_RT (and from 6.13 with threadirqs)\n"
	"each raise in hardirq wakes one of them.\n"
	"Metric: mean TIMER softirqs per second per CPU (lower is better).\n"
	"\n"
	"  -S, --scenario S    busy, timers or idle (busy)\n"
	"  -t, --seconds S     measuring time (2)\n"
	"  -k, --timers K      timer threads in the timers scenario (4)\n"
	"  -P, --period US     timer period, microseconds (4000)\n"
	"      --hz HZ         the kernel's HZ, to report softirqs per tick\n"
	"      --softirqs FILE read FILE instead of /proc/softirqs\n"
	"      --dump          print the parsed TIMER counters once and exit\n";

enum scenario { S_BUSY, S_TIMERS, S_IDLE };
static const char *const scen_name[] = { "busy", "timers", "idle" };
enum kind { K_TIMERFD, K_NANOSLEEP, K_WHEEL, NKINDS };
static const char *const kind_name[] = { "timerfd", "nanosleep", "wheel" };

struct sample {
	int n;
	int *cpu;			/* CPU number of each column */
	unsigned long long *timer;	/* TIMER count of each column */
};

/*
 * The header names one column per possible CPU ("CPU0 CPU1 ..."); the
 * TIMER: line has one count per column. Returns NULL on success, else
 * what was wrong.
 */
static const char *parse_softirqs(const char *path, struct sample *s)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *p, *end;
	size_t cap = 0;
	const char *err = "no TIMER: line";
	int cap_cpu = 0;

	s->n = 0;
	if (!f)
		return strerror(errno);
	if (getline(&line, &cap, f) < 0) {
		err = "empty file";
		goto out;
	}
	for (p = strtok(line, " \t\n"); p; p = strtok(NULL, " \t\n")) {
		long cpu;

		if (strncmp(p, "CPU", 3) || (cpu = strtol(p + 3, &end, 10), *end)
		    || end == p + 3) {
			err = "header is not a list of CPUn columns";
			goto out;
		}
		if (s->n == cap_cpu) {
			cap_cpu = cap_cpu ? 2 * cap_cpu : 64;
			s->cpu = realloc(s->cpu, cap_cpu * sizeof(*s->cpu));
			s->timer = realloc(s->timer, cap_cpu * sizeof(*s->timer));
			if (!s->cpu || !s->timer)
				wl_die("out of memory");
		}
		s->cpu[s->n++] = cpu;
	}
	if (!s->n) {
		err = "no CPU columns in the header";
		goto out;
	}
	while (getline(&line, &cap, f) >= 0) {
		p = line + strspn(line, " \t");
		if (strncmp(p, "TIMER:", 6))
			continue;
		p += 6;
		for (int i = 0; i < s->n; i++) {
			errno = 0;
			s->timer[i] = strtoull(p, &end, 10);
			if (end == p || errno) {
				err = "TIMER: line has fewer counts than CPU columns";
				goto out;
			}
			p = end;
		}
		err = *(p + strspn(p, " \t\n")) ?
			"TIMER: line has more counts than CPU columns" : NULL;
		break;
	}
out:
	free(line);
	fclose(f);
	return err;
}

static void sample_or_die(const char *path, struct sample *s)
{
	const char *err = parse_softirqs(path, s);

	if (err)
		wl_die("%s: %s", path, err);
}

/*
 * The context switches of each CPU's softirq threads, by CPU; -1 where
 * there is none. On PREEMPT_RT a softirq raised in hardirq runs in a
 * thread, so each raise costs a wake-up: one voluntary switch when the
 * thread sleeps again. Which thread depends on the kernel: ksoftirqd/N
 * up to 6.12, and from 6.13 ktimers/N for TIMER_SOFTIRQ whenever
 * interrupts are threaded (raise_timer_softirq(), also with threadirqs
 * on a non-RT kernel). Both are summed, so one count is right on every
 * kernel; other softirqs wake them the same in both modes. On other
 * kernels softirqs run on irq exit and the threads rarely wake.
 */
struct switches {
	long long *vol, *invol;
};

/* Which threads read_switches() found, for the report. */
enum { SW_KSOFTIRQD = 1, SW_KTIMERS = 2 };

static int read_switches(int max, struct switches *sw)
{
	char path[300], comm[32], line[128];
	struct dirent *d;
	int found = 0;
	DIR *proc;

	for (int i = 0; i < max; i++)
		sw->vol[i] = sw->invol[i] = -1;
	proc = opendir("/proc");
	if (!proc)
		wl_die_err(errno, "/proc");
	while ((d = readdir(proc))) {
		long long vol, invol;
		int cpu, kind;
		FILE *f;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;	/* gone meanwhile */
		kind = 0;
		if (fgets(comm, sizeof(comm), f)) {
			if (sscanf(comm, "ksoftirqd/%d", &cpu) == 1)
				kind = SW_KSOFTIRQD;
			else if (sscanf(comm, "ktimers/%d", &cpu) == 1)
				kind = SW_KTIMERS;
		}
		fclose(f);
		if (!kind || cpu < 0 || cpu >= max)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		vol = invol = -1;
		while (fgets(line, sizeof(line), f)) {
			sscanf(line, "voluntary_ctxt_switches: %lld", &vol);
			sscanf(line, "nonvoluntary_ctxt_switches: %lld", &invol);
		}
		fclose(f);
		if (vol < 0 || invol < 0)
			continue;
		if (sw->vol[cpu] < 0)
			sw->vol[cpu] = sw->invol[cpu] = 0;
		sw->vol[cpu] += vol;
		sw->invol[cpu] += invol;
		found |= kind;
	}
	closedir(proc);
	return found;
}

/* A cpulist ("0-3,6") as a bitmap of @max CPUs; NULL if unreadable. */
static bool *read_cpulist(const char *path, int max)
{
	FILE *f = fopen(path, "r");
	char buf[4096], *p, *end;
	bool *set;

	if (!f)
		return NULL;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	set = calloc(max, sizeof(*set));
	for (p = buf; *p && *p != '\n'; p = end + (*end == ',')) {
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long c = a; c <= b; c++)
			if (c >= 0 && c < max)
				set[c] = true;
	}
	return set;
}

static atomic_bool stop;
static long period_us = 4000;
static pthread_barrier_t barrier;

struct thr {
	pthread_t tid;
	int cpu;		/* busy: pinned to it; timer: -1 */
	enum kind kind;
	int fd, keep;		/* timer: what it reads, the other end */
	long long wakeups;
	uint64_t state;
} __attribute__((aligned(64)));

static void *busy(void *arg)
{
	struct thr *t = arg;
	uint64_t x = (uintptr_t)t;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	pthread_barrier_wait(&barrier);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		x = wl_spin(x, 1);
	t->state = x;
	return NULL;
}

/*
 * An fd whose read() blocks in schedule_timeout() for about @period_us: a
 * receive timeout on a UNIX socket, else (kernels without networking) a
 * pty slave with VTIME, which counts in tenths of a second. Sets *how to
 * the kind, or NULL and returns -1 if neither works. *keep is the other
 * end, to close afterwards.
 */
static int wheel_fd(int *keep, const char **how)
{
	struct timeval tv = { period_us / 1000000, period_us % 1000000 };
	struct termios tio;
	int sv[2], fd;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0) {
		if (setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
			wl_die_err(errno, "SO_RCVTIMEO");
		*keep = sv[1];
		*how = "sockrcv";
		return sv[0];
	}
	*keep = posix_openpt(O_RDWR | O_NOCTTY);
	if (*keep >= 0 && unlockpt(*keep) == 0 &&
	    (fd = ioctl(*keep, TIOCGPTPEER, O_RDWR | O_NOCTTY)) >= 0 &&
	    tcgetattr(fd, &tio) == 0) {
		cfmakeraw(&tio);
		tio.c_cc[VMIN] = 0;
		tio.c_cc[VTIME] = period_us >= 25500000 ? 255 :
				  (period_us + 99999) / 100000;
		if (tcsetattr(fd, TCSANOW, &tio))
			wl_die_err(errno, "pty: tcsetattr");
		*how = "pty";
		return fd;
	}
	if (*keep >= 0)
		close(*keep);
	*how = NULL;
	return -1;
}

static void *timer_loop(void *arg)
{
	struct thr *t = arg;
	struct timespec ts = { period_us / 1000000, period_us % 1000000 * 1000 };
	uint64_t n;

	pthread_barrier_wait(&barrier);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		switch (t->kind) {
		case K_TIMERFD:
			if (read(t->fd, &n, sizeof(n)) == sizeof(n))
				t->wakeups++;
			break;
		case K_NANOSLEEP:
			nanosleep(&ts, NULL);
			t->wakeups++;
			break;
		case K_WHEEL:
			/* Nothing is ever written: every read ends in the timeout. */
			if (read(t->fd, &n, 1) <= 0)
				t->wakeups++;
			break;
		case NKINDS:
			break;
		}
	}
	return NULL;
}

static void report_dump(const char *path, const struct sample *s)
{
	unsigned long long sum = 0;

	for (int i = 0; i < s->n; i++)
		sum += s->timer[i];
	wl_report_begin("timer_softirqs_total", sum, "softirqs", true);
	wl_obj("params");
	wl_str("softirqs", path);
	wl_str("scenario", "dump");
	wl_end();
	wl_obj("results");
	wl_arr("cpus");
	for (int i = 0; i < s->n; i++)
		wl_int(NULL, s->cpu[i]);
	wl_end();
	wl_arr("timer");
	for (int i = 0; i < s->n; i++)
		wl_int(NULL, s->timer[i]);
	wl_end();
	wl_end();
	exit(wl_report_end());
}

int main(int argc, char **argv)
{
	enum { OPT_HZ = 256, OPT_FILE, OPT_DUMP };
	static const struct option lopts[] = {
		{ "scenario", required_argument, NULL, 'S' },
		{ "seconds", required_argument, NULL, 't' },
		{ "timers", required_argument, NULL, 'k' },
		{ "period", required_argument, NULL, 'P' },
		{ "hz", required_argument, NULL, OPT_HZ },
		{ "softirqs", required_argument, NULL, OPT_FILE },
		{ "dump", no_argument, NULL, OPT_DUMP },
		WL_LONGOPTS, { 0 }
	};
	const char *path = "/proc/softirqs", *wheel = NULL;
	enum scenario scen = S_BUSY;
	double seconds = 2, t0, t1, sum = 0, busy_sum = 0, *rate;
	int ntimers = 4, hz = 0, c, err, nthr = 0, nmean = 0, nbusy = 0;
	long long wakeups[NKINDS] = { 0 }, maxcpu = 1;
	bool dump = false, *online, *busy_cpu, decreased = false;
	struct sample a = { 0 }, b = { 0 };
	struct switches swa, swb;
	double wake_sum = 0, switch_sum = 0;
	int nthread = 0, threads;
	struct thr *thr;
	cpu_set_t usable;

	wl_init("softirq-rate", usage);
	while ((c = getopt_long(argc, argv, "S:t:k:P:" WL_SHORTOPTS, lopts,
				NULL)) != -1) {
		switch (c) {
		case 'S':
			for (scen = 0; scen < 3 && strcmp(optarg, scen_name[scen]); scen++)
				;
			if (scen == 3)
				wl_usage_error("--scenario: '%s' is not busy, timers or idle",
					       optarg);
			break;
		case 't': seconds = wl_arg_double("--seconds", optarg, 0.001, 86400); break;
		case 'k': ntimers = wl_arg_ll("--timers", optarg, 0, 4096); break;
		case 'P': period_us = wl_arg_ll("--period", optarg, 1, 10000000); break;
		case OPT_HZ: hz = wl_arg_ll("--hz", optarg, 0, 100000); break;
		case OPT_FILE: path = optarg; break;
		case OPT_DUMP: dump = true; break;
		default: wl_common_opt(c);
		}
	}
	wl_no_args(argc, argv);

	sample_or_die(path, &a);
	if (dump)
		report_dump(path, &a);
	for (int i = 0; i < a.n; i++)
		if (a.cpu[i] >= maxcpu)
			maxcpu = a.cpu[i] + 1;
	if (maxcpu < CPU_SETSIZE)
		maxcpu = CPU_SETSIZE;
	online = read_cpulist("/sys/devices/system/cpu/online", maxcpu);
	busy_cpu = calloc(maxcpu, sizeof(*busy_cpu));
	swa.vol = calloc(4 * maxcpu, sizeof(long long));
	if (!busy_cpu || !swa.vol)
		wl_die("out of memory");
	swa.invol = swa.vol + maxcpu;
	swb.vol = swa.vol + 2 * maxcpu;
	swb.invol = swa.vol + 3 * maxcpu;
	if (sched_getaffinity(0, sizeof(usable), &usable) < 0)
		wl_die_err(errno, "sched_getaffinity");

	thr = calloc(CPU_SETSIZE + ntimers, sizeof(*thr));
	if (scen != S_IDLE) {
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, &usable) || (online && !online[cpu]))
				continue;
			thr[nthr].cpu = cpu;
			busy_cpu[cpu] = true;
			nthr++;
		}
	}
	for (int i = 0; scen == S_TIMERS && i < ntimers; i++, nthr++) {
		struct thr *t = &thr[nthr];
		struct timespec ts = { period_us / 1000000, period_us % 1000000 * 1000 };
		struct itimerspec its = { ts, ts };

		t->cpu = -1;
		t->kind = i % NKINDS;
		t->fd = t->keep = -1;
		if (t->kind == K_TIMERFD) {
			t->fd = timerfd_create(CLOCK_MONOTONIC, 0);
			if (t->fd < 0 || timerfd_settime(t->fd, 0, &its, NULL))
				wl_die_err(errno, "timerfd");
		} else if (t->kind == K_WHEEL) {
			t->fd = wheel_fd(&t->keep, &wheel);
			if (t->fd < 0)	/* keep K timers, if not their kind */
				t->kind = K_NANOSLEEP;
		}
	}
	pthread_barrier_init(&barrier, NULL, nthr + 1);
	for (int i = 0; i < nthr; i++) {
		err = pthread_create(&thr[i].tid, NULL,
				     thr[i].cpu >= 0 ? busy : timer_loop, &thr[i]);
		if (err)
			wl_die_err(err, "pthread_create");
	}
	pthread_barrier_wait(&barrier);

	read_switches(maxcpu, &swa);
	sample_or_die(path, &a);
	t0 = wl_now();
	wl_sleep(seconds);
	sample_or_die(path, &b);
	t1 = wl_now();
	threads = read_switches(maxcpu, &swb);
	atomic_store(&stop, true);
	for (int i = 0; i < nthr; i++) {
		pthread_join(thr[i].tid, NULL);
		wl_consume(thr[i].state);
		if (thr[i].cpu < 0) {
			wakeups[thr[i].kind] += thr[i].wakeups;
			close(thr[i].fd);
			close(thr[i].keep);
		}
	}
	if (a.n != b.n || memcmp(a.cpu, b.cpu, a.n * sizeof(*a.cpu)))
		wl_die("%s: the CPU columns changed during the run", path);

	rate = calloc(a.n, sizeof(*rate));
	for (int i = 0; i < a.n; i++) {
		int cpu = a.cpu[i];

		if (b.timer[i] < a.timer[i])
			decreased = true;
		rate[i] = (double)(b.timer[i] - a.timer[i]) / (t1 - t0);
		if (online && !online[cpu])
			continue;
		sum += rate[i];
		nmean++;
		if (busy_cpu[cpu]) {
			busy_sum += rate[i];
			nbusy++;
		}
	}
	for (int cpu = 0; cpu < maxcpu; cpu++) {
		if (!busy_cpu[cpu] || swa.vol[cpu] < 0 || swb.vol[cpu] < 0)
			continue;
		wake_sum += (swb.vol[cpu] - swa.vol[cpu]) / (t1 - t0);
		switch_sum += (swb.vol[cpu] + swb.invol[cpu] - swa.vol[cpu] -
			       swa.invol[cpu]) / (t1 - t0);
		nthread++;
	}
	wl_check("monotonic", !decreased,
		 "%s: a TIMER counter went backwards", path);

	wl_report_begin("timer_softirqs_per_cpu_s", nmean ? sum / nmean : 0,
			"softirqs/s", true);
	wl_obj("params");
	wl_str("scenario", scen_name[scen]);
	wl_num("seconds", seconds);
	wl_int("timers", scen == S_TIMERS ? ntimers : 0);
	wl_int("period_us", period_us);
	wl_str("softirqs", path);
	wl_end();
	wl_obj("results");
	wl_num("mean_per_cpu_s", nmean ? sum / nmean : 0);
	wl_num("per_busy_cpu_s", nbusy ? busy_sum / nbusy : NAN);
	wl_num("total_per_s", sum);
	if (hz > 0) {
		wl_int("hz", hz);
		wl_num("per_tick", nmean ? sum / nmean / hz : 0);
	} else {
		wl_null("hz");
		wl_null("per_tick");
	}
	wl_num("elapsed_s", t1 - t0);
	wl_arr("cpus");
	for (int i = 0; i < a.n; i++)
		if (!online || online[a.cpu[i]])
			wl_int(NULL, a.cpu[i]);
	wl_end();
	wl_arr("per_cpu");
	for (int i = 0; i < a.n; i++)
		if (!online || online[a.cpu[i]])
			wl_num(NULL, rate[i]);
	wl_end();
	wl_arr("busy_cpus");
	for (int i = 0; i < a.n; i++)
		if ((!online || online[a.cpu[i]]) && busy_cpu[a.cpu[i]])
			wl_int(NULL, a.cpu[i]);
	wl_end();
	/* The busy CPUs' softirq threads: null where there is none. */
	wl_obj("softirq_thread");
	wl_str("threads", threads == (SW_KSOFTIRQD | SW_KTIMERS) ?
	       "ksoftirqd/N+ktimers/N" : threads == SW_KTIMERS ? "ktimers/N" :
	       threads == SW_KSOFTIRQD ? "ksoftirqd/N" : "none");
	wl_num("wakeups_per_busy_cpu_s", nthread ? wake_sum / nthread : NAN);
	wl_num("switches_per_busy_cpu_s", nthread ? switch_sum / nthread : NAN);
	if (hz > 0 && nthread)
		wl_num("wakeups_per_tick", wake_sum / nthread / hz);
	else
		wl_null("wakeups_per_tick");
	wl_end();
	if (wheel)
		wl_str("wheel_timer", wheel);
	else
		wl_null("wheel_timer");
	wl_obj("timer_wakeups");
	for (int k = 0; k < NKINDS; k++)
		wl_int(kind_name[k], wakeups[k]);
	wl_end();
	wl_end();
	return wl_report_end();
}
