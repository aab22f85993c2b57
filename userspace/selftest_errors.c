// SPDX-License-Identifier: GPL-2.0
/*
 * selftest-errors: how the running kernel's kTLS setsockopt paths reject bad
 * input (6.1: net/tls/tls_main.c do_tls_setsockopt_conf, net/ipv4/tcp_ulp.c,
 * net/ipv4/tcp.c), over loopback in one process. TAP output. Without kTLS
 * (TCP_ULP "tls" -> ENOENT) the kTLS cases print "# SKIP no kTLS".
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <unistd.h>
#include "innova_tls.h"

#define N_TESTS 14

static unsigned test_no, failures;

static void tap(bool ok, const char *desc, const char *detail)
{
	test_no++;
	printf("%s %u - %s%s%s\n", ok ? "ok" : "not ok", test_no, desc, detail && *detail ? ": " : "",
	       detail ? detail : "");
	if (!ok)
		failures++;
}

static void skip(const char *desc, const char *why)
{
	printf("ok %u - %s # SKIP %s\n", ++test_no, desc, why);
}

/* Expect rc/errno: want == 0 means success expected. */
static void expect(int rc, int err, int want, const char *desc)
{
	char d[160];

	if (want == 0 && rc == 0)
		return tap(true, desc, NULL);
	if (want && rc < 0 && err == want)
		return tap(true, desc, NULL);
	snprintf(d, sizeof(d), "got %s, want %s", rc == 0 ? "success" : errno_name(err),
		 want ? errno_name(want) : "success");
	tap(false, desc, d);
}

static int set_ulp(int fd)
{
	return setsockopt(fd, IPPROTO_TCP, TCP_ULP, "tls", sizeof("tls"));
}

static struct record_keys test_keys(uint8_t fill, enum cipher_id id)
{
	struct record_keys k = { .cipher = cipher_by_id(id), .seq = 1 };

	memset(k.key, fill, sizeof(k.key));
	memset(k.fixed_iv, fill ^ 0xff, sizeof(k.fixed_iv));
	k.nonce_iv[7] = 1;
	return k;
}

static int set_crypto(int fd, int optname, const struct record_keys *k)
{
	union ktls_crypto_info ci;
	size_t len = build_crypto_info(k, &ci);

	return setsockopt(fd, SOL_TLS, optname, &ci, (socklen_t)len);
}

static ssize_t recv_typed(int fd, uint8_t *buf, size_t len, int *type)
{
	char cbuf[CMSG_SPACE(sizeof(unsigned char))];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	ssize_t n = recvmsg(fd, &m, 0);

	*type = -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); n >= 0 && c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_TLS && c->cmsg_type == TLS_GET_RECORD_TYPE)
			*type = *CMSG_DATA(c);
	return n;
}

static void ktls_cases(int a, int b)
{
	struct record_keys k = test_keys(0x11, CIPHER_AES128GCM);
	union ktls_crypto_info ci;
	uint8_t buf[64];
	uint64_t seq;
	int rc, e, type, lfd, c, d;
	ssize_t n;
	char err[ERRBUF_LEN];

	/* ULP state machine (tcp_ulp.c, tls_init). */
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	listen(lfd, 1);
	rc = set_ulp(lfd), e = errno;
	expect(rc, e, ENOTCONN, "TCP_ULP tls on a listening socket -> ENOTCONN");
	close(lfd);
	rc = set_ulp(b), e = errno;
	expect(rc, e, 0, "TCP_ULP tls on an established socket");
	rc = set_ulp(b), e = errno;
	expect(rc, e, EEXIST, "TCP_ULP tls twice -> EEXIST");

	/* Rejected TLS_RX attempts (do_tls_setsockopt_conf). */
	build_crypto_info(&k, &ci);
	rc = setsockopt(b, SOL_TLS, TLS_RX, &ci, sizeof(ci.gcm128) - 1), e = errno;
	expect(rc, e, EINVAL, "TLS_RX AES-GCM-128 with short key/optlen -> EINVAL");
	rc = setsockopt(b, SOL_TLS, TLS_RX, &ci, sizeof(ci.gcm256)), e = errno;
	expect(rc, e, EINVAL, "TLS_RX AES-GCM-128 with a 256-bit-sized key -> EINVAL");
	ci.info.cipher_type = 9999;
	rc = setsockopt(b, SOL_TLS, TLS_RX, &ci, sizeof(ci.gcm128)), e = errno;
	expect(rc, e, EINVAL, "TLS_RX unknown cipher type -> EINVAL");
	build_crypto_info(&k, &ci);
	ci.info.version = 0x0301;
	rc = setsockopt(b, SOL_TLS, TLS_RX, &ci, sizeof(ci.gcm128)), e = errno;
	expect(rc, e, EINVAL, "TLS_RX TLS 1.0 version -> EINVAL");

	/* The rejected attempts leave the socket usable (crypto_info is wiped on error). */
	rc = set_crypto(b, TLS_RX, &k), e = errno;
	expect(rc, e, 0, "TLS_RX valid after rejected attempts");
	rc = set_crypto(b, TLS_RX, &k), e = errno;
	expect(rc, e, EBUSY, "TLS_RX twice -> EBUSY (no rekey in 6.1)");
	rc = ktls_get_rec_seq(b, k.cipher, true, &seq);
	tap(rc == 0 && seq == 1, "getsockopt TLS_RX reports rec_seq 1", rc ? "getsockopt failed" : NULL);
	{
		struct record_keys k256 = test_keys(0x11, CIPHER_AES256GCM);

		rc = set_crypto(b, TLS_TX, &k256), e = errno;
		expect(rc, e, EINVAL, "TLS_TX with a different cipher than TLS_RX -> EINVAL");
	}

	/* Data still flows: peer with the same key, one data record then a type-20 marker. */
	if (set_ulp(a) || set_crypto(a, TLS_TX, &k)) {
		err_errno(err, sizeof(err), "peer TLS_TX", errno);
		tap(false, "data record round trip after the error cases", err);
	} else {
		n = send(a, "hello innova", 12, 0);
		n = n == 12 ? recv_typed(b, buf, sizeof(buf), &type) : -1;
		tap(n == 12 && type == RT_APPDATA && !memcmp(buf, "hello innova", 12),
		    "data record round trip after the error cases", n < 0 ? errno_name(errno) : NULL);
	}

	/* Wrong key: the record fails authentication -> EBADMSG. */
	if (connected_pair(AF_INET, &c, &d, err, sizeof(err))) {
		tap(false, "record under the wrong key -> EBADMSG", err);
		return;
	}
	{
		struct record_keys wrong = test_keys(0x22, CIPHER_AES128GCM);

		if (set_ulp(c) || set_crypto(c, TLS_TX, &wrong) || set_ulp(d) || set_crypto(d, TLS_RX, &k)) {
			err_errno(err, sizeof(err), "setup", errno);
			tap(false, "record under the wrong key -> EBADMSG", err);
		} else {
			send(c, "x", 1, 0);
			n = recv_typed(d, buf, sizeof(buf), &type), e = errno;
			expect(n < 0 ? -1 : 0, e, EBADMSG, "record under the wrong key -> EBADMSG");
		}
	}
	close(c);
	close(d);
}

int run_selftest_errors(void)
{
	int a, b, rc, e;
	char err[ERRBUF_LEN];
	static const char *const ktls_names[] = {
		"TCP_ULP tls on a listening socket -> ENOTCONN",
		"TCP_ULP tls on an established socket",
		"TCP_ULP tls twice -> EEXIST",
		"TLS_RX AES-GCM-128 with short key/optlen -> EINVAL",
		"TLS_RX AES-GCM-128 with a 256-bit-sized key -> EINVAL",
		"TLS_RX unknown cipher type -> EINVAL",
		"TLS_RX TLS 1.0 version -> EINVAL",
		"TLS_RX valid after rejected attempts",
		"TLS_RX twice -> EBUSY (no rekey in 6.1)",
		"getsockopt TLS_RX reports rec_seq 1",
		"TLS_TX with a different cipher than TLS_RX -> EINVAL",
		"data record round trip after the error cases",
		"record under the wrong key -> EBADMSG",
	};
	struct record_keys k = test_keys(0x11, CIPHER_AES128GCM);

	_Static_assert(N_TESTS == 1 + sizeof(ktls_names) / sizeof(ktls_names[0]), "plan");
	printf("1..%d\n", N_TESTS);
	if (connected_pair(AF_INET, &a, &b, err, sizeof(err))) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	/* Without the ULP, SOL_TLS falls through tcp_setsockopt -> ip_setsockopt. */
	rc = set_crypto(b, TLS_RX, &k), e = errno;
	expect(rc, e, ENOPROTOOPT, "TLS_RX before TCP_ULP -> ENOPROTOOPT");

	/* Probe on a throwaway pair so the real cases start from a clean socket. */
	{
		int pa, pb;

		if (connected_pair(AF_INET, &pa, &pb, err, sizeof(err))) {
			printf("Bail out! %s\n", err);
			return 1;
		}
		rc = set_ulp(pb), e = errno;
		close(pa);
		close(pb);
	}
	if (rc < 0) {
		char why[96];

		snprintf(why, sizeof(why), "no kTLS (TCP_ULP tls: %s)", errno_name(e));
		for (size_t i = 0; i < sizeof(ktls_names) / sizeof(ktls_names[0]); i++)
			skip(ktls_names[i], why);
	} else {
		ktls_cases(a, b);
	}
	close(a);
	close(b);
	fflush(stdout);
	return failures ? 1 : 0;
}
