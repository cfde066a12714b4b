// SPDX-License-Identifier: GPL-2.0
/*
 * reparent: checks that orphans end up where the kernel promises, whatever
 * exit_reparent's mode. Each scenario runs N times and exits 1 on the first
 * wrong answer, naming it.
 *
 *   reparent init|subreaper|thread|ptrace|pdeath [N]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define fail(...) do {							\
	fprintf(stderr, "reparent: error: " __VA_ARGS__);		\
	fputc('\n', stderr);						\
	exit(1);							\
} while (0)

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Poll getppid() until it leaves @old; reparenting happens at old's exit. */
static pid_t wait_new_parent(pid_t old)
{
	pid_t ppid;
	int i;

	for (i = 0; i < 5000; i++) {
		ppid = getppid();
		if (ppid != old)
			return ppid;
		sleep_ms(1);
	}
	return old;
}

static void wait_exit0(pid_t pid, const char *what)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		fail("waitpid(%s): %s", what, strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail("%s failed (status 0x%x)", what, status);
}

/*
 * The middle process forks a grandchild and exits; the grandchild reports
 * its new parent through a pipe. @expect is the pid it must see.
 */
static void orphan_once(pid_t expect, const char *what)
{
	int fd[2];
	pid_t mid, got;

	if (pipe(fd))
		fail("pipe: %s", strerror(errno));
	mid = fork();
	if (mid < 0)
		fail("fork: %s", strerror(errno));
	if (mid == 0) {
		pid_t me = getpid(), g = fork();

		if (g < 0)
			_exit(2);
		if (g == 0) {
			pid_t p = wait_new_parent(me);

			if (write(fd[1], &p, sizeof(p)) != sizeof(p))
				_exit(3);
			_exit(0);
		}
		_exit(0);
	}
	wait_exit0(mid, "middle process");
	if (read(fd[0], &got, sizeof(got)) != sizeof(got))
		fail("%s: grandchild did not report", what);
	if (got != expect)
		fail("%s: orphan went to %d, expected %d", what, got, expect);
	close(fd[0]);
	close(fd[1]);
}

static void scenario_init(void)
{
	orphan_once(1, "init");
}

static void scenario_subreaper(void)
{
	pid_t gc;
	int status;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		fail("PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	orphan_once(getpid(), "subreaper");
	/* The grandchild is ours now: reap it. */
	gc = wait(&status);
	if (gc < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		fail("subreaper could not reap the orphan (%d, 0x%x)", gc, status);
}

static int thread_pipe[2];

/* A thread forks a child, then exits; the child must stay in this group. */
static void *forking_thread(void *arg)
{
	pid_t c = fork();

	if (c < 0)
		fail("fork: %s", strerror(errno));
	if (c == 0) {
		char b;

		/* Wait until the forking thread is gone, then report. */
		if (read(thread_pipe[0], &b, 1) != 1)
			_exit(2);
		_exit(getppid() == *(pid_t *)arg ? 0 : 4);
	}
	return (void *)(long)c;
}

static void scenario_thread(void)
{
	pid_t me = getpid(), c;
	pthread_t t;
	void *ret;

	if (pipe(thread_pipe))
		fail("pipe: %s", strerror(errno));
	if (pthread_create(&t, NULL, forking_thread, &me))
		fail("pthread_create");
	if (pthread_join(t, &ret))
		fail("pthread_join");
	c = (pid_t)(long)ret;
	/* The forking thread has exited: its child went to this thread. */
	if (write(thread_pipe[1], "x", 1) != 1)
		fail("write");
	wait_exit0(c, "child of an exited sibling thread");
	close(thread_pipe[0]);
	close(thread_pipe[1]);
}

/*
 * We trace a process whose real parent exits: its real parent becomes
 * init while we stay its tracer, and we can still see it stop and exit.
 */
static void scenario_ptrace(void)
{
	int to_test[2], to_mid[2], to_child[2], status;
	pid_t mid, c;
	char b = 0;

	if (pipe(to_test) || pipe(to_mid) || pipe(to_child))
		fail("pipe: %s", strerror(errno));
	mid = fork();
	if (mid == 0) {
		c = fork();
		if (c == 0) {
			pid_t me = getppid();

			if (read(to_child[0], &b, 1) != 1)
				_exit(2);
			_exit(wait_new_parent(me) == 1 ? 0 : 5);
		}
		if (write(to_test[1], &c, sizeof(c)) != sizeof(c))
			_exit(3);
		/* Exit once the tracer has attached. */
		if (read(to_mid[0], &b, 1) != 1)
			_exit(4);
		_exit(0);
	}
	if (read(to_test[0], &c, sizeof(c)) != sizeof(c))
		fail("ptrace: no pid");
	if (ptrace(PTRACE_SEIZE, c, 0, 0))
		fail("PTRACE_SEIZE: %s", strerror(errno));
	if (write(to_mid[1], "m", 1) != 1)
		fail("write");
	wait_exit0(mid, "real parent of the traced child");
	if (write(to_child[1], "c", 1) != 1)
		fail("write");
	/* As its tracer we see its exit, though it is not our child. */
	if (waitpid(c, &status, __WALL) != c)
		fail("waitpid(traced): %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail("traced child saw the wrong parent (status 0x%x)", status);
	close(to_test[0]);
	close(to_test[1]);
	close(to_mid[0]);
	close(to_mid[1]);
	close(to_child[0]);
	close(to_child[1]);
}

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig __attribute__((unused)))
{
	got_usr1 = 1;
}

static void pdeath_grandchild(int fd[2])
{
	int i;

	signal(SIGUSR1, on_usr1);
	if (prctl(PR_SET_PDEATHSIG, SIGUSR1))
		_exit(2);
	if (write(fd[1], "r", 1) != 1)
		_exit(3);
	for (i = 0; i < 5000 && !got_usr1; i++)
		sleep_ms(1);
	if (write(fd[1], got_usr1 ? "y" : "n", 1) != 1)
		_exit(4);
	_exit(0);
}

static void scenario_pdeath(void)
{
	int fd[2];
	pid_t mid;
	char b = 0;

	if (pipe(fd))
		fail("pipe: %s", strerror(errno));
	mid = fork();
	if (mid == 0) {
		if (fork() == 0)
			pdeath_grandchild(fd);
		/* Exit only once the grandchild has armed its death signal. */
		if (read(fd[0], &b, 1) != 1)
			_exit(5);
		_exit(0);
	}
	wait_exit0(mid, "parent with a pdeath_signal child");
	if (read(fd[0], &b, 1) != 1 || b != 'y')
		fail("pdeath_signal was not delivered");
	close(fd[0]);
	close(fd[1]);
}

static const struct {
	const char *name;
	void (*run)(void);
} scenarios[] = {
	{ "init", scenario_init },
	{ "subreaper", scenario_subreaper },
	{ "thread", scenario_thread },
	{ "ptrace", scenario_ptrace },
	{ "pdeath", scenario_pdeath },
};

int main(int argc, char **argv)
{
	unsigned int i;
	long n, k;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: reparent init|subreaper|thread|ptrace|pdeath [N]\n");
		return 2;
	}
	n = argc == 3 ? strtol(argv[2], NULL, 10) : 1;
	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		if (strcmp(argv[1], scenarios[i].name))
			continue;
		for (k = 0; k < n; k++)
			scenarios[i].run();
		printf("reparent %s: %ld ok\n", argv[1], n);
		return 0;
	}
	fprintf(stderr, "reparent: unknown scenario '%s'\n", argv[1]);
	return 2;
}
