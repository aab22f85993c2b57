/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API differences between the kernels Innova builds for (Debian's
 * 6.1 and 6.12 lines), in one place: the rest of the module is written
 * against one API. Each switch is a Kbuild feature test (see Kbuild), not a
 * version number: Debian's 6.12.y carries stable backports that a version
 * check would miss. docs/design.md ("Two kernels") lists what differs.
 */
#ifndef INNOVA_COMPAT_H
#define INNOVA_COMPAT_H

#include <net/tls.h>

/* 6.12 moved the unaligned accessors from asm/ to linux/. */
#ifdef INNOVA_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * TLS 1.3 RX device offload: only a kernel with the project's series
 * (kernel/patches/6.12) offers it, to drivers that opt in through
 * tlsdev_ops.caps. Stock kernels never ask a driver for TLS 1.3.
 */
#ifdef INNOVA_HAVE_TLS13_RX
#define INNOVA_TLS13_RX		1
#else
#define INNOVA_TLS13_RX		0
#endif

/*
 * The async resync query: 6.1 takes the socket and finds the driver's
 * struct tls_offload_resync_async through it; later kernels take that
 * struct, which the driver owns and registered at add time.
 */
static inline void
innova_resync_async_start(struct sock *sk, struct tls_offload_resync_async *ra,
			  __be32 seq, u16 len)
{
#ifdef INNOVA_RESYNC_ASYNC_BY_STRUCT
	tls_offload_rx_resync_async_request_start(ra, seq, len);
#else
	tls_offload_rx_resync_async_request_start(sk, seq, len);
#endif
}

static inline void
innova_resync_async_end(struct sock *sk, struct tls_offload_resync_async *ra,
			__be32 seq)
{
#ifdef INNOVA_RESYNC_ASYNC_BY_STRUCT
	tls_offload_rx_resync_async_request_end(ra, seq);
#else
	tls_offload_rx_resync_async_request_end(sk, seq);
#endif
}

/*
 * Dropping a query the core still holds. Debian's 6.1 and 6.12 have the
 * helper (it takes the struct in both); without it, clearing the request
 * word is all it does.
 */
static inline void
innova_resync_async_cancel(struct tls_offload_resync_async *ra)
{
#ifdef INNOVA_HAVE_RESYNC_ASYNC_CANCEL
	tls_offload_rx_resync_async_request_cancel(ra);
#else
	atomic64_set(&ra->req, 0);
#endif
}

#endif /* INNOVA_COMPAT_H */
