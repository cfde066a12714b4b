// SPDX-License-Identifier: GPL-2.0
/*
 * kfiles-fuzz: hostile writes to every file the abpath module makes, each
 * judged against a model of what the file accepts (docs/design.md,
 * "sysfs", "debugfs", "Module parameters").
 *
 *   kfiles-fuzz [-n WRITES] [-j THREADS] [-f FLIPPERS] [-s SEED] [-v]
 *
 * The files are found by walking /sys/kernel/abpath, /sys/kernel/debug/abpath
 * and /sys/module/abpath/parameters, not listed here; a writable file the
 * model has no grammar for is an error, so a new file cannot go unfuzzed.
 *
 * WRITES (default 20000) hostile writes are shared by THREADS threads
 * (default 4), round robin over the files. Every other write to a file is
 * random bytes at the next length of a sweep of 0..PAGE_SIZE, PAGE_SIZE+1
 * and 2*PAGE_SIZE (the edges first, then the rest spread out); the others
 * are mutations of the file's valid words: prefixes, suffixes, case,
 * whitespace, NULs, numbers out of range, a non-zero offset. The input of
 * write i depends only on SEED and i, whichever thread makes it.
 *
 * Meanwhile FLIPPERS threads (default 2) write valid words: every path's
 * mode and the global mode, sample_shift, always_lock, a watchdog budget
 * that cannot trip (0 or over 1000 s), inject's "<path> 0"; a forked load
 * churns fork and exit and runs threads under a 1 ms ITIMER_PROF calling
 * times(). The valid writers hold the model's lock across a write and the
 * model's update; an invalid write holds nothing, so it races them in the
 * kernel, and its check reads the state back under the lock, where only
 * what the valid writers set may show.
 *
 * The oracle, for every write: it returns what the model says (the
 * documented error, or the whole write for a valid word); after an invalid
 * one, the files it could have changed read back the model's state; the
 * counters never go backwards, mismatches and watchdog_reverts stay 0.
 * A hostile input that happens to be a valid word is made as a valid write
 * (and counted), unless its effect is one the run cannot allow: a reset
 * (the counters must only grow), inject with n > 0 (mismatches on
 * purpose), a watchdog budget that could trip (a revert the model cannot
 * predict): those are skipped and counted.
 *
 * Exit 0 when every write met the model, 1 on a mismatch (each of the
 * first 20 printed, with the input) or an error, 2 on usage errors.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/times.h>
#include <sys/wait.h>

#define USAGE \
	"usage: kfiles-fuzz [-n WRITES] [-j THREADS] [-f FLIPPERS] [-s SEED] [-v]\n"

#include "progs.h"

#define MAXFILES	128
#define MAXPATHS	16
#define MAXSTATS	1024
#define NAMELEN		64
/* A watchdog budget at or over this many us cannot trip in a test run. */
#define SAFE_BUDGET_US	1000000000u
#define INJECT_MAX	1000000u

static const char *const roots[] = {
	"/sys/kernel/abpath",
	"/sys/kernel/debug/abpath",
	"/sys/module/abpath/parameters",
};
enum root { R_SYS, R_DBG, R_PARAM };

enum kind { K_RO, K_MODE_ALL, K_MODE_PATH, K_RESET, K_INJECT, K_PLIST, K_PBOOL };
static const char *const kind_names[] = {
	"read-only", "global mode", "path mode", "reset", "inject",
	"per-path parameter", "bool parameter",
};

struct kfile {
	char path[PATH_MAX];
	enum kind kind;
	enum root root;
	int idx;		/* K_MODE_PATH: path; K_PLIST, K_PBOOL: parameter */
	unsigned int max;	/* K_PLIST: largest value */
	bool constant;		/* K_RO in sysfs: reads back the same always */
	char initial[256];
};

static struct kfile files[MAXFILES];
static int nfiles, nwritable;

/* The model: what the valid writers last set. Guarded by model_lock. */
static struct {
	int npaths;
	char name[MAXPATHS][NAMELEN];
	bool avail[MAXPATHS];
	bool legacy[MAXPATHS];
	int nchecked;
	char checked[MAXPATHS][NAMELEN];
	unsigned int plist[MAXFILES][MAXPATHS];
	bool pbool[MAXFILES];
} M;
static pthread_mutex_t model_lock = PTHREAD_MUTEX_INITIALIZER;

static long page;
static long nwrites = 20000;
static uint64_t seed = 1;
static bool verbose;
static atomic_long next_write, done_flag;
static atomic_long n_hostile, n_refused, n_noop, n_valid_chance, n_skipped;
static atomic_long n_flips, n_checks, n_stats_reads, n_mismatch;
static pthread_mutex_t plock = PTHREAD_MUTEX_INITIALIZER;

/* The sweep of lengths: 0..page, page + 1, 2 * page, edges first. */
static size_t *lens;
static long nlens;

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int rnd(uint64_t *x, unsigned int n)
{
	return n ? splitmix(x) % n : 0;
}

/* The input as C escapes, at most 80 bytes of it, for a report. */
static const char *escape(const char *buf, size_t len, char *out, size_t outsz)
{
	size_t o = 0, i;

	for (i = 0; i < len && i < 80 && o + 8 < outsz; i++) {
		unsigned char c = buf[i];

		if (c == '\n')
			o += sprintf(out + o, "\\n");
		else if (c == '\\')
			o += sprintf(out + o, "\\\\");
		else if (isprint(c))
			out[o++] = c;
		else
			o += sprintf(out + o, "\\x%02x", c);
	}
	if (i < len)
		o += snprintf(out + o, outsz - o, "...");
	out[o] = '\0';
	return out;
}

static void mismatch(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void mismatch(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&n_mismatch, 1) >= 20)
		return;
	pthread_mutex_lock(&plock);
	fprintf(stderr, "kfiles-fuzz: mismatch: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	pthread_mutex_unlock(&plock);
}

/* The whole file into buf (NUL-terminated); its length, or -errno. */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
	ssize_t n = 0, len = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	while ((size_t)len < size - 1 &&
	       (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	if (n < 0)
		len = -errno;
	close(fd);
	if (len >= 0)
		buf[len] = '\0';
	return len;
}

struct result {
	ssize_t ret;	/* bytes written, or -errno */
	bool at_open;	/* the error came from open(2) */
};

static struct result do_write(const char *path, const char *buf, size_t len,
			      off_t off)
{
	struct result r = { 0, false };
	int fd = open(path, O_WRONLY);

	if (fd < 0) {
		r.ret = -errno;
		r.at_open = true;
		return r;
	}
	r.ret = off ? pwrite(fd, buf, len, off) : write(fd, buf, len);
	if (r.ret < 0)
		r.ret = -errno;
	close(fd);
	return r;
}

/* ---- the model's grammars ---- */

struct expect {
	int err;	/* 0: accepted; else the errno */
	bool at_open;
	ssize_t ret;	/* accepted: what write(2) returns */
	bool skip;	/* valid, but an effect the run cannot allow */
	/* the effect of an accepted write, applied under model_lock */
	int legacy;	/* mode files: 1 legacy, 0 optimized, -1 none */
	int nvals;	/* K_PLIST: 1 or M.npaths values */
	unsigned int vals[MAXPATHS];
	int bval;	/* K_PBOOL: -1 none */
};

/* kstrtouint(s, 0, ...) as lib/kstrtox.c reads it; false where it fails. */
static bool k_strtouint(const char *s, unsigned int *res)
{
	unsigned long long acc = 0;
	unsigned int base;
	bool ovf = false;
	int rv = 0;

	if (*s == '+')
		s++;
	if (s[0] == '0') {
		if ((s[1] | 0x20) == 'x' && isxdigit((unsigned char)s[2])) {
			base = 16;
			s += 2;
		} else {
			base = 8;
		}
	} else {
		base = 10;
	}
	for (;; s++, rv++) {
		unsigned int c = (unsigned char)*s, lc = c | 0x20, v;

		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (lc >= 'a' && lc <= 'f')
			v = lc - 'a' + 10;
		else
			break;
		if (v >= base)
			break;
		if ((acc & (~0ULL << 60)) && acc > (ULLONG_MAX - v) / base)
			ovf = true;
		acc = acc * base + v;
	}
	if (ovf || !rv)
		return false;
	if (*s == '\n')
		s++;
	if (*s || acc > UINT_MAX)
		return false;
	*res = acc;
	return true;
}

/* kstrtobool() of 6.12: the first one or two characters decide. */
static int k_strtobool(const char *s)
{
	switch (s[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		return 1;
	case 'n': case 'N': case 'f': case 'F': case '0':
		return 0;
	case 'o': case 'O':
		if ((s[1] | 0x20) == 'n')
			return 1;
		if ((s[1] | 0x20) == 'f')
			return 0;
	}
	return -1;
}

/* sysfs_streq() on a write of no NUL: WORD, or WORD and one newline. */
static bool word_is(const char *buf, size_t n, const char *word)
{
	size_t wl = strlen(word);

	if (memchr(buf, '\0', n))
		return false;
	return (n == wl || (n == wl + 1 && buf[wl] == '\n')) &&
	       !memcmp(buf, word, wl);
}

static void model_inject(struct expect *e, const char *buf, size_t n)
{
	char s[64], *arg, *name;
	unsigned long long v = 0;
	bool found = false;
	int i;

	e->err = EINVAL;
	/* an embedded NUL would make "<path> 0\0" look like "<path> 0" */
	if (memchr(buf, '\0', n))
		return;
	memcpy(s, buf, n);
	s[n] = '\0';
	if (s[n - 1] == '\n')
		s[n - 1] = '\0';
	arg = s;
	name = strsep(&arg, " ");
	for (i = 0; i < M.nchecked; i++)
		found |= !strcmp(name, M.checked[i]);
	if (!found)
		return;
	if (arg) {
		if (!*arg || arg[strspn(arg, "0123456789")])
			return;
		for (; *arg && v <= INJECT_MAX; arg++)
			v = v * 10 + (*arg - '0');
		if (v > INJECT_MAX)
			return;
	} else {
		v = 1;
	}
	e->err = 0;
	e->ret = n;
	e->skip = v > 0;
}

static void model_plist(const struct kfile *f, struct expect *e,
			const char *buf, size_t n)
{
	char *s = strndup(buf, n), *cur = s, *tok;
	unsigned int v;
	int k = 0, i;
	bool ok = true;

	if (!s)
		fail("out of memory");
	e->err = EINVAL;
	while ((tok = strsep(&cur, ","))) {
		if (k == M.npaths || !k_strtouint(tok, &v) || v > f->max) {
			ok = false;
			break;
		}
		e->vals[k++] = v;
	}
	free(s);
	if (!ok || (k != 1 && k != M.npaths))
		return;
	e->err = 0;
	e->ret = n;
	e->nvals = k;
	/* watchdog_us: a budget that can trip is a revert the model can't see */
	if (f->max == UINT_MAX)
		for (i = 0; i < k; i++)
			if (e->vals[i] && e->vals[i] < SAFE_BUDGET_US)
				e->skip = true;
}

static struct expect model(const struct kfile *f, const char *buf, size_t len,
			   off_t off)
{
	struct expect e = { .err = EINVAL, .legacy = -1, .bval = -1 };
	bool kernfs = f->root != R_DBG;
	/* kernfs hands sysfs the first page of a longer write */
	size_t n = kernfs && len > (size_t)page ? (size_t)page : len;
	int i;

	if (!kernfs && off && f->kind != K_RESET) {
		/* a seq_file (inject, and every read-only one) cannot pwrite(2) */
		e.err = ESPIPE;
		return e;
	}
	if (f->kind == K_RO) {
		/* kernfs refuses to open a file without write permission, for
		 * root too; debugfs opens it and the write finds no method */
		if (kernfs) {
			e.err = EACCES;
			e.at_open = true;
		}
		return e;
	}
	if (kernfs && !n) {
		/* a zero-length write never reaches the store method */
		e.err = 0;
		return e;
	}
	if (!kernfs && (off || !len || len >= (f->kind == K_RESET ? 3 : 48)))
		return e;

	switch (f->kind) {
	case K_MODE_ALL:
	case K_MODE_PATH:
		if (word_is(buf, n, "legacy"))
			e.legacy = 1;
		else if (word_is(buf, n, "optimized"))
			e.legacy = 0;
		else
			return e;
		if (e.legacy) {
			for (i = 0; i < M.npaths; i++)
				if (!M.avail[i] &&
				    (f->kind == K_MODE_ALL || i == f->idx))
					e.err = EOPNOTSUPP;
			if (e.err == EOPNOTSUPP) {
				e.legacy = -1;
				return e;
			}
		}
		e.err = 0;
		e.ret = n;
		return e;
	case K_RESET:
		if (word_is(buf, n, "1")) {
			e.err = 0;
			e.ret = n;
			e.skip = true;
		}
		return e;
	case K_INJECT:
		model_inject(&e, buf, n);
		return e;
	case K_PLIST:
		/* a parameter is handed over as a string: up to the first NUL */
		model_plist(f, &e, buf, strnlen(buf, n));
		if (!e.err)
			e.ret = n;
		return e;
	case K_PBOOL: {
		char *s = strndup(buf, n);

		if (!s)
			fail("out of memory");
		e.bval = k_strtobool(s);
		free(s);
		if (e.bval >= 0) {
			e.err = 0;
			e.ret = n;
		}
		return e;
	}
	default:
		return e;
	}
}

/* ---- state: what the files read back, against the model ---- */

static void expected_text(const struct kfile *f, char *out, size_t size)
{
	int i, legacy = 0;
	size_t o = 0;

	switch (f->kind) {
	case K_MODE_PATH:
		snprintf(out, size, M.legacy[f->idx] ? "[legacy] optimized\n" :
			 "legacy [optimized]\n");
		return;
	case K_MODE_ALL:
		for (i = 0; i < M.npaths; i++)
			legacy += M.legacy[i];
		snprintf(out, size, "%s\n", !legacy ? "optimized" :
			 legacy == M.npaths ? "legacy" : "mixed");
		return;
	case K_INJECT:
		for (i = 0; i < M.nchecked; i++)
			o += snprintf(out + o, size - o, "%s 0\n", M.checked[i]);
		out[o] = '\0';
		return;
	case K_PLIST:
		for (i = 0; i < M.npaths; i++)
			o += snprintf(out + o, size - o, "%s%u", i ? "," : "",
				      M.plist[f->idx][i]);
		snprintf(out + o, size - o, "\n");
		return;
	case K_PBOOL:
		snprintf(out, size, "%c\n", M.pbool[f->idx] ? 'Y' : 'N');
		return;
	default:
		snprintf(out, size, "%s", f->initial);
	}
}

static bool has_state(const struct kfile *f)
{
	return f->kind != K_RO ? f->kind != K_RESET : f->constant;
}

/* Caller holds model_lock. One file's state against the model. */
static void check_file(const struct kfile *f, const char *after)
{
	char got[4096], want[4096];

	if (!has_state(f))
		return;
	expected_text(f, want, sizeof(want));
	if (read_file(f->path, got, sizeof(got)) < 0)
		snprintf(got, sizeof(got), "(unreadable: %s)", strerror(errno));
	atomic_fetch_add(&n_checks, 1);
	if (strcmp(got, want)) {
		char g[400], w[400];

		mismatch("%s reads \"%s\", the model \"%s\", after %s", f->path,
			 escape(got, strlen(got), g, sizeof(g)),
			 escape(want, strlen(want), w, sizeof(w)), after);
	}
}

/* Caller holds model_lock: the files a write to f could have changed. */
static void check_group(const struct kfile *f, const char *after)
{
	int i;

	for (i = 0; i < nfiles; i++) {
		const struct kfile *g = &files[i];

		if (!f || g == f ||
		    ((f->kind == K_MODE_ALL || f->kind == K_MODE_PATH) &&
		     (g->kind == K_MODE_ALL || g->kind == K_MODE_PATH)))
			check_file(g, after);
	}
}

/* Counters: each only grows, mismatches and watchdog_reverts stay 0. */
static struct {
	pthread_mutex_t lock;
	int n;
	char key[MAXSTATS][200];
	unsigned long long val[MAXSTATS];
	bool have;
} S = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void check_stats(const char *after)
{
	static char buf[1 << 17];
	char *line, *save = NULL;
	int n = 0;

	pthread_mutex_lock(&S.lock);
	if (read_file("/sys/kernel/debug/abpath/stats", buf, sizeof(buf)) < 0) {
		mismatch("debugfs stats unreadable (%s) after %s", strerror(errno), after);
		goto out;
	}
	atomic_fetch_add(&n_stats_reads, 1);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char p[NAMELEN], m[NAMELEN], c[NAMELEN], key[200];
		unsigned long long v;

		if (sscanf(line, "%63s %63s %63s %llu", p, m, c, &v) != 4 ||
		    n == MAXSTATS) {
			mismatch("debugfs stats line \"%s\" after %s", line, after);
			continue;
		}
		snprintf(key, sizeof(key), "%s %s %s", p, m, c);
		if ((!strcmp(c, "mismatches") || !strcmp(c, "watchdog_reverts")) && v)
			mismatch("%s is %llu, not 0, after %s", key, v, after);
		if (S.have && (n >= S.n || strcmp(S.key[n], key)))
			mismatch("debugfs stats line %d is \"%s\", was \"%s\", after %s",
				 n + 1, key, n < S.n ? S.key[n] : "(none)", after);
		else if (S.have && v < S.val[n])
			mismatch("%s went back from %llu to %llu after %s", key,
				 S.val[n], v, after);
		strcpy(S.key[n], key);
		S.val[n++] = v;
	}
	if (S.have && n != S.n)
		mismatch("debugfs stats has %d lines, had %d, after %s", n, S.n, after);
	S.n = n;
	S.have = true;
out:
	pthread_mutex_unlock(&S.lock);
}

static unsigned long long stat_of(const char *path, const char *mode,
				  const char *counter)
{
	char key[200];
	int i;

	snprintf(key, sizeof(key), "%s %s %s", path, mode, counter);
	for (i = 0; i < S.n; i++)
		if (!strcmp(S.key[i], key))
			return S.val[i];
	return 0;
}

/* ---- writes ---- */

static const char *describe(const struct kfile *f, const char *buf, size_t len,
			    off_t off, char *out, size_t size)
{
	char e[400];

	snprintf(out, size, "the write of \"%s\" (%zu bytes%s) to %.200s",
		 escape(buf, len, e, sizeof(e)), len, off ? ", at an offset" : "",
		 f->path);
	return out;
}

/* Did the kernel answer as the model says? */
static bool answered(const struct kfile *f, const struct expect *e,
		     struct result r, const char *what)
{
	if (e->err) {
		if (r.ret == -e->err && r.at_open == e->at_open)
			return true;
		mismatch("%s returned %s%s, the model: %s%s", what,
			 r.ret >= 0 ? "success" : strerror(-r.ret),
			 r.at_open ? " at open" : "", strerror(e->err),
			 e->at_open ? " at open" : "");
		return false;
	}
	if (r.ret == e->ret)
		return true;
	if (r.ret < 0)
		mismatch("%s failed (%s%s), the model: %zd bytes written", what,
			 strerror(-r.ret), r.at_open ? " at open" : "", e->ret);
	else
		mismatch("%s wrote %zd bytes, the model: %zd", what, r.ret, e->ret);
	(void)f;
	return false;
}

/* Caller holds model_lock: the model takes an accepted write's effect. */
static void apply(const struct kfile *f, const struct expect *e)
{
	int i;

	switch (f->kind) {
	case K_MODE_ALL:
		for (i = 0; i < M.npaths; i++)
			M.legacy[i] = e->legacy;
		break;
	case K_MODE_PATH:
		M.legacy[f->idx] = e->legacy;
		break;
	case K_PLIST:
		for (i = 0; i < M.npaths; i++)
			M.plist[f->idx][i] = e->vals[e->nvals == 1 ? 0 : i];
		break;
	case K_PBOOL:
		M.pbool[f->idx] = e->bval;
		break;
	default:
		break;
	}
}

/* A valid word: under model_lock, the write, the model's update, the check. */
static void valid_write(const struct kfile *f, const char *buf, size_t len,
			off_t off, const struct expect *e)
{
	char what[800];
	struct result r;

	describe(f, buf, len, off, what, sizeof(what));
	pthread_mutex_lock(&model_lock);
	r = do_write(f->path, buf, len, off);
	if (answered(f, e, r, what))
		apply(f, e);
	check_group(f, what);
	pthread_mutex_unlock(&model_lock);
}

static void hostile_write(const struct kfile *f, const char *buf, size_t len,
			  off_t off)
{
	struct expect e;
	struct result r;
	char what[800];

	/* the model's grammar reads only M's constant parts here */
	e = model(f, buf, len, off);
	if (e.skip) {
		atomic_fetch_add(&n_skipped, 1);
		return;
	}
	if (!e.err && len) {
		atomic_fetch_add(&n_valid_chance, 1);
		valid_write(f, buf, len, off, &e);
		return;
	}
	atomic_fetch_add(&n_hostile, 1);
	atomic_fetch_add(e.err ? &n_refused : &n_noop, 1);
	r = do_write(f->path, buf, len, off);
	describe(f, buf, len, off, what, sizeof(what));
	answered(f, &e, r, what);
	if (f->kind == K_RESET || (f->kind == K_RO && !f->constant)) {
		check_stats(what);
		return;
	}
	pthread_mutex_lock(&model_lock);
	check_group(f, what);
	pthread_mutex_unlock(&model_lock);
}

/* ---- inputs ---- */

/*
 * The valid words of each kind of file, and the near misses beside them,
 * in the order gen_input() draws from (a seed replays the same writes).
 */
static const char *const mode_words[] = {
	"legacy", "optimized", "legacy\n", "optimized\n", "mixed", NULL
};
static const char *const reset_words[] = { "1", "1\n", "0", NULL };
static const char *const inject_words[] = { "timer_softirq 0", NULL };
static const char *const plist_words[] = {
	"0", "20", "21", "4294967295", "4294967296", "18446744073709551616",
	"0x10", "010", "-1", NULL
};
static const char *const pbool_words[] = {
	"Y", "N", "on", "off", "xyz", NULL
};
static const char *const other_words[] = { "1", "legacy", NULL };

static int add_words(char words[][96], int n, const char *const *w)
{
	for (; *w; w++)
		snprintf(words[n++], 96, "%s", *w);
	return n;
}

static int words_of(const struct kfile *f, char words[][96])
{
	int n = 0, i;

	switch (f->kind) {
	case K_MODE_ALL:
	case K_MODE_PATH:
		n = add_words(words, n, mode_words);
		break;
	case K_RESET:
		n = add_words(words, n, reset_words);
		break;
	case K_INJECT:
		for (i = 0; i < M.nchecked; i++) {
			snprintf(words[n++], 96, "%s", M.checked[i]);
			snprintf(words[n++], 96, "%s 0", M.checked[i]);
			snprintf(words[n++], 96, "%s %u", M.checked[i], INJECT_MAX + 1);
		}
		n = add_words(words, n, inject_words);
		break;
	case K_PLIST:
		/* and one whole list, a value per path */
		n = add_words(words, n, plist_words);
		words[n][0] = '\0';
		for (i = 0; i < M.npaths; i++)
			sprintf(words[n] + strlen(words[n]), "%s%u", i ? "," : "",
				i % 2 ? 0 : SAFE_BUDGET_US);
		n++;
		break;
	case K_PBOOL:
		n = add_words(words, n, pbool_words);
		break;
	default:
		n = add_words(words, n, other_words);
		snprintf(words[n++], 96, "%.95s", f->initial);
		break;
	}
	return n;
}

static const char *const tokens[] = {
	" ", "\n", "\t", "\r", "\v", "\f", "\n\n", "x", "1", "0", ",", "-",
	"+", "legacy", "optimized", "\xff", "\xc3\xa9", "0x", "99999999999999999999",
};

/* One mutation of buf (len bytes, room for 256); returns the new length. */
static size_t mutate(char *buf, size_t len, uint64_t *x)
{
	size_t at = len ? rnd(x, len + 1) : 0, tl;
	const char *t = tokens[rnd(x, sizeof(tokens) / sizeof(tokens[0]))];
	static const char ws[] = " \t\n\r\v\f";

	if (len > 200)
		return len;
	switch (rnd(x, 11)) {
	case 0:		/* a prefix */
		return len ? rnd(x, len) : 0;
	case 1:		/* a token appended */
	case 2:		/* or put in front, or inside */
		tl = strlen(t);
		if (rnd(x, 2))
			at = rnd(x, 2) ? 0 : len;
		memmove(buf + at + tl, buf + at, len - at);
		memcpy(buf + at, t, tl);
		return len + tl;
	case 3:		/* case */
		if (rnd(x, 2)) {
			for (size_t i = 0; i < len; i++)
				buf[i] = isupper((unsigned char)buf[i]) ?
					 tolower(buf[i]) : toupper(buf[i]);
		} else if (len) {
			at = rnd(x, len);
			buf[at] ^= isalpha((unsigned char)buf[at]) ? 0x20 : 0;
		}
		return len;
	case 4:		/* whitespace */
		memmove(buf + at + 1, buf + at, len - at);
		buf[at] = ws[rnd(x, sizeof(ws) - 1)];
		return len + 1;
	case 5:		/* a NUL */
		memmove(buf + at + 1, buf + at, len - at);
		buf[at] = '\0';
		return len + 1;
	case 6:		/* the word twice */
		memcpy(buf + len, buf, len);
		return len * 2;
	case 7:		/* a number out of range in place of the digits */
		tl = len;
		len = 0;
		for (size_t i = 0; i < tl; i++)
			if (!isdigit((unsigned char)buf[i]))
				buf[len++] = buf[i];
		len += sprintf(buf + len, "%s", (const char *[]){
			"4294967296", "18446744073709551615", "99999999999999999999999",
			"1000001", "21", "-1", "+5", "1e3", "0x1g", "0xffffffff",
			"037777777777", "040000000000" }[rnd(x, 12)]);
		return len;
	case 8:		/* a bit */
		if (len)
			buf[rnd(x, len)] ^= 1 << rnd(x, 8);
		return len;
	case 9:		/* a byte less */
		if (len) {
			at = rnd(x, len);
			memmove(buf + at, buf + at + 1, len - at - 1);
			len--;
		}
		return len;
	default:	/* one more newline */
		buf[len] = '\n';
		return len + 1;
	}
}

static void gen_input(const struct kfile *f, long j, uint64_t *x, char *buf,
		      size_t *len, off_t *off)
{
	static const char alpha[] = "legacyoptimzd 01\n\t,+-xXyYnN_";
	char words[64][96];
	int nw, k, i;

	*off = 0;
	if (j % 2 == 0) {
		/* random bytes at the sweep's next length */
		*len = lens[(j / 2) % nlens];
		bool text = (j / 2 / nlens + j / 2) % 2;

		for (size_t b = 0; b < *len; b++)
			buf[b] = text ? alpha[rnd(x, sizeof(alpha) - 1)] :
					(char)rnd(x, 256);
		return;
	}
	nw = words_of(f, words);
	strcpy(buf, words[rnd(x, nw)]);
	*len = strlen(buf);
	if (f->kind == K_PLIST && rnd(x, 2)) {
		/* one value per path, one of them mutated */
		char one[256];
		size_t ol = 0;
		int bad = rnd(x, M.npaths);

		*len = 0;
		for (i = 0; i < M.npaths; i++) {
			strcpy(one, "0");
			ol = 1;
			if (i == bad)
				ol = mutate(one, ol, x);
			if (i)
				buf[(*len)++] = ',';
			memcpy(buf + *len, one, ol);
			*len += ol;
		}
		return;
	}
	for (k = 1 + rnd(x, 3); k > 0; k--)
		*len = mutate(buf, *len, x);
	if (rnd(x, 16) == 0)
		*off = 1 + rnd(x, 8);
}

static void *hostile(void *arg)
{
	char *buf = malloc(2 * page + 512);
	long i;

	(void)arg;
	if (!buf)
		fail("out of memory");
	while ((i = atomic_fetch_add(&next_write, 1)) < nwrites) {
		const struct kfile *f = &files[i % nfiles];
		uint64_t x = seed * 0x2545f4914f6cdd1dULL + i;
		size_t len;
		off_t off;

		gen_input(f, i / nfiles, &x, buf, &len, &off);
		hostile_write(f, buf, len, off);
	}
	free(buf);
	return NULL;
}

/* The valid writers: every path flips, and the parameters move. */
static void *flipper(void *arg)
{
	uint64_t x = seed ^ (uintptr_t)arg;
	char buf[256];

	while (!atomic_load(&done_flag)) {
		const struct kfile *f = &files[rnd(&x, nfiles)];
		unsigned int r = rnd(&x, 100), i;
		size_t len = 0;
		struct expect e;

		switch (f->kind) {
		case K_MODE_PATH:
		case K_MODE_ALL:
			len = sprintf(buf, "%s%s", rnd(&x, 2) ? "legacy" : "optimized",
				      rnd(&x, 2) ? "\n" : "");
			break;
		case K_PLIST:
			for (i = 0; i < (r < 50 ? 1u : (unsigned int)M.npaths); i++)
				len += sprintf(buf + len, "%s%u", i ? "," : "",
					       f->max == UINT_MAX ?
					       (rnd(&x, 2) ? 0 : SAFE_BUDGET_US + rnd(&x, 1000)) :
					       rnd(&x, f->max + 1));
			break;
		case K_PBOOL:
			len = sprintf(buf, "%s", (const char *[]){ "Y", "N", "1", "0",
				      "on", "off\n" }[rnd(&x, 6)]);
			break;
		case K_INJECT:
			len = sprintf(buf, "%s 0", M.checked[rnd(&x, M.nchecked)]);
			break;
		default:
			continue;
		}
		e = model(f, buf, len, 0);
		/* legacy on a path the backend could not attach is refused */
		if (e.err == EOPNOTSUPP)
			continue;
		if (e.err || e.skip)
			fail("the flipper's own write to %s is not valid: %.*s",
			     f->path, (int)len, buf);
		valid_write(f, buf, len, 0, &e);
		atomic_fetch_add(&n_flips, 1);
		/* leave the model's lock to the checks between flips */
		usleep(rnd(&x, 2000));
	}
	return NULL;
}

/* ---- the load: fork and exit churn, threads under a 1 ms ITIMER_PROF ---- */

static struct load {
	atomic_long forks, sigprof, times;
} *L;

static void on_sigprof(int sig)
{
	(void)sig;
	atomic_fetch_add(&L->sigprof, 1);
}

static void *times_loop(void *arg)
{
	struct tms t;

	(void)arg;
	for (;;) {
		for (volatile int k = 0; k < 20000; k++)
			;
		times(&t);
		atomic_fetch_add(&L->times, 1);
	}
	return NULL;
}

static pid_t load_start(int which)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(0);
	if (which == 0) {
		for (;;) {
			pid_t c = fork();

			if (!c)
				_exit(0);
			if (c > 0 && waitpid(c, NULL, 0) == c)
				atomic_fetch_add(&L->forks, 1);
		}
	} else {
		struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
		pthread_t t;

		signal(SIGPROF, on_sigprof);
		setitimer(ITIMER_PROF, &it, NULL);
		pthread_create(&t, NULL, times_loop, NULL);
		times_loop(NULL);
	}
	_exit(0);
}

/* ---- the files ---- */

static int add_file(const char *fpath, const struct stat *st, int type,
		    struct FTW *ftw);
static enum root cur_root;

static int add_file(const char *fpath, const struct stat *st, int type,
		    struct FTW *ftw)
{
	const char *rel = fpath + strlen(roots[cur_root]) + 1;
	struct kfile *f;
	int i;

	(void)ftw;
	if (type != FTW_F)
		return 0;
	if (nfiles == MAXFILES)
		fail("more than %d files", MAXFILES);
	f = &files[nfiles++];
	snprintf(f->path, sizeof(f->path), "%s", fpath);
	f->root = cur_root;
	f->kind = K_RO;
	if (!(st->st_mode & 0222)) {
		f->constant = cur_root != R_DBG;
		if (f->constant && read_file(fpath, f->initial, sizeof(f->initial)) < 0)
			fail("%s: %s", fpath, strerror(errno));
		return 0;
	}
	nwritable++;
	if (cur_root == R_SYS && !strcmp(rel, "mode")) {
		f->kind = K_MODE_ALL;
	} else if (cur_root == R_SYS && strchr(rel, '/') &&
		   !strcmp(strchr(rel, '/'), "/mode")) {
		f->kind = K_MODE_PATH;
		f->idx = -1;
		for (i = 0; i < M.npaths; i++)
			if (!strncmp(M.name[i], rel, strlen(M.name[i])) &&
			    rel[strlen(M.name[i])] == '/')
				f->idx = i;
		if (f->idx < 0)
			fail("%s: a path the table of paths lacks", fpath);
	} else if (cur_root != R_PARAM && !strcmp(rel, "reset")) {
		f->kind = K_RESET;
	} else if (cur_root == R_DBG && !strcmp(rel, "inject")) {
		f->kind = K_INJECT;
	} else if (cur_root == R_PARAM && (!strcmp(rel, "watchdog_us") ||
					   !strcmp(rel, "sample_shift"))) {
		f->kind = K_PLIST;
		f->max = !strcmp(rel, "sample_shift") ? 20 : UINT_MAX;
		f->idx = nfiles - 1;
	} else if (cur_root == R_PARAM && !strcmp(rel, "always_lock")) {
		f->kind = K_PBOOL;
		f->idx = nfiles - 1;
	} else {
		fail("%s: a writable file the model has no grammar for", fpath);
	}
	return 0;
}

/* The paths (the directories with a mode file) and the model's start. */
static void discover(void)
{
	char buf[4096], p[PATH_MAX], *line, *save = NULL;
	struct dirent *de;
	DIR *d = opendir(roots[R_SYS]);
	int i;

	if (!d)
		fail("%s: %s (is abpath loaded?)", roots[R_SYS], strerror(errno));
	while ((de = readdir(d))) {
		snprintf(p, sizeof(p), "%s/%s/mode", roots[R_SYS], de->d_name);
		if (de->d_name[0] == '.' || access(p, F_OK))
			continue;
		if (M.npaths == MAXPATHS)
			fail("more than %d paths", MAXPATHS);
		i = M.npaths++;
		snprintf(M.name[i], NAMELEN, "%.63s", de->d_name);
		if (read_file(p, buf, sizeof(buf)) < 0)
			fail("%s: %s", p, strerror(errno));
		M.legacy[i] = !strncmp(buf, "[legacy]", 8);
		snprintf(p, sizeof(p), "%s/%s/site", roots[R_SYS], de->d_name);
		if (read_file(p, buf, sizeof(buf)) < 0)
			fail("%s: %s", p, strerror(errno));
		M.avail[i] = strncmp(buf, "unavailable", 11);
	}
	closedir(d);
	if (!M.npaths)
		fail("no path under %s", roots[R_SYS]);

	snprintf(p, sizeof(p), "%s/inject", roots[R_DBG]);
	if (read_file(p, buf, sizeof(buf)) < 0)
		fail("%s: %s", p, strerror(errno));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[NAMELEN];
		unsigned int n;

		if (sscanf(line, "%63s %u", name, &n) != 2 || n)
			fail("%s: \"%s\": a pending injection (the run needs none)", p, line);
		snprintf(M.checked[M.nchecked++], NAMELEN, "%s", name);
	}

	for (cur_root = 0; cur_root < 3; cur_root++)
		if (nftw(roots[cur_root], add_file, 16, FTW_PHYS))
			fail("%s: %s", roots[cur_root], strerror(errno));

	for (i = 0; i < nfiles; i++) {
		struct kfile *f = &files[i];
		char *s, *tok, *cur;
		int k = 0;

		if (f->kind != K_PLIST && f->kind != K_PBOOL)
			continue;
		if (read_file(f->path, buf, sizeof(buf)) < 0)
			fail("%s: %s", f->path, strerror(errno));
		snprintf(f->initial, sizeof(f->initial), "%.255s", buf);
		if (f->kind == K_PBOOL) {
			M.pbool[f->idx] = buf[0] == 'Y';
			continue;
		}
		cur = s = strdup(buf);
		while ((tok = strsep(&cur, ",\n")) && k < M.npaths)
			M.plist[f->idx][k++] = strtoul(tok, NULL, 10);
		free(s);
		if (k != M.npaths)
			fail("%s reads \"%s\": not one value per path", f->path, buf);
		for (k = 0; f->max == UINT_MAX && k < M.npaths; k++)
			if (M.plist[f->idx][k] && M.plist[f->idx][k] < SAFE_BUDGET_US)
				fail("%s is %s: a budget that can trip (the run needs 0)",
				     f->path, buf);
	}
}

static void sweep_lengths(void)
{
	long edges[] = { 0, 1, 2, 3, page - 1, page, page + 1, 2 * page };
	char *seen = calloc(2 * page + 1, 1);
	long stride = 2053, k;

	lens = calloc(page + 3, sizeof(*lens));
	if (!seen || !lens)
		fail("out of memory");
	while ((page + 1) % stride == 0)
		stride++;
	for (k = 0; k < 8; k++) {
		lens[nlens++] = edges[k];
		seen[edges[k]] = 1;
	}
	for (k = 0; k <= page; k++) {
		long l = (k * stride) % (page + 1);

		if (!seen[l]) {
			seen[l] = 1;
			lens[nlens++] = l;
		}
	}
	free(seen);
}

/* Puts the parameters back as they were: later tests rely on them. */
static void restore(void)
{
	int i;

	for (i = 0; i < nfiles; i++) {
		struct kfile *f = &files[i];
		struct result r;

		if (f->kind != K_PLIST && f->kind != K_PBOOL)
			continue;
		r = do_write(f->path, f->initial, strlen(f->initial), 0);
		if (r.ret < 0)
			fail("%s: putting back \"%s\": %s", f->path, f->initial,
			     strerror(-r.ret));
	}
}

int main(int argc, char **argv)
{
	int nthreads = 4, nflippers = 2, opt, i;
	pthread_t th[64], fl[64];
	unsigned long long legacy0[MAXPATHS];
	pid_t load[2];
	char *end;
	long per_file;

	while ((opt = getopt(argc, argv, "n:j:f:s:v")) != -1) {
		switch (opt) {
		case 'n':
			nwrites = strtol(optarg, &end, 10);
			if (*end || nwrites < 1)
				usage();
			break;
		case 'j':
			nthreads = strtol(optarg, &end, 10);
			if (*end || nthreads < 1 || nthreads > 64)
				usage();
			break;
		case 'f':
			nflippers = strtol(optarg, &end, 10);
			if (*end || nflippers < 0 || nflippers > 64)
				usage();
			break;
		case 's':
			seed = strtoull(optarg, &end, 0);
			if (*end)
				usage();
			break;
		case 'v':
			verbose = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	page = sysconf(_SC_PAGESIZE);
	sweep_lengths();
	discover();
	printf("kfiles-fuzz: %d files, %d writable, %d paths; seed %llu; %d writers, %d flippers\n",
	       nfiles, nwritable, M.npaths, (unsigned long long)seed, nthreads,
	       nflippers);
	if (verbose)
		for (i = 0; i < nfiles; i++)
			printf("  %s: %s\n", files[i].path, kind_names[files[i].kind]);
	fflush(stdout);

	check_stats("the start");
	for (i = 0; i < M.npaths; i++)
		legacy0[i] = stat_of(M.name[i], "legacy", "calls");
	L = mmap(NULL, sizeof(*L), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (L == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	load[0] = load_start(0);
	load[1] = load_start(1);

	for (i = 0; i < nflippers; i++)
		pthread_create(&fl[i], NULL, flipper, (void *)(uintptr_t)(i + 1));
	for (i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, hostile, NULL);
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	atomic_store(&done_flag, 1);
	for (i = 0; i < nflippers; i++)
		pthread_join(fl[i], NULL);
	for (i = 0; i < 2; i++) {
		kill(load[i], SIGKILL);
		waitpid(load[i], NULL, 0);
	}

	/* everything once more, quiet */
	pthread_mutex_lock(&model_lock);
	check_group(NULL, "the run");
	pthread_mutex_unlock(&model_lock);
	check_stats("the run");
	restore();

	per_file = nwrites / nfiles;
	printf("kfiles-fuzz: writes %ld: hostile %ld (refused %ld, zero-length %ld), "
	       "valid %ld (flips %ld, hostile inputs that were valid words %ld); "
	       "skipped %ld valid words the run cannot allow\n",
	       atomic_load(&n_hostile) + atomic_load(&n_valid_chance) + atomic_load(&n_flips),
	       atomic_load(&n_hostile), atomic_load(&n_refused), atomic_load(&n_noop),
	       atomic_load(&n_flips) + atomic_load(&n_valid_chance),
	       atomic_load(&n_flips), atomic_load(&n_valid_chance),
	       atomic_load(&n_skipped));
	printf("kfiles-fuzz: lengths 0..%ld, %ld and %ld: %ld of %ld per file\n",
	       page, page + 1, 2 * page, (per_file + 1) / 2 < nlens ? (per_file + 1) / 2 : nlens,
	       nlens);
	printf("kfiles-fuzz: state checks %ld, counter reads %ld\n",
	       atomic_load(&n_checks), atomic_load(&n_stats_reads));
	printf("kfiles-fuzz: load: forks %ld, SIGPROF %ld, times() %ld; legacy calls:",
	       atomic_load(&L->forks), atomic_load(&L->sigprof), atomic_load(&L->times));
	for (i = 0; i < M.npaths; i++)
		printf(" %s %llu", M.name[i],
		       stat_of(M.name[i], "legacy", "calls") - legacy0[i]);
	printf("\nkfiles-fuzz: mismatches %ld\n", atomic_load(&n_mismatch));
	if (!atomic_load(&L->forks) || !atomic_load(&L->times))
		fail("the load did not run (forks %ld, times() %ld)",
		     atomic_load(&L->forks), atomic_load(&L->times));
	return atomic_load(&n_mismatch) ? 1 : 0;
}
