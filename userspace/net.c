// SPDX-License-Identifier: GPL-2.0
/* Sockets: address parsing, listen/accept/connect with timeouts. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "innova_tls.h"

/* "1.2.3.4:443" or "[fd00::1]:443"; literals only, no name resolution. */
int parse_sockaddr(const char *s, struct sockaddr_storage *ss, socklen_t *len, char *err, size_t errlen)
{
	char host[128];
	const char *port_s;
	char *end;
	unsigned long port;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *rb = strchr(s, ']');

		if (!rb || rb[1] != ':' || (size_t)(rb - s - 1) >= sizeof(host))
			goto bad;
		memcpy(host, s + 1, (size_t)(rb - s - 1));
		host[rb - s - 1] = 0;
		port_s = rb + 2;
	} else {
		const char *colon = strrchr(s, ':');

		if (!colon || (size_t)(colon - s) >= sizeof(host) || memchr(s, ':', (size_t)(colon - s)))
			goto bad;
		memcpy(host, s, (size_t)(colon - s));
		host[colon - s] = 0;
		port_s = colon + 1;
	}
	errno = 0;
	port = strtoul(port_s, &end, 10);
	if (!*port_s || *end || errno || port > 65535)
		goto bad;
	if (s[0] == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			goto bad;
		*len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			goto bad;
		*len = sizeof(*a);
	}
	return 0;
bad:
	snprintf(err, errlen, "bad address '%s' (want IPv4:PORT or [IPv6]:PORT literal)", s);
	return -1;
}

void net_set_timeouts(int fd, unsigned timeout_sec)
{
	struct timeval tv = { .tv_sec = timeout_sec };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

int net_listen(const struct options *o, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1;

	if (parse_sockaddr(o->addr, &ss, &len, err, errlen))
		return -1;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err_errno(err, errlen, "socket", errno);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
		err_errno(err, errlen, "bind", errno);
		goto fail;
	}
	if (listen(fd, (int)o->flows + 16) < 0) {
		err_errno(err, errlen, "listen", errno);
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

int net_accept(int lfd, unsigned timeout_sec, char *err, size_t errlen)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	int r, fd;

	do
		r = poll(&p, 1, (int)timeout_sec * 1000);
	while (r < 0 && errno == EINTR);
	if (r == 0) {
		snprintf(err, errlen, "accept: no connection within %u s (ETIMEDOUT)", timeout_sec);
		return -1;
	}
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0) {
		err_errno(err, errlen, "accept", errno);
		return -1;
	}
	net_set_timeouts(fd, timeout_sec);
	return fd;
}

/* --sport: the wildcard address of the peer's family, on that port; 0 or errno. */
static int bind_sport(int fd, int family, uint16_t port)
{
	struct sockaddr_storage ss = { .ss_family = (sa_family_t)family };
	socklen_t len = family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	int one = 1;

	if (family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)&ss)->sin_port = htons(port);
	/* Lets the port be bound again while the last connection from it is in TIME_WAIT. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&ss, len))
		return errno;
	return 0;
}

/*
 * Retries ECONNREFUSED until the deadline so recv and send can start in any
 * order. With --sport also EADDRNOTAVAIL: the previous connection on the same
 * 4-tuple may still be in TIME_WAIT here, which connect() takes over only a
 * second later (net.ipv4.tcp_tw_reuse) or once TIME_WAIT ends. A bind()
 * failure is final: SO_REUSEADDR already lets bind() past TIME_WAIT.
 */
int net_connect(const struct options *o, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	double deadline = now_sec() + o->timeout_sec;
	char what[200];

	if (parse_sockaddr(o->addr, &ss, &len, err, errlen))
		return -1;
	for (;;) {
		int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), e;
		bool retry;

		if (fd < 0) {
			err_errno(err, errlen, "socket", errno);
			return -1;
		}
		net_set_timeouts(fd, o->timeout_sec);
		if (o->sport) {
			e = bind_sport(fd, ss.ss_family, o->sport);
			if (e) {
				close(fd);
				snprintf(what, sizeof(what), "bind --sport %u", (unsigned)o->sport);
				err_errno(err, errlen, what, e);
				return -1;
			}
		}
		if (connect(fd, (struct sockaddr *)&ss, len) == 0)
			return fd;
		e = errno;
		close(fd);
		retry = e == ECONNREFUSED || (o->sport && e == EADDRNOTAVAIL);
		if (!retry || now_sec() >= deadline) {
			snprintf(what, sizeof(what), "connect %s", o->addr);
			if (o->sport)
				snprintf(what + strlen(what), sizeof(what) - strlen(what), " from port %u",
					 (unsigned)o->sport);
			err_errno(err, errlen, what, e == EINPROGRESS ? ETIMEDOUT : e);
			return -1;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
	}
}

/* An established loopback TCP pair inside one process (for selftest-errors). */
int connected_pair(int family, int *a, int *b, char *err, size_t errlen)
{
	struct sockaddr_storage ss = { .ss_family = (sa_family_t)family };
	socklen_t len = family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	int lfd;

	if (family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	else
		((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	*a = *b = -1;
	lfd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&ss, len) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&ss, &len))
		goto fail;
	*a = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*a < 0 || connect(*a, (struct sockaddr *)&ss, len))
		goto fail;
	*b = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (*b < 0)
		goto fail;
	close(lfd);
	net_set_timeouts(*a, 10);
	net_set_timeouts(*b, 10);
	return 0;
fail:
	err_errno(err, errlen, "loopback socket pair", errno);
	if (lfd >= 0)
		close(lfd);
	if (*a >= 0)
		close(*a);
	*a = -1;
	return -1;
}
