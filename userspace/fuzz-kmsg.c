// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the kernel's log as a bench reads it between its markers
 * (kmsg.c).  The input is /dev/kmsg's records, cut at FUZZ_SEP, each
 * handed to kmsg_mark() by one read as the device does: through a
 * SOCK_SEQPACKET socket, which keeps a write's bounds.  The first byte
 * picks how the log ends: still open and drained (EAGAIN), or closed
 * (a read of 0).  The markers' own writes go to /dev/null
 * (ABPATH_KMSG).  Seeds: records of stalls and warnings (tests/bin/fuzz).
 */
#include "fuzz.h"

#include <sys/socket.h>

#include "kmsg.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("ABPATH_KMSG", "/dev/null", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *end = data + size, *rec, *sep;
	struct kmsg k = { .open = true };
	struct kmsg_reports r = { 0 }, r2 = { 0 };
	bool closes;
	int sv[2];
	double t;

	if (!size)
		return 0;
	closes = data[0] & 1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       0, sv))
		abort();
	/* A record is one write; past the socket's buffer the rest is lost. */
	for (rec = data + 1; rec <= end; rec = sep + 1) {
		sep = memchr(rec, FUZZ_SEP, (size_t)(end - rec));
		if (!sep)
			sep = end;
		if (sep > rec && send(sv[1], rec, (size_t)(sep - rec), 0) < 0)
			break;
	}
	if (closes)
		close(sv[1]);
	k.fd = sv[0];
	/* The first mark takes no reports: they wait for the next one. */
	kmsg_mark(&k, NULL, &t, "run %d starts", 1);
	kmsg_mark(&k, &r, &t, "run %d ends", 1);
	kmsg_mark(&k, &r2, NULL, "run %d ends", 2);
	kmsg_any(&r);
	kmsg_only_starved(&r);
	close(sv[0]);
	if (!closes)
		close(sv[1]);
	return 0;
}
