/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the libFuzzer harnesses (fuzz-*.c, bench/fuzz-*.c) share.  Each
 * hands its input to the CLI's own reader as the CLI gets it: a file
 * name, which here is a memfd's /dev/fd/N, so that no reader
 * grows a second way in that only the fuzzer would take.  Only the
 * harnesses include this; fuzz-quiet.c is the LLVMFuzzerInitialize() of
 * those that only quiet stdout.
 */
#ifndef ABPATH_FUZZ_H
#define ABPATH_FUZZ_H

/* memfd_create(): first, before any header reads the feature macros. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * Several files in one input are cut at this byte: ASCII's record
 * separator, which neither JSON nor a config nor the kernel's text holds.
 */
#define FUZZ_SEP	'\x1e'

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_file {
	int fd;
	char name[64];
};

/* The reports go nowhere: only a sanitizer's report or a crash counts. */
static inline void fuzz_quiet_stdout(void)
{
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
		abort();
	close(fd);
}

/* data[0..size) as a file; fuzz_close() it after. */
static inline void fuzz_file(struct fuzz_file *f, const void *data,
			     size_t size)
{
	const char *p = data;
	ssize_t n;

	f->fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (f->fd < 0)
		abort();
	for (size_t done = 0; done < size; done += (size_t)n) {
		n = write(f->fd, p + done, size - done);
		if (n <= 0)
			abort();
	}
	snprintf(f->name, sizeof(f->name), "/dev/fd/%d", f->fd);
}

static inline void fuzz_close(struct fuzz_file *f)
{
	close(f->fd);
}

/*
 * Cuts data at FUZZ_SEP into at most max files; returns how many.  The
 * last one takes the rest, separators and all.
 */
static inline int fuzz_split(const uint8_t *data, size_t size,
			     struct fuzz_file *f, int max)
{
	const uint8_t *end = data + size, *sep;
	int n = 0;

	while (n < max - 1 &&
	       (sep = memchr(data, FUZZ_SEP, (size_t)(end - data)))) {
		fuzz_file(&f[n++], data, (size_t)(sep - data));
		data = sep + 1;
	}
	fuzz_file(&f[n++], data, (size_t)(end - data));
	return n;
}

/* The most files fuzz_with_files() cuts an input into. */
#define FUZZ_MAX_FILES	8

/*
 * The input cut at FUZZ_SEP into at most max files (FUZZ_MAX_FILES at
 * most), whose names run() is handed twice, as the text and as the -j
 * form of a command reads them; then closed.
 */
static inline void fuzz_with_files(const uint8_t *data, size_t size,
				   int max,
				   void (*run)(const char *const *names,
					       int n, bool json))
{
	struct fuzz_file f[FUZZ_MAX_FILES];
	const char *names[FUZZ_MAX_FILES];
	int n;

	if (max > FUZZ_MAX_FILES)
		abort();
	n = fuzz_split(data, size, f, max);
	for (int i = 0; i < n; i++)
		names[i] = f[i].name;
	for (int json = 0; json < 2; json++)
		run(names, n, json);
	for (int i = 0; i < n; i++)
		fuzz_close(&f[i]);
}

#endif
