// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs-write: write DATA to FILE in exactly one write(2), which shells do
 * not promise (bash's printf can split at a newline). DATA takes C escapes
 * (\n \t \\ \0 \xHH) so binary bytes and embedded NULs can be sent.
 *
 *   sysfs-write [-o OFFSET] FILE DATA
 *
 * Exit 0 when the whole write was accepted; 1 with "FILE: <strerror>" on
 * stderr when it failed; 2 on usage errors.
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

int main(int argc, char **argv)
{
	off_t offset = 0;
	char *buf;
	size_t len;
	ssize_t ret;
	int fd, opt;

	while ((opt = getopt(argc, argv, "o:")) != -1) {
		if (opt != 'o')
			goto usage;
		offset = strtoll(optarg, NULL, 0);
	}
	if (argc - optind != 2)
		goto usage;

	buf = malloc(strlen(argv[optind + 1]) + 1);
	if (!buf)
		return 1;
	len = unescape(argv[optind + 1], buf);
	fd = open(argv[optind], O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	ret = offset ? pwrite(fd, buf, len, offset) : write(fd, buf, len);
	if (ret < 0) {
		fprintf(stderr, "%s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	if ((size_t)ret != len) {
		fprintf(stderr, "%s: short write %zd of %zu\n", argv[optind], ret, len);
		return 1;
	}
	return close(fd) ? 1 : 0;
usage:
	fprintf(stderr, "usage: sysfs-write [-o OFFSET] FILE DATA\n");
	return 2;
}
