// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim that makes every TCP connection of the kernel's TLS
 * selftest (tools/testing/selftests/net/tls.c) cross a real link between
 * two network namespaces instead of loopback.
 *
 * tls.c builds each socket pair on loopback: a listener bound to
 * INADDR_ANY/in6addr_any port 0, getsockname(), connect() to that address
 * (0.0.0.0 or :: means this host), accept(). The binary runs in the server
 * netns (B: the listener, so every accepted, receiving socket, lives there).
 * This shim intercepts connect() and, when the socket is one of those
 * pairs' client sockets, replaces it by a socket of the client netns (A)
 * connected to the server's address on the link:
 *   1. open the client netns (KSFT_CLIENT_NETNS, e.g. /run/netns/A) and
 *      our own (/proc/thread-self/ns/net); setns(CLONE_NEWNET) to A,
 *      socket() with the same domain, type and protocol, setns back;
 *   2. copy the file status flags (O_NONBLOCK ...) and FD_CLOEXEC;
 *   3. dup2() the new socket onto the caller's fd (the old, never used
 *      socket is closed by that), so the test keeps its fd number;
 *   4. connect to KSFT_SERVER_ADDR4 / KSFT_SERVER_ADDR6 (B's port address)
 *      with the port the test asked for.
 * A connect() is redirected only if all of these hold, else it goes to the
 * real connect() untouched:
 *   - the fd is an AF_INET/AF_INET6 SOCK_STREAM socket and the address has
 *     the same family (tls.c has no UDP, AF_UNIX or socketpair() sockets);
 *   - the socket is unbound (local port 0) and has no TCP ULP: tls.c never
 *     binds a client, and shutdown_reuse's connect() on a socket that
 *     already carries the "tls" ULP must keep failing with EISCONN;
 *   - the destination is loopback or unspecified, with a non-zero port.
 * Socket options set before connect() are not carried over: tls.c sets
 * none on the client before connecting (non_established's TCP_ULP attempt
 * before connect() fails by design and leaves nothing to copy).
 * Without KSFT_CLIENT_NETNS the shim does nothing (plain loopback run).
 * KSFT_SHIM_LOG=FILE appends one line per redirected connect().
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef int (*connect_fn)(int, const struct sockaddr *, socklen_t);

static connect_fn real_connect_fn(void)
{
	static connect_fn fn;

	if (!fn)
		fn = (connect_fn)dlsym(RTLD_NEXT, "connect");
	return fn;
}

static int real_connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	connect_fn fn = real_connect_fn();

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	return fn(fd, addr, len);
}

static void shim_log(const char *fmt, const char *what, int err)
{
	const char *path = getenv("KSFT_SHIM_LOG");
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "ae");
	if (!f)
		return;
	fprintf(f, fmt, what, err ? strerror(err) : "ok");
	fclose(f);
}

static int sockopt_int(int fd, int level, int name, int *val)
{
	socklen_t len = sizeof(*val);

	return getsockopt(fd, level, name, val, &len);
}

/* loopback or unspecified destination with a port: tls.c's own pairs */
static int local_dest(const struct sockaddr *addr, socklen_t len, int family)
{
	if (family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)addr;
		uint32_t a = ntohl(in->sin_addr.s_addr);

		return in->sin_port && (a == INADDR_ANY || (a >> 24) == 127);
	}
	if (family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const void *)addr;

		return in6->sin6_port && (IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr) ||
					  IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr));
	}
	return 0;
}

/* a fresh client socket of tls.c: unbound, no ULP */
static int fresh_client(int fd, int family)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char ulp[16];
	socklen_t ulen = sizeof(ulp);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) || ss.ss_family != family)
		return 0;
	if (family == AF_INET && ((struct sockaddr_in *)&ss)->sin_port)
		return 0;
	if (family == AF_INET6 && ((struct sockaddr_in6 *)&ss)->sin6_port)
		return 0;
	if (getsockopt(fd, IPPROTO_TCP, TCP_ULP, ulp, &ulen))
		return 0;
	return ulen == 0 || ulp[0] == '\0';
}

/* socket(domain, type, proto) created inside the netns at path */
static int socket_in_netns(const char *path, int domain, int type, int proto)
{
	int self, target, s, err;

	self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return -1;
	target = open(path, O_RDONLY | O_CLOEXEC);
	if (target < 0) {
		err = errno;
		close(self);
		errno = err;
		return -1;
	}
	if (setns(target, CLONE_NEWNET)) {
		err = errno;
		close(target);
		close(self);
		errno = err;
		return -1;
	}
	s = socket(domain, type, proto);
	err = errno;
	if (setns(self, CLONE_NEWNET)) {
		/* stuck in the wrong netns: nothing after this can be trusted */
		perror("netns-shim: setns back to own netns");
		abort();
	}
	close(target);
	close(self);
	errno = err;
	return s;
}

int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	const char *netns = getenv("KSFT_CLIENT_NETNS");
	struct sockaddr_storage dst;
	int domain, type, proto, fl, fdfl, s, ret, err;
	const char *server;

	if (!netns || !*netns || !addr)
		return real_connect(fd, addr, len);
	if (sockopt_int(fd, SOL_SOCKET, SO_DOMAIN, &domain) ||
	    sockopt_int(fd, SOL_SOCKET, SO_TYPE, &type) ||
	    sockopt_int(fd, SOL_SOCKET, SO_PROTOCOL, &proto))
		return real_connect(fd, addr, len);
	if ((domain != AF_INET && domain != AF_INET6) || type != SOCK_STREAM ||
	    addr->sa_family != domain || !local_dest(addr, len, domain) ||
	    !fresh_client(fd, domain))
		return real_connect(fd, addr, len);

	server = getenv(domain == AF_INET ? "KSFT_SERVER_ADDR4" : "KSFT_SERVER_ADDR6");
	memset(&dst, 0, sizeof(dst));
	if (domain == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&dst;

		in->sin_family = AF_INET;
		in->sin_port = ((const struct sockaddr_in *)addr)->sin_port;
		if (!server || inet_pton(AF_INET, server, &in->sin_addr) != 1)
			goto bad_env;
		len = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&dst;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = ((const struct sockaddr_in6 *)addr)->sin6_port;
		if (!server || inet_pton(AF_INET6, server, &in6->sin6_addr) != 1)
			goto bad_env;
		len = sizeof(*in6);
	}

	fl = fcntl(fd, F_GETFL);
	fdfl = fcntl(fd, F_GETFD);
	if (fl < 0 || fdfl < 0)
		return -1;
	s = socket_in_netns(netns, domain, type, proto);
	if (s < 0) {
		err = errno;
		shim_log("netns-shim: socket in %s: %s\n", netns, err);
		errno = err;
		return -1;
	}
	if (fcntl(s, F_SETFL, fl) || dup2(s, fd) < 0 ||
	    fcntl(fd, F_SETFD, fdfl)) {
		err = errno;
		close(s);
		errno = err;
		return -1;
	}
	close(s);
	ret = real_connect(fd, (struct sockaddr *)&dst, len);
	err = ret ? errno : 0;
	shim_log("netns-shim: connect to %s: %s\n", server, err == EINPROGRESS ? 0 : err);
	errno = err;
	return ret;

bad_env:
	fprintf(stderr, "netns-shim: KSFT_CLIENT_NETNS is set but %s is missing or invalid\n",
		domain == AF_INET ? "KSFT_SERVER_ADDR4" : "KSFT_SERVER_ADDR6");
	errno = EINVAL;
	return -1;
}
