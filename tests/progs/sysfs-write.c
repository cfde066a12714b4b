// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs-write: write DATA to FILE in exactly one write(2), which shells do
 * not promise (bash's printf can split at a newline). DATA takes C escapes
 * (\n \t \\ \0 \xHH) so binary bytes and embedded NULs can be sent.
 *
 *   sysfs-write [-o OFFSET] FILE DATA
 *   sysfs-write [-o OFFSET] [-n COUNT] FILE DATA DATA...
 *
 * One DATA: exit 0 when the whole write was accepted; 1 with
 * "FILE: <strerror>" on stderr when it failed. Several DATAs, or -n: each
 * DATA is written COUNT times, each time through its own open(2), as a
 * shell's redirection would, and every write prints one line on stdout,
 * "DATA: ok" or "DATA: <strerror>" (DATA as given); exit 0 when every
 * write was accepted, else 1. A test of a hundred bad words then costs
 * one process, not a hundred (each one is a fork and an exec under TCG).
 * Exit 2 on usage errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t unescape(const char *s, char *out)
{
	size_t n = 0;
	char hex[3] = "";

	while (*s) {
		if (*s != '\\' || !s[1]) {
			out[n++] = *s++;
			continue;
		}
		s++;
		switch (*s) {
		case 'n': out[n++] = '\n'; s++; break;
		case 't': out[n++] = '\t'; s++; break;
		case '0': out[n++] = '\0'; s++; break;
		case 'x':
			memcpy(hex, s + 1, 2);
			out[n++] = (char)strtol(hex, NULL, 16);
			s += 1 + strlen(hex);
			break;
		default: out[n++] = *s++; break;
		}
	}
	return n;
}

/*
 * One write of DATA (escaped) to FILE: NULL when the whole of it was
 * accepted, else why not (strerror, or the short count: sysfs takes a
 * write whole or not at all, so a short one is a finding, not an errno).
 */
static const char *write_once(const char *file, const char *data, off_t offset)
{
	static char why[64];
	char *buf = malloc(strlen(data) + 1);
	size_t len;
	ssize_t ret = 0;
	int fd, err = 0;

	if (!buf)
		return strerror(ENOMEM);
	len = unescape(data, buf);
	fd = open(file, O_WRONLY);
	if (fd < 0) {
		err = errno;
		goto out;
	}
	ret = offset ? pwrite(fd, buf, len, offset) : write(fd, buf, len);
	if (ret < 0)
		err = errno;
	else if ((size_t)ret != len)
		err = -1;
	if (close(fd) && !err)
		err = errno;
out:
	free(buf);
	if (err < 0) {
		snprintf(why, sizeof(why), "short write, %zd of %zu bytes", ret, len);
		return why;
	}
	return err ? strerror(err) : NULL;
}

int main(int argc, char **argv)
{
	long count = 0;
	off_t offset = 0;
	int opt, i, failed = 0;
	const char *err;
	char *end;

	while ((opt = getopt(argc, argv, "o:n:")) != -1) {
		switch (opt) {
		case 'o':
			offset = strtoll(optarg, NULL, 0);
			break;
		case 'n':
			count = strtol(optarg, &end, 10);
			if (*end || count < 1)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind < 2)
		goto usage;

	if (argc - optind == 2 && !count) {
		err = write_once(argv[optind], argv[optind + 1], offset);
		if (err)
			fprintf(stderr, "%s: %s\n", argv[optind], err);
		return !!err;
	}
	for (i = optind + 1; i < argc; i++) {
		for (long n = 0; n < (count ? count : 1); n++) {
			err = write_once(argv[optind], argv[i], offset);
			printf("%s: %s\n", argv[i], err ? err : "ok");
			failed |= !!err;
		}
	}
	return failed;
usage:
	fprintf(stderr, "usage: sysfs-write [-o OFFSET] [-n COUNT] FILE DATA [DATA...]\n");
	return 2;
}
