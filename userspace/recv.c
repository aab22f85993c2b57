// SPDX-License-Identifier: GPL-2.0
/*
 * Receiver role: TLS 1.2 (or --tls13: 1.3) server, N flows, each verified byte by byte, in one
 * of four rx modes (manual kTLS, OpenSSL kTLS, plain SSL_read, userspace sim).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <openssl/err.h>
#include "innova_tls.h"
#include "verify.h"

#define RX_BUF (64 * 1024)

struct rx_flow {
	const struct options *o;
	SSL_CTX *ctx;
	struct flow_claims *claims;
	int fd;
	pthread_t thread;
	bool started;
	/* results */
	bool ok;
	int ktls;
	uint64_t bytes, records, markers;
	uint64_t ku_received, rekeys, key_expired;   /* TLS 1.3 KeyUpdates read, next keys installed */
	int64_t bad_offset;
	int err_no;               /* errno of the receive call that failed, 0 = other failure */
	char err[ERRBUF_LEN];
};

static bool kernel_has_tls_ulp(void)
{
	char buf[256] = "";
	FILE *fp = fopen("/proc/sys/net/ipv4/tcp_available_ulp", "r");

	if (fp) {
		if (!fgets(buf, sizeof(buf), fp))
			buf[0] = 0;
		fclose(fp);
	}
	for (char *t = strtok(buf, " \n"); t; t = strtok(NULL, " \n"))
		if (!strcmp(t, "tls"))
			return true;
	return false;
}

/* --read-delay-us: a lagging reader, so the kernel's record parser falls behind the NIC. */
static void read_delay(const struct options *o)
{
	unsigned us = o->read_delay_us;

	if (us)
		nanosleep(&(struct timespec){ .tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000 },
			  NULL);
}

/* An alert record: close_notify ends the stream cleanly, anything else is an error. */
static int handle_alert(struct rx_flow *f, const uint8_t *p, size_t len)
{
	if (len == 2 && p[1] == 0)
		return 1;
	snprintf(f->err, sizeof(f->err), "peer sent TLS alert level %d description %d",
		 len > 0 ? p[0] : -1, len > 1 ? p[1] : -1);
	return -1;
}

/* --key-update-wrong-key K: the K-th next key gets one bit flipped (the secret stays right). */
static void wrong_key_toggle(struct rx_flow *f, struct record_keys *k)
{
	if (f->o->ku_wrong_at && f->o->ku_wrong_at == f->ku_received)
		k->key[0] ^= 0x01;
}

/*
 * After a KeyUpdate read through kTLS: the next traffic secret's key and iv
 * into TLS_RX, rec_seq 0 (RFC 8446 §7.2; the 6.14+ uAPI). A kernel before
 * that refuses a second TLS_RX with EBUSY.
 */
static int rx_rekey(struct rx_flow *f, struct verifier *v, struct record_keys *k)
{
	char what[256];
	int r;

	if (tls13_update_keys(k, f->err, sizeof(f->err)))
		return -1;
	wrong_key_toggle(f, k);
	r = ktls_set_key(f->fd, k, true);
	wrong_key_toggle(f, k);
	if (r) {
		f->err_no = -r;
		snprintf(what, sizeof(what), "%s: setsockopt(SOL_TLS, TLS_RX) with the next key after KeyUpdate %llu "
			 "(%llu payload bytes verified before it)",
			 r == -EBUSY ? "rekey unsupported by this kernel (a second TLS_RX is refused)" : "rekey refused",
			 (unsigned long long)f->ku_received, (unsigned long long)v->offset);
		err_errno(f->err, sizeof(f->err), what, -r);
		return -1;
	}
	f->rekeys++;
	return 0;
}

/* manual: kernel kTLS, records typed by the TLS_GET_RECORD_TYPE cmsg. */
static int rx_manual(struct rx_flow *f, struct verifier *v, struct record_keys *k, uint8_t *buf)
{
	uint64_t seq0 = 0, seq1 = 0, alerts = 0, handshakes = 0, seq_done = 0, seq_base;
	bool have_seq = ktls_get_rec_seq(f->fd, f->o->cipher, true, &seq0) == 0, pending = false;

	f->ktls = 1;
	seq_base = seq0;
	for (;;) {
		char cbuf[CMSG_SPACE(sizeof(unsigned char))];
		struct iovec iov = { .iov_base = buf, .iov_len = RX_BUF };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *c;
		int type = -1;
		ssize_t n = recvmsg(f->fd, &m, 0);

		if (n < 0 && errno == EKEYEXPIRED) {
			/* The kernel paused decryption at a KeyUpdate until TLS_RX gets the next key. */
			f->key_expired++;
			if (pending) {
				pending = false;
				if (rx_rekey(f, v, k))
					return -1;
				continue;
			}
			f->err_no = EKEYEXPIRED;
			snprintf(f->err, sizeof(f->err), "recvmsg (kTLS) after %llu payload bytes: EKEYEXPIRED with no "
				 "KeyUpdate waiting for its key", (unsigned long long)v->offset);
			return -1;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			char what[128];

			f->err_no = errno;
			snprintf(what, sizeof(what), "recvmsg (kTLS) after %llu payload bytes",
				 (unsigned long long)v->offset);
			err_errno(f->err, sizeof(f->err), what, f->err_no);
			return -1;
		}
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
			if (c->cmsg_level == SOL_TLS && c->cmsg_type == TLS_GET_RECORD_TYPE)
				type = *CMSG_DATA(c);
		if (pending) {
			/* --key-update-lazy: a kernel that pauses returns EKEYEXPIRED here, nothing else. */
			snprintf(f->err, sizeof(f->err), "recvmsg (kTLS) after KeyUpdate %llu, before its key was "
				 "installed, returned %zd bytes of record type %d instead of EKEYEXPIRED (the kernel did "
				 "not pause decryption)", (unsigned long long)f->ku_received, n, type);
			return -1;
		}
		if (n == 0)
			break;
		if (type == RT_APPDATA) {
			if (verifier_feed(v, buf, (size_t)n, f->err, sizeof(f->err)))
				return -1;
		} else if (type == RT_CCS) {
			f->markers++;      /* the emulated NIC's rekey marker: skip */
		} else if (type == RT_HANDSHAKE && f->o->tls13) {
			uint64_t s;

			if (ku_check_record(buf, (size_t)n, f->err, sizeof(f->err)))
				return -1;
			f->ku_received++;
			handshakes++;
			/* rec_seq restarts at 0 with the next key: add up the records of each key. */
			if (have_seq && ktls_get_rec_seq(f->fd, f->o->cipher, true, &s) == 0)
				seq_done += s - seq_base;
			else
				have_seq = false;
			seq_base = 0;
			if (f->o->ku_lazy)
				pending = true;    /* wait for the kernel's EKEYEXPIRED */
			else if (rx_rekey(f, v, k))
				return -1;
		} else if (type == RT_ALERT) {
			int r = handle_alert(f, buf, (size_t)n);

			alerts++;
			if (r < 0)
				return -1;
			break;
		} else {
			snprintf(f->err, sizeof(f->err), "unexpected TLS record type %d (%zd bytes) after %llu payload bytes",
				 type, n, (unsigned long long)v->offset);
			return -1;
		}
		read_delay(f->o);
	}
	/* recvmsg merges data records; the kernel's rec_seq counts them exactly. */
	if (have_seq && ktls_get_rec_seq(f->fd, f->o->cipher, true, &seq1) == 0)
		f->records = seq_done + seq1 - seq_base - f->markers - alerts - handshakes;
	return 0;
}

/* sim: same keys, records opened by the userspace model of kTLS. */
static int rx_sim(struct rx_flow *f, struct verifier *v, struct record_keys *k, uint8_t *buf)
{
	f->ktls = 0;
	for (;;) {
		uint8_t type;
		ssize_t n = sim_open_record(f->fd, k, &type, buf, f->err, sizeof(f->err));

		if (n == SIM_EOF)
			return 0;
		if (n < 0) {
			f->err_no = errno;     /* what kTLS recvmsg would have failed with */
			return -1;
		}
		if (type == RT_APPDATA) {
			f->records++;
			if (verifier_feed(v, buf, (size_t)n, f->err, sizeof(f->err)))
				return -1;
		} else if (type == RT_CCS) {
			f->markers++;
		} else if (type == RT_HANDSHAKE && f->o->tls13) {
			/* The model's TLS_RX: the next key at once, record number 0. */
			if (ku_check_record(buf, (size_t)n, f->err, sizeof(f->err)))
				return -1;
			f->ku_received++;
			if (tls13_update_keys(k, f->err, sizeof(f->err)))
				return -1;
			wrong_key_toggle(f, k);
			f->rekeys++;
		} else if (type == RT_ALERT) {
			return handle_alert(f, buf, (size_t)n) < 0 ? -1 : 0;
		} else {
			snprintf(f->err, sizeof(f->err), "unexpected TLS record type %d after %llu payload bytes",
				 type, (unsigned long long)v->offset);
			return -1;
		}
		read_delay(f->o);
	}
}

/* user / openssl: SSL_read until close_notify or EOF. */
static int rx_ssl(struct rx_flow *f, SSL *ssl, struct seq_tracker *t, struct verifier *v, uint8_t *buf)
{
	uint64_t seq0 = 0, seq1 = 0;
	bool have_seq = false;

	if (f->o->rx_mode == RX_OPENSSL) {
		f->ktls = BIO_get_ktls_recv(SSL_get_rbio(ssl)) ? 1 : 0;
		if (!f->ktls) {
			snprintf(f->err, sizeof(f->err), "kTLS not available: OpenSSL did not enable kTLS RX "
				 "(BIO_get_ktls_recv = 0%s)", kernel_has_tls_ulp() ? "" :
				 "; the kernel has no \"tls\" TCP ULP");
			return -1;
		}
		have_seq = ktls_get_rec_seq(f->fd, f->o->cipher, true, &seq0) == 0;
	} else {
		f->ktls = 0;
	}
	for (;;) {
		int n, read_errno;

		errno = 0;
		n = SSL_read(ssl, buf, RX_BUF);
		read_errno = errno;
		if (n <= 0) {
			int e = SSL_get_error(ssl, n);

			if (e == SSL_ERROR_ZERO_RETURN ||
			    (e == SSL_ERROR_SSL && ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING)) {
				ERR_clear_error();
				break;
			}
			if (e == SSL_ERROR_SYSCALL && read_errno == 0) {   /* EOF (IGNORE_UNEXPECTED_EOF) */
				break;
			}
			/*
			 * errno means something only for a failed socket read: always
			 * for SSL_ERROR_SYSCALL, and under kTLS RX also when OpenSSL
			 * turned the kernel's recvmsg error (EBADMSG...) into an alert.
			 */
			if (e == SSL_ERROR_SYSCALL || f->o->rx_mode == RX_OPENSSL)
				f->err_no = read_errno;
			snprintf(f->err, sizeof(f->err), "SSL_read after %llu payload bytes",
				 (unsigned long long)v->offset);
			errno = read_errno;    /* for ssl_err_append's SSL_ERROR_SYSCALL text */
			ssl_err_append(f->err, sizeof(f->err), ssl, n);
			return -1;
		}
		if (verifier_feed(v, buf, (size_t)n, f->err, sizeof(f->err)))
			return -1;
		read_delay(f->o);
	}
	if (have_seq && ktls_get_rec_seq(f->fd, f->o->cipher, true, &seq1) == 0)
		f->records = seq1 - seq0 - ((SSL_get_shutdown(ssl) & SSL_RECEIVED_SHUTDOWN) ? 1 : 0);
	else
		f->records = t->rd_app_records;
	/* OpenSSL followed the KeyUpdates itself (and, in rx-mode openssl, rekeyed kTLS or failed). */
	f->ku_received = f->rekeys = t->rd_key_updates;
	return 0;
}

/*
 * --expect-error: the flow passes only if its receive call failed with
 * exactly that errno, after every byte delivered before it verified (any
 * mismatch already failed it without an errno). f->err keeps what happened.
 */
static bool expected_error_seen(struct rx_flow *f, struct verifier *v, int r)
{
	int want = f->o->expect_errno;
	char what[ERRBUF_LEN];

	if (!r) {
		snprintf(f->err, sizeof(f->err), "expected %s, but the stream ended without an error after "
			 "%llu payload bytes", errno_name(want), (unsigned long long)v->offset);
		return false;
	}
	snprintf(what, sizeof(what), "%s", f->err);
	if (f->err_no != want) {
		snprintf(f->err, sizeof(f->err), "expected %s, got %s: %.400s", errno_name(want),
			 f->err_no ? errno_name(f->err_no) : "a failure without errno", what);
		return false;
	}
	/* The payload before the error: --bytes exactly, and the flow identified. */
	if (verifier_finish(v, f->err, sizeof(f->err))) {
		size_t n = strlen(f->err);

		snprintf(f->err + n, sizeof(f->err) - n, " (before the expected %s: %.200s)",
			 errno_name(want), what);
		return false;
	}
	return true;
}

static void *rx_flow_main(void *arg)
{
	struct rx_flow *f = arg;
	const struct options *o = f->o;
	uint8_t *buf = malloc(RX_BUF);
	SSL *ssl = SSL_new(f->ctx);
	struct seq_tracker tracker;
	struct record_keys keys;
	struct verifier v;
	int r;

	verifier_init(&v, o, f->claims);
	f->ktls = -1;
	if (!buf || !ssl || !SSL_set_fd(ssl, f->fd)) {
		snprintf(f->err, sizeof(f->err), "out of memory");
		goto out;
	}
	seq_tracker_attach(ssl, &tracker, o->tls13);
	errno = 0;
	r = SSL_accept(ssl);
	if (r != 1) {
		snprintf(f->err, sizeof(f->err), "TLS handshake (SSL_accept)");
		ssl_err_append(f->err, sizeof(f->err), ssl, r);
		goto out;
	}
	if (o->rx_mode == RX_MANUAL || o->rx_mode == RX_SIM) {
		/* Anything OpenSSL already decrypted is payload; hand it to the verifier first. */
		while (SSL_pending(ssl) > 0) {
			int n = SSL_read(ssl, buf, RX_BUF);

			if (n <= 0 || verifier_feed(&v, buf, (size_t)n, f->err, sizeof(f->err))) {
				if (n <= 0)
					snprintf(f->err, sizeof(f->err), "draining SSL_pending failed");
				goto out;
			}
			f->records++;
		}
		if (ssl_check_no_buffered_input(ssl, f->err, sizeof(f->err)))
			goto out;
		if (!tracker.rd_ccs_seen) {
			snprintf(f->err, sizeof(f->err), "no %s seen; cannot tell the read sequence number",
				 o->tls13 ? "client Finished" : "ChangeCipherSpec");
			goto out;
		}
		if (derive_record_keys(ssl, o->cipher, KEYS_FOR_READ, tracker.rd_seq, &keys, f->err, sizeof(f->err)))
			goto out;
		if (o->rx_delay_ms)
			nanosleep(&(struct timespec){ .tv_sec = o->rx_delay_ms / 1000,
				  .tv_nsec = (long)(o->rx_delay_ms % 1000) * 1000000 }, NULL);
		if (o->rx_mode == RX_MANUAL) {
			if (ktls_install(f->fd, &keys, true, f->err, sizeof(f->err)))
				goto out_keys;
			r = rx_manual(f, &v, &keys, buf);
		} else {
			r = rx_sim(f, &v, &keys, buf);
		}
	} else {
		r = rx_ssl(f, ssl, &tracker, &v, buf);
	}
	if (r && o->ku_wrong_at && f->ku_received >= o->ku_wrong_at && f->err_no == EBADMSG) {
		size_t n = strlen(f->err);

		snprintf(f->err + n, sizeof(f->err) - n, " (the key installed at KeyUpdate %llu was deliberately "
			 "wrong: --key-update-wrong-key)", (unsigned long long)o->ku_wrong_at);
	}
	if (o->expect_errno) {
		f->ok = expected_error_seen(f, &v, r);
		goto out_keys;
	}
	if (r || verifier_finish(&v, f->err, sizeof(f->err)))
		goto out_keys;
	f->ok = true;
	if (o->rx_mode == RX_USER || o->rx_mode == RX_OPENSSL)
		SSL_shutdown(ssl);      /* polite close_notify back; result does not matter */
out_keys:
	OPENSSL_cleanse(&keys, sizeof(keys));
out:
	f->bytes = v.offset;
	f->bad_offset = v.bad_offset;
	SSL_free(ssl);
	seq_tracker_wipe(&tracker);
	close(f->fd);
	free(buf);
	return NULL;
}

int run_recv(const struct options *o)
{
	struct run_result res = { .role = "recv", .flows = o->flows, .mode_key = "rx_mode",
				  .mode = rx_mode_names[o->rx_mode], .cipher = o->cipher->name,
				  .tls_version = o->tls13 ? "1.3" : "1.2", .ktls = -1, .bad_offset = -1, .expect_errno = o->expect_errno,
				  .ku_recv = o->tls13, .ku_wrong_at = o->ku_wrong_at };
	struct rx_flow *flows = calloc(o->flows, sizeof(*flows));
	struct flow_claims *claims = flow_claims_new(o->flows);
	static char err[ERRBUF_LEN + 64], expected[ERRBUF_LEN + 64];
	int expected_errno = 0;
	SSL_CTX *ctx = NULL;
	double t0 = 0, u0, s0, u1, s1;
	int lfd = -1;

	tls_stat_read(&res.before);
	watchdog_start(&res, o->timeout_sec);
	if (!flows || !claims) {
		snprintf(err, sizeof(err), "out of memory");
		goto done;
	}
	ctx = make_server_ctx(o, err, sizeof(err));
	if (!ctx)
		goto done;
	lfd = net_listen(o, err, sizeof(err));
	if (lfd < 0)
		goto done;
	logf_(o, "recv: listening on %s, %u flow(s), rx-mode %s, cipher %s, TLS %s", o->addr, o->flows,
	      rx_mode_names[o->rx_mode], o->cipher->name, res.tls_version);
	cpu_times(&u0, &s0);
	for (unsigned i = 0; i < o->flows; i++) {
		struct rx_flow *f = &flows[i];

		f->fd = net_accept(lfd, o->timeout_sec, err, sizeof(err));
		if (f->fd < 0)
			break;
		if (i == 0)
			t0 = now_sec();
		f->o = o;
		f->ctx = ctx;
		f->claims = claims;
		if (pthread_create(&f->thread, NULL, rx_flow_main, f)) {
			snprintf(err, sizeof(err), "pthread_create failed");
			close(f->fd);
			break;
		}
		f->started = true;
	}
	res.ktls = -1;
	for (unsigned i = 0; i < o->flows; i++) {
		struct rx_flow *f = &flows[i];

		if (!f->started)
			continue;
		pthread_join(f->thread, NULL);
		res.bytes += f->bytes;
		res.records += f->records;
		res.rekey_markers += f->markers;
		res.ku_received += f->ku_received;
		res.rekeys_installed += f->rekeys;
		res.key_expired_seen += f->key_expired;
		if (f->ktls >= 0)
			res.ktls = (res.ktls < 0 ? 1 : res.ktls) && f->ktls;
		if (!f->ok && !err[0]) {
			snprintf(err, sizeof(err), "conn %u: %s", i, f->err);
			res.bad_offset = f->bad_offset;
			res.error_errno = f->err_no;
		} else if (f->ok && f->err[0] && !expected[0]) {
			/* Only with --expect-error: a passing flow that ended in the expected error. */
			snprintf(expected, sizeof(expected), "conn %u: %s", i, f->err);
			expected_errno = f->err_no;
		}
	}
	res.seconds = t0 ? now_sec() - t0 : 0;
	cpu_times(&u1, &s1);
	res.cpu_user = u1 - u0;
	res.cpu_sys = s1 - s0;
done:
	if (lfd >= 0)
		close(lfd);
	SSL_CTX_free(ctx);
	tls_stat_read(&res.after);
	res.ok = !err[0];
	res.error = res.ok ? (expected[0] ? expected : NULL) : err;
	if (res.ok)
		res.error_errno = expected_errno;
	if (!res.ok)
		logf_(o, "recv: FAILED: %s", err);
	else if (expected[0])
		logf_(o, "recv: ended in the expected %s: %s", errno_name(o->expect_errno), expected);
	report_once(&res);
	free(flows);
	flow_claims_free(claims);
	return res.ok ? 0 : 1;
}
