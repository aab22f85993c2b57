// SPDX-License-Identifier: GPL-2.0
/*
 * --seed-keys: many TLS 1.2 connections without a handshake. Both ends derive
 * each connection's client-write key, salt, IV and rec_seq from (seed,
 * client TCP port), like the kernel's TLS selftests use fixed keys, so
 * thousands of flows can be opened where a handshake each would take too
 * long (TCG guests). One thread per role, epoll over every connection:
 *
 *   receiver: accept, TLS_RX (rx-mode manual) or the sim model's keys, then
 *             one plaintext ready byte ('R') back; read records as they come.
 *   sender:   connect (at most CONNECT_WINDOW connections not yet ready),
 *             TLS_TX (tx-mode ktls), wait for the ready byte, so the first
 *             record reaches a socket whose TLS_RX (and NIC flow) is already
 *             installed; once every flow is ready, one record per flow
 *             round-robin until each flow's --bytes are sent, close_notify,
 *             SHUT_WR, wait for the receiver to close.
 *
 * Memory per flow is a few hundred bytes: no per-flow buffers, except that
 * the sim receiver holds a record it has only partly received.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <linux/sockios.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include "innova_tls.h"
#include "verify.h"

#define READY_BYTE      'R'
#define CONNECT_WINDOW  128       /* sender: connections not yet ready; below any somaxconn */
#define EPOLL_BATCH     256
#define RX_BUF          (64 * 1024)
#define SEED_SALT       "innova-tls seed-keys v1"
#define SEED_INFO       "innova-tls client write "

/* ---- key derivation ---- */

/*
 * okm = HKDF-SHA256(IKM = seed as 8 bytes big-endian, salt = "innova-tls seed-keys v1",
 *                   info = "innova-tls client write " || cipher name || port as 2 bytes big-endian,
 *                   L = key_len + 4 + 8 + 8)
 * key = okm[0..key_len), salt = next 4, iv = next 8 (the first explicit nonce),
 * rec_seq = next 8 big-endian with the top 16 bits cleared (far from wrapping).
 */
int seed_derive_keys(uint64_t seed, uint16_t client_port, const struct cipher_desc *c,
		     struct record_keys *out, char *err, size_t errlen)
{
	static EVP_KDF *kdf;
	EVP_KDF_CTX *kctx;
	uint8_t ikm[8], info[64], okm[32 + 4 + 8 + 8];
	size_t n = 0, nl = strlen(c->name), olen = c->key_len + 4 + 8 + 8;
	OSSL_PARAM params[5];
	int ok = 0;

	memset(out, 0, sizeof(*out));
	if (!kdf)
		kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);    /* one thread: cached for every connection */
	kctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
	if (kctx && c->fixed_iv_len == 4 && c->explicit_nonce_len == 8 && olen <= sizeof(okm) &&
	    sizeof(SEED_INFO) - 1 + nl + 2 <= sizeof(info)) {
		for (int i = 0; i < 8; i++)
			ikm[i] = (uint8_t)(seed >> (56 - 8 * i));
		memcpy(info, SEED_INFO, sizeof(SEED_INFO) - 1);
		n = sizeof(SEED_INFO) - 1;
		memcpy(info + n, c->name, nl);
		n += nl;
		info[n++] = (uint8_t)(client_port >> 8);
		info[n++] = (uint8_t)client_port;
		params[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0);
		params[1] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, ikm, sizeof(ikm));
		params[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)SEED_SALT,
							      sizeof(SEED_SALT) - 1);
		params[3] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info, n);
		params[4] = OSSL_PARAM_construct_end();
		ok = EVP_KDF_derive(kctx, okm, olen, params) > 0;
	}
	EVP_KDF_CTX_free(kctx);
	if (!ok) {
		snprintf(err, errlen, "--seed-keys: HKDF-SHA256 derivation failed");
		ERR_clear_error();
		OPENSSL_cleanse(okm, sizeof(okm));
		return -1;
	}
	out->cipher = c;
	memcpy(out->key, okm, c->key_len);
	memcpy(out->fixed_iv, okm + c->key_len, 4);
	memcpy(out->nonce_iv, okm + c->key_len + 4, 8);
	for (int i = 0; i < 8; i++)
		out->seq = out->seq << 8 | okm[c->key_len + 12 + i];
	out->seq &= (1ULL << 48) - 1;
	OPENSSL_cleanse(okm, sizeof(okm));
	OPENSSL_cleanse(ikm, sizeof(ikm));
	return 0;
}

/* ---- shared helpers ---- */

/* RLIMIT_NOFILE >= need (the hard limit too, if allowed); 0 or -1 with err. */
static int raise_nofile(unsigned need, unsigned flows, char *err, size_t errlen)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl)) {
		err_errno(err, errlen, "getrlimit(RLIMIT_NOFILE)", errno);
		return -1;
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		struct rlimit want = { .rlim_cur = need, .rlim_max = rl.rlim_max };

		if (want.rlim_max != RLIM_INFINITY && want.rlim_max < need)
			want.rlim_max = need;       /* needs CAP_SYS_RESOURCE */
		if (setrlimit(RLIMIT_NOFILE, &want)) {
			char what[200];

			snprintf(what, sizeof(what), "--flows %u needs %u open files, limit is %llu (hard %llu): "
				 "setrlimit(RLIMIT_NOFILE)", flows, need, (unsigned long long)rl.rlim_cur,
				 (unsigned long long)rl.rlim_max);
			err_errno(err, errlen, what, errno);
			return -1;
		}
	}
	return 0;
}

static uint16_t sockaddr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

static int set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	return fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

static int ep_ctl(int ep, int op, int fd, uint32_t events, uint32_t idx)
{
	struct epoll_event ev = { .events = events, .data.u32 = idx };

	return epoll_ctl(ep, op, fd, &ev);
}

/* ---- receiver ---- */

enum { RXS_ACTIVE, RXS_DONE };

struct srx_flow {
	int fd;
	uint8_t state;
	uint16_t port;
	uint8_t *part;            /* sim: an incomplete record (header + body so far), else NULL */
	uint32_t part_len, part_need;
	struct record_keys keys;
	struct verifier v;
	uint64_t records, markers, alerts;
};

struct srx {
	const struct options *o;
	struct srx_flow *flows;
	struct flow_claims *claims;
	struct run_result *res;
	char *err;                /* first failure */
	size_t errlen;
	unsigned accepted, done;
	uint8_t *buf;
	char ferr[ERRBUF_LEN];
};

static void srx_close(struct srx *r, struct srx_flow *f, bool ok)
{
	unsigned i = (unsigned)(f - r->flows);

	if (ok && verifier_finish(&f->v, r->ferr, sizeof(r->ferr)))
		ok = false;
	if (!ok && !r->err[0]) {
		snprintf(r->err, r->errlen, "conn %u (client port %u): %s", i, (unsigned)f->port, r->ferr);
		r->res->bad_offset = f->v.bad_offset;
	}
	r->res->bytes += f->v.offset;
	r->res->records += f->records;
	r->res->rekey_markers += f->markers;
	OPENSSL_cleanse(&f->keys, sizeof(f->keys));
	free(f->part);
	f->part = NULL;
	close(f->fd);
	f->fd = -1;
	f->state = RXS_DONE;
	r->done++;
}

static void srx_fail_errno(struct srx *r, struct srx_flow *f, const char *what, int e)
{
	char w[160];

	snprintf(w, sizeof(w), "%s after %llu payload bytes", what, (unsigned long long)f->v.offset);
	err_errno(r->ferr, sizeof(r->ferr), w, e);
	if (!r->err[0])
		r->res->error_errno = e;
	srx_close(r, f, false);
}

/* A record of type t (plaintext p, n bytes): 1 = stream ended cleanly, 0 = go on, -1 = failed (ferr). */
static int srx_record(struct srx *r, struct srx_flow *f, int t, const uint8_t *p, size_t n)
{
	if (t == RT_APPDATA)
		return verifier_feed(&f->v, p, n, r->ferr, sizeof(r->ferr)) ? -1 : 0;
	if (t == RT_CCS) {
		f->markers++;
		return 0;
	}
	if (t == RT_ALERT) {
		f->alerts++;
		if (n == 2 && p[1] == 0)
			return 1;
		snprintf(r->ferr, sizeof(r->ferr), "peer sent TLS alert level %d description %d",
			 n > 0 ? p[0] : -1, n > 1 ? p[1] : -1);
		return -1;
	}
	snprintf(r->ferr, sizeof(r->ferr), "unexpected TLS record type %d (%zu bytes) after %llu payload bytes",
		 t, n, (unsigned long long)f->v.offset);
	return -1;
}

/* manual: kernel kTLS, nonblocking recvmsg until EAGAIN. */
static void srx_manual(struct srx *r, struct srx_flow *f)
{
	for (;;) {
		char cbuf[CMSG_SPACE(sizeof(unsigned char))];
		struct iovec iov = { .iov_base = r->buf, .iov_len = RX_BUF };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *c;
		ssize_t n = recvmsg(f->fd, &m, MSG_DONTWAIT);
		int type = -1, rc;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			srx_fail_errno(r, f, "recvmsg (kTLS)", errno);
			return;
		}
		if (n > 0) {
			for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
				if (c->cmsg_level == SOL_TLS && c->cmsg_type == TLS_GET_RECORD_TYPE)
					type = *CMSG_DATA(c);
			rc = srx_record(r, f, type, r->buf, (size_t)n);
			if (rc < 0) {
				srx_close(r, f, false);
				return;
			}
			if (!rc)
				continue;
		}
		/* EOF or close_notify: the kernel's rec_seq counts the data records exactly. */
		{
			uint64_t seq;

			if (ktls_get_rec_seq(f->fd, f->keys.cipher, true, &seq) == 0)
				f->records = seq - f->keys.seq - f->markers - f->alerts;
		}
		srx_close(r, f, true);
		return;
	}
}

/* A record complete in memory (f->part): decrypt and hand it on; 1 = flow closed, 0 = go on. */
static int srx_sim_part(struct srx *r, struct srx_flow *f)
{
	uint8_t type;
	ssize_t n = sim_open_body(&f->keys, f->part, f->part + 5, f->part_len - 5, &type, r->buf,
				  r->ferr, sizeof(r->ferr));
	int rc;

	free(f->part);
	f->part = NULL;
	f->part_len = f->part_need = 0;
	if (n < 0) {
		if (!r->err[0])
			r->res->error_errno = errno;
		srx_close(r, f, false);
		return 1;
	}
	if (type == RT_APPDATA)
		f->records++;
	rc = srx_record(r, f, type, r->buf, (size_t)n);
	if (rc) {
		srx_close(r, f, rc > 0);
		return 1;
	}
	return 0;
}

/*
 * sim: a record wholly queued in the socket is opened straight from it
 * (sim_open_record cannot block then); a partial one is moved into a
 * per-flow buffer (allocated only while a record is incomplete, so 10k idle
 * flows cost no buffers) and completed from later reads. Waiting in the
 * socket instead (SO_RCVLOWAT) can stall: the receive window may close
 * before a whole record fits.
 */
static void srx_sim(struct srx *r, struct srx_flow *f, bool hup)
{
	for (;;) {
		uint8_t hdr[5], type;
		int avail = 0, rc;
		ssize_t n;

		if (f->part) {
			n = recv(f->fd, f->part + f->part_len, f->part_need - f->part_len, MSG_DONTWAIT);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				return;
			if (n <= 0) {
				srx_fail_errno(r, f, "read record", n ? errno : EPIPE);
				return;
			}
			f->part_len += (uint32_t)n;
			if (f->part_len < f->part_need)
				continue;
			if (f->part_need == 5) {
				n = sim_check_header(&f->keys, f->part, r->ferr, sizeof(r->ferr));
				if (n < 0) {
					if (!r->err[0])
						r->res->error_errno = errno;
					srx_close(r, f, false);
					return;
				}
				f->part_need = 5 + (uint32_t)n;
				continue;
			}
			if (srx_sim_part(r, f))
				return;
			continue;
		}
		if (ioctl(f->fd, SIOCINQ, &avail))
			avail = 0;
		if (!avail && !hup)
			return;
		if (avail >= 5 && !hup) {
			n = recv(f->fd, hdr, sizeof(hdr), MSG_PEEK | MSG_DONTWAIT);
			if (n == (ssize_t)sizeof(hdr) && avail < 5 + ((int)hdr[3] << 8 | hdr[4]) &&
			    sim_check_header(&f->keys, hdr, r->ferr, sizeof(r->ferr)) >= 0)
				avail = 0;       /* incomplete and well framed: buffer it */
		}
		if (!hup && avail < 5) {
			f->part = malloc(5 + MAX_RECORD + 256);
			if (!f->part) {
				snprintf(r->ferr, sizeof(r->ferr), "out of memory");
				srx_close(r, f, false);
				return;
			}
			f->part_len = 0;
			f->part_need = 5;
			continue;
		}
		/* A whole record (or a framing error) queued, or the peer closed: cannot block. */
		n = sim_open_record(f->fd, &f->keys, &type, r->buf, r->ferr, sizeof(r->ferr));
		if (n == SIM_EOF) {
			srx_close(r, f, true);
			return;
		}
		if (n < 0) {
			if (!r->err[0])
				r->res->error_errno = errno;
			srx_close(r, f, false);
			return;
		}
		if (type == RT_APPDATA)
			f->records++;
		rc = srx_record(r, f, type, r->buf, (size_t)n);
		if (rc) {
			srx_close(r, f, rc > 0);
			return;
		}
	}
}

/* A new connection: keys from its client port, TLS_RX, then the ready byte. */
static void srx_accepted(struct srx *r, int ep, int fd, const struct sockaddr_storage *peer)
{
	const struct options *o = r->o;
	unsigned i = r->accepted++;
	struct srx_flow *f = &r->flows[i];
	static const uint8_t ready = READY_BYTE;

	f->fd = fd;
	f->port = sockaddr_port(peer);
	f->state = RXS_ACTIVE;
	verifier_init(&f->v, o, r->claims);
	net_set_timeouts(fd, o->timeout_sec);
	if (seed_derive_keys(o->seed_keys, f->port, o->cipher, &f->keys, r->ferr, sizeof(r->ferr)))
		goto fail;
	if (o->rx_mode == RX_MANUAL) {
		int e = ktls_install(fd, &f->keys, true, r->ferr, sizeof(r->ferr));

		if (e) {
			if (!r->err[0])
				r->res->error_errno = -e;
			goto fail;
		}
	}
	if (send(fd, &ready, 1, MSG_NOSIGNAL) != 1) {
		err_errno(r->ferr, sizeof(r->ferr), "writing the ready byte", errno);
		goto fail;
	}
	if (ep_ctl(ep, EPOLL_CTL_ADD, fd, EPOLLIN | EPOLLRDHUP, i)) {
		err_errno(r->ferr, sizeof(r->ferr), "epoll_ctl", errno);
		goto fail;
	}
	return;
fail:
	srx_close(r, f, false);
}

int run_recv_seeded(const struct options *o)
{
	struct run_result res = { .role = "recv", .flows = o->flows, .mode_key = "rx_mode",
				  .mode = rx_mode_names[o->rx_mode], .cipher = o->cipher->name,
				  .tls_version = "1.2", .ktls = o->rx_mode == RX_MANUAL, .bad_offset = -1,
				  .key_source = "seed" };
	static char err[ERRBUF_LEN + 64];
	struct srx r = { .o = o, .res = &res, .err = err, .errlen = sizeof(err) };
	struct epoll_event evs[EPOLL_BATCH];
	double t0 = 0, u0 = 0, s0 = 0, u1, s1;
	int lfd = -1, ep = -1;

	tls_stat_read(&res.before);
	watchdog_start(&res, o->timeout_sec);
	if (raise_nofile(o->flows + 64, o->flows, err, sizeof(err)))
		goto done;
	r.flows = calloc(o->flows, sizeof(*r.flows));
	r.claims = flow_claims_new(o->flows);
	r.buf = malloc(RX_BUF);
	if (!r.flows || !r.claims || !r.buf) {
		snprintf(err, sizeof(err), "out of memory");
		goto done;
	}
	lfd = net_listen(o, err, sizeof(err));
	if (lfd < 0)
		goto done;
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || set_nonblock(lfd, true) || ep_ctl(ep, EPOLL_CTL_ADD, lfd, EPOLLIN, UINT32_MAX)) {
		err_errno(err, sizeof(err), "epoll setup", errno);
		goto done;
	}
	logf_(o, "recv: listening on %s, %u flow(s), rx-mode %s, cipher %s, keys from --seed-keys", o->addr,
	      o->flows, rx_mode_names[o->rx_mode], o->cipher->name);
	cpu_times(&u0, &s0);
	while (r.done < o->flows) {
		int n = epoll_wait(ep, evs, EPOLL_BATCH, 1000);

		if (n < 0 && errno != EINTR) {
			err_errno(err, sizeof(err), "epoll_wait", errno);
			break;
		}
		for (int i = 0; i < n; i++) {
			uint32_t idx = evs[i].data.u32;
			struct srx_flow *f;

			if (idx == UINT32_MAX) {
				while (lfd >= 0 && r.accepted < o->flows) {
					struct sockaddr_storage peer;
					socklen_t plen = sizeof(peer);
					int fd = accept4(lfd, (struct sockaddr *)&peer, &plen, SOCK_CLOEXEC);

					if (fd < 0) {
						if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
							break;
						err_errno(err, sizeof(err), "accept", errno);
						goto stop;
					}
					if (!r.accepted)
						t0 = now_sec();
					srx_accepted(&r, ep, fd, &peer);
				}
				if (r.accepted == o->flows && lfd >= 0) {
					/* every flow open, TLS_RX set, ready byte sent */
					res.connect_seconds = now_sec() - t0;
					logf_(o, "recv: %u connections in %.3f s", o->flows, res.connect_seconds);
					close(lfd);
					lfd = -1;
				}
				continue;
			}
			f = &r.flows[idx];
			if (f->state != RXS_ACTIVE)
				continue;
			if (o->rx_mode == RX_MANUAL)
				srx_manual(&r, f);
			else
				srx_sim(&r, f, evs[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR));
		}
	}
stop:
	res.seconds = t0 ? now_sec() - t0 : 0;
	cpu_times(&u1, &s1);
	res.cpu_user = u1 - u0;
	res.cpu_sys = s1 - s0;
done:
	for (unsigned i = 0; r.flows && i < r.accepted; i++)
		if (r.flows[i].state == RXS_ACTIVE) {
			OPENSSL_cleanse(&r.flows[i].keys, sizeof(r.flows[i].keys));
			free(r.flows[i].part);
			close(r.flows[i].fd);
		}
	if (lfd >= 0)
		close(lfd);
	if (ep >= 0)
		close(ep);
	tls_stat_read(&res.after);
	res.ok = !err[0];
	if (res.ok)
		res.error_errno = 0;
	res.error = res.ok ? NULL : err;
	if (!res.ok)
		logf_(o, "recv: FAILED: %s", err);
	report_once(&res);
	free(r.flows);
	free(r.buf);
	flow_claims_free(r.claims);
	return res.ok ? 0 : 1;
}

/* ---- sender ---- */

enum { TXS_NEW, TXS_CONNECTING, TXS_WAIT_READY, TXS_READY, TXS_CLOSING, TXS_DONE, TXS_FAILED };

struct stx_flow {
	int fd;
	uint8_t state;
	uint16_t port;
	struct record_keys keys;
	struct pattern pat;
	uint64_t off, records, rng;
};

struct stx {
	const struct options *o;
	struct stx_flow *flows;
	struct run_result *res;
	char *err;
	size_t errlen;
	unsigned pending, ready, failed;
	char ferr[ERRBUF_LEN];
};

static void stx_fail(struct stx *s, struct stx_flow *f)
{
	unsigned i = (unsigned)(f - s->flows);

	if (f->state == TXS_NEW || f->state == TXS_CONNECTING || f->state == TXS_WAIT_READY)
		s->pending--;
	if (!s->err[0])
		snprintf(s->err, s->errlen, "flow %u (client port %u): %s", i, (unsigned)f->port, s->ferr);
	OPENSSL_cleanse(&f->keys, sizeof(f->keys));
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	f->state = TXS_FAILED;
	s->failed++;
}

/* Connected: keys from our port, TLS_TX (ktls), then wait for the receiver's ready byte. */
static void stx_connected(struct stx *s, int ep, struct stx_flow *f)
{
	struct sockaddr_storage me;
	socklen_t len = sizeof(me);
	unsigned i = (unsigned)(f - s->flows);

	if (getsockname(f->fd, (struct sockaddr *)&me, &len)) {
		err_errno(s->ferr, sizeof(s->ferr), "getsockname", errno);
		goto fail;
	}
	f->port = sockaddr_port(&me);
	if (seed_derive_keys(s->o->seed_keys, f->port, s->o->cipher, &f->keys, s->ferr, sizeof(s->ferr)))
		goto fail;
	if (s->o->tx_mode == TX_KTLS && ktls_install(f->fd, &f->keys, false, s->ferr, sizeof(s->ferr)))
		goto fail;
	if (ep_ctl(ep, f->state == TXS_NEW ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, f->fd, EPOLLIN | EPOLLRDHUP, i)) {
		err_errno(s->ferr, sizeof(s->ferr), "epoll_ctl", errno);
		goto fail;
	}
	f->state = TXS_WAIT_READY;
	return;
fail:
	stx_fail(s, f);
}

static void stx_open(struct stx *s, int ep, struct stx_flow *f, const struct sockaddr_storage *ss,
		     socklen_t sslen)
{
	unsigned i = (unsigned)(f - s->flows);
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	s->pending++;
	f->fd = fd;
	f->state = TXS_CONNECTING;
	if (fd < 0) {
		err_errno(s->ferr, sizeof(s->ferr), "socket", errno);
		goto fail;
	}
	net_set_timeouts(fd, s->o->timeout_sec);
	if (connect(fd, (const struct sockaddr *)ss, sslen) == 0) {
		f->state = TXS_NEW;      /* stx_connected adds it to epoll */
		stx_connected(s, ep, f);
		return;
	}
	if (errno != EINPROGRESS) {
		err_errno(s->ferr, sizeof(s->ferr), errno == EADDRNOTAVAIL ?
			  "connect (no free local port: net.ipv4.ip_local_port_range)" : "connect", errno);
		goto fail;
	}
	if (ep_ctl(ep, EPOLL_CTL_ADD, fd, EPOLLOUT, i)) {
		err_errno(s->ferr, sizeof(s->ferr), "epoll_ctl", errno);
		goto fail;
	}
	return;
fail:
	stx_fail(s, f);
}

static void stx_event(struct stx *s, int ep, struct stx_flow *f)
{
	if (f->state == TXS_CONNECTING) {
		int e = 0;
		socklen_t len = sizeof(e);

		if (getsockopt(f->fd, SOL_SOCKET, SO_ERROR, &e, &len) || e) {
			err_errno(s->ferr, sizeof(s->ferr), "connect", e ? e : errno);
			stx_fail(s, f);
			return;
		}
		stx_connected(s, ep, f);
	} else if (f->state == TXS_WAIT_READY) {
		uint8_t b;
		ssize_t n = recv(f->fd, &b, 1, MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n == 1 && b == READY_BYTE) {
			epoll_ctl(ep, EPOLL_CTL_DEL, f->fd, NULL);
			f->state = TXS_READY;
			s->pending--;
			s->ready++;
			return;
		}
		if (n < 0)
			err_errno(s->ferr, sizeof(s->ferr), "waiting for the ready byte", errno);
		else if (n == 0)
			snprintf(s->ferr, sizeof(s->ferr), "the receiver closed the connection before its ready "
				 "byte (did it fail to set up TLS, or run without --seed-keys?)");
		else
			snprintf(s->ferr, sizeof(s->ferr), "expected the ready byte 0x%02x, got 0x%02x",
				 READY_BYTE, b);
		stx_fail(s, f);
	}
}

/* 0, or -1 with ferr filled. */
static int stx_write_all(struct stx *s, int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err_errno(s->ferr, sizeof(s->ferr), "send", errno);
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One record through kTLS TX or the sim model; alerts via TLS_SET_RECORD_TYPE. */
static int stx_record(struct stx *s, struct stx_flow *f, uint8_t type, const uint8_t *p, size_t len,
		      uint8_t *wire)
{
	if (s->o->tx_mode == TX_SIM) {
		size_t n = sim_seal_record(&f->keys, type, p, len, wire);

		if (!n) {
			snprintf(s->ferr, sizeof(s->ferr), "userspace record encryption failed");
			return -1;
		}
		return stx_write_all(s, f->fd, wire, n);
	}
	if (type == RT_APPDATA)
		return stx_write_all(s, f->fd, p, len);    /* one send() of <= 16 KiB: one record */
	{
		char cbuf[CMSG_SPACE(sizeof(uint8_t))] = { 0 };
		struct iovec iov = { .iov_base = (void *)p, .iov_len = len };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		ssize_t n;

		c->cmsg_level = SOL_TLS;
		c->cmsg_type = TLS_SET_RECORD_TYPE;
		c->cmsg_len = CMSG_LEN(sizeof(uint8_t));
		*CMSG_DATA(c) = type;
		do
			n = sendmsg(f->fd, &m, MSG_NOSIGNAL);
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)len) {
			err_errno(s->ferr, sizeof(s->ferr), "sendmsg(TLS_SET_RECORD_TYPE)", n < 0 ? errno : EIO);
			return -1;
		}
		return 0;
	}
}

/* The next data record of flow f: 1 = sent, 0 = nothing left, -1 = failed. */
static int stx_next(struct stx *s, struct stx_flow *f, uint8_t *buf, uint8_t *wire)
{
	const struct options *o = s->o;
	uint64_t len = o->rec_min;

	if (f->off >= o->bytes)
		return 0;
	if (o->rec_max > o->rec_min)
		len += splitmix64(&f->rng) % (o->rec_max - o->rec_min + 1);
	if (len > o->bytes - f->off)
		len = o->bytes - f->off;
	pattern_fill(&f->pat, f->off, buf, (size_t)len);
	/* Hidden test hook: corrupt one payload byte before encryption. */
	if (o->corrupt_at >= 0 && (uint64_t)o->corrupt_at >= f->off && (uint64_t)o->corrupt_at < f->off + len)
		buf[o->corrupt_at - (int64_t)f->off] ^= 0x5a;
	if (stx_record(s, f, RT_APPDATA, buf, (size_t)len, wire))
		return -1;
	f->off += len;
	f->records++;
	return 1;
}

int run_send_seeded(const struct options *o)
{
	struct run_result res = { .role = "send", .flows = o->flows, .mode_key = "tx_mode",
				  .mode = tx_mode_names[o->tx_mode], .cipher = o->cipher->name,
				  .tls_version = "1.2", .ktls = o->tx_mode == TX_KTLS, .bad_offset = -1,
				  .key_source = "seed" };
	static char err[ERRBUF_LEN + 64];
	struct stx s = { .o = o, .res = &res, .err = err, .errlen = sizeof(err) };
	struct epoll_event evs[EPOLL_BATCH];
	struct sockaddr_storage ss;
	socklen_t sslen;
	uint8_t *buf = malloc(MAX_RECORD), *wire = malloc(MAX_RECORD + 64);
	double t0 = 0, u0 = 0, s0 = 0, u1, s1;
	unsigned next = 0, closing = 0;
	int ep = -1, progress;

	tls_stat_read(&res.before);
	watchdog_start(&res, o->timeout_sec);
	if (raise_nofile(o->flows + 64, o->flows, err, sizeof(err)))
		goto done;
	s.flows = calloc(o->flows, sizeof(*s.flows));
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (!s.flows || !buf || !wire || ep < 0) {
		snprintf(err, sizeof(err), "out of memory");
		goto done;
	}
	if (parse_sockaddr(o->addr, &ss, &sslen, err, sizeof(err)))
		goto done;
	for (unsigned i = 0; i < o->flows; i++) {
		s.flows[i].fd = -1;
		s.flows[i].rng = o->seed ^ (0xa5a5a5a5ULL * (i + 1));
		pattern_init(&s.flows[i].pat, o->seed, i);
	}
	logf_(o, "send: connecting to %s, %u flow(s), tx-mode %s, cipher %s, keys from --seed-keys, %llu bytes/flow",
	      o->addr, o->flows, tx_mode_names[o->tx_mode], o->cipher->name, (unsigned long long)o->bytes);
	cpu_times(&u0, &s0);
	t0 = now_sec();
	/* The first connection retries ECONNREFUSED (the receiver may start later), the rest go async. */
	s.flows[0].fd = net_connect(o, s.ferr, sizeof(s.ferr));
	next = 1;
	s.pending = 1;
	s.flows[0].state = TXS_NEW;
	if (s.flows[0].fd < 0 || set_nonblock(s.flows[0].fd, true)) {
		stx_fail(&s, &s.flows[0]);
	} else {
		stx_connected(&s, ep, &s.flows[0]);
	}
	/* Phase 1: every connection open, TLS_TX set and the receiver ready. */
	while (s.ready + s.failed < o->flows) {
		int n;

		while (next < o->flows && s.pending < CONNECT_WINDOW && !err[0])
			stx_open(&s, ep, &s.flows[next++], &ss, sslen);
		if (err[0])
			break;
		n = epoll_wait(ep, evs, EPOLL_BATCH, 1000);
		if (n < 0 && errno != EINTR) {
			err_errno(err, sizeof(err), "epoll_wait", errno);
			break;
		}
		for (int i = 0; i < n; i++)
			stx_event(&s, ep, &s.flows[evs[i].data.u32]);
	}
	res.connect_seconds = now_sec() - t0;
	if (err[0])
		goto stop;
	logf_(o, "send: %u connections ready in %.3f s", o->flows, res.connect_seconds);
	/* Phase 2: one record per flow per round, blocking sends (SO_SNDTIMEO = --timeout). */
	for (unsigned i = 0; i < o->flows; i++)
		if (s.flows[i].state == TXS_READY && set_nonblock(s.flows[i].fd, false)) {
			err_errno(s.ferr, sizeof(s.ferr), "fcntl", errno);
			stx_fail(&s, &s.flows[i]);
		}
	do {
		progress = 0;
		for (unsigned i = 0; i < o->flows; i++) {
			struct stx_flow *f = &s.flows[i];
			int r;

			if (f->state != TXS_READY)
				continue;
			r = stx_next(&s, f, buf, wire);
			if (r < 0)
				stx_fail(&s, f);
			progress |= r > 0;
		}
	} while (progress);
	/* Phase 3: close_notify, SHUT_WR, wait for the receiver to close (our exit = data consumed). */
	for (unsigned i = 0; i < o->flows; i++) {
		static const uint8_t close_notify[2] = { 1, 0 };
		struct stx_flow *f = &s.flows[i];

		if (f->state != TXS_READY)
			continue;
		if (stx_record(&s, f, RT_ALERT, close_notify, 2, wire) || shutdown(f->fd, SHUT_WR) ||
		    ep_ctl(ep, EPOLL_CTL_ADD, f->fd, EPOLLIN | EPOLLRDHUP, i)) {
			if (!s.ferr[0])
				err_errno(s.ferr, sizeof(s.ferr), "shutdown", errno);
			stx_fail(&s, f);
			continue;
		}
		f->state = TXS_CLOSING;
		closing++;
	}
	while (closing) {
		int n = epoll_wait(ep, evs, EPOLL_BATCH, 1000);

		if (n < 0 && errno != EINTR) {
			err_errno(err, sizeof(err), "epoll_wait", errno);
			break;
		}
		for (int i = 0; i < n; i++) {
			struct stx_flow *f = &s.flows[evs[i].data.u32];
			ssize_t r;

			if (f->state != TXS_CLOSING)
				continue;
			r = recv(f->fd, buf, MAX_RECORD, MSG_DONTWAIT);
			if (r > 0 || (r < 0 && (errno == EAGAIN || errno == EINTR)))
				continue;
			closing--;
			if (r < 0 && errno != ECONNRESET) {
				err_errno(s.ferr, sizeof(s.ferr), "waiting for the receiver to close", errno);
				stx_fail(&s, f);
				continue;
			}
			OPENSSL_cleanse(&f->keys, sizeof(f->keys));
			close(f->fd);
			f->fd = -1;
			f->state = TXS_DONE;
		}
	}
stop:
	for (unsigned i = 0; i < o->flows; i++) {
		res.bytes += s.flows[i].off;
		res.records += s.flows[i].records;
	}
	res.seconds = now_sec() - t0;
	cpu_times(&u1, &s1);
	res.cpu_user = u1 - u0;
	res.cpu_sys = s1 - s0;
done:
	for (unsigned i = 0; s.flows && i < o->flows; i++)
		if (s.flows[i].fd >= 0) {
			OPENSSL_cleanse(&s.flows[i].keys, sizeof(s.flows[i].keys));
			close(s.flows[i].fd);
		}
	if (ep >= 0)
		close(ep);
	tls_stat_read(&res.after);
	res.ok = !err[0];
	res.error = res.ok ? NULL : err;
	if (!res.ok)
		logf_(o, "send: FAILED: %s", err);
	report_once(&res);
	free(s.flows);
	free(buf);
	free(wire);
	return res.ok ? 0 : 1;
}
