// SPDX-License-Identifier: GPL-2.0
/*
 * Sender role: TLS 1.2 (or --tls13: 1.3) client, N flows, pattern payload cut into records of
 * fixed or seeded-random size, sent via SSL_write (user), kernel kTLS TX
 * (ktls) or the userspace record model (sim).
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <openssl/err.h>
#include "innova_tls.h"

struct tx_flow {
	const struct options *o;
	SSL_CTX *ctx;
	unsigned index;
	pthread_t thread;
	bool started;
	bool ok;
	int ktls;
	enum tx_mode mode;        /* o->tx_mode, or TX_USER where kTLS TX cannot rekey */
	uint64_t bytes, records, markers, ku_sent;
	char err[ERRBUF_LEN];
};

/* Why tx-mode ktls sends with SSL_write under --key-update (NULL: it does not). */
static const char *ktls_ku_fallback;

/* --pause-at: SIGUSR1 resumes one pause, SIGUSR2 resumes and skips the rest. */
static volatile sig_atomic_t pause_resumes, pause_skip;

static void pause_signal(int sig)
{
	if (sig == SIGUSR2)
		pause_skip = 1;
	pause_resumes++;
}

/*
 * Hold the stream before the record at payload offset off: every record
 * written so far is whole, so TCP's stream ends at a record boundary once it
 * drains. The run's --timeout watchdog bounds the wait.
 */
static void pause_stream(const struct tx_flow *f, uint64_t off)
{
	sig_atomic_t base = pause_resumes;

	if (pause_skip)
		return;
	fprintf(stderr, "send: paused at byte %llu after %llu records; SIGUSR1 resumes\n",
		(unsigned long long)off, (unsigned long long)f->records);
	while (pause_resumes == base) {
		const struct timespec tick = { 0, 10 * 1000 * 1000 };

		nanosleep(&tick, NULL);
	}
}

/* 0, or -errno with err filled. */
static int write_all(int fd, const uint8_t *p, size_t len, int flags, char *err, size_t errlen)
{
	while (len) {
		ssize_t n = send(fd, p, len, flags | MSG_NOSIGNAL);

		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			err_errno(err, errlen, "send", e);
			return -e;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One record of a non-data content type through kTLS TX (TLS_SET_RECORD_TYPE cmsg). */
static int ktls_send_typed(int fd, uint8_t type, const uint8_t *p, size_t len, char *err, size_t errlen)
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
		n = sendmsg(fd, &m, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len) {
		err_errno(err, errlen, "sendmsg(TLS_SET_RECORD_TYPE)", n < 0 ? errno : EIO);
		return -1;
	}
	return 0;
}

static int send_record(struct tx_flow *f, SSL *ssl, int fd, struct record_keys *k,
		       uint8_t type, const uint8_t *p, size_t len, uint8_t *wire)
{
	switch (f->mode) {
	case TX_USER: {
		int n = SSL_write(ssl, p, (int)len);

		if (n != (int)len) {
			snprintf(f->err, sizeof(f->err), "SSL_write");
			ssl_err_append(f->err, sizeof(f->err), ssl, n);
			return -1;
		}
		return 0;
	}
	case TX_KTLS:
		/* A send() of <= 16 KiB without MSG_MORE is exactly one record. */
		if (type != RT_APPDATA)
			return ktls_send_typed(fd, type, p, len, f->err, sizeof(f->err));
		return write_all(fd, p, len, 0, f->err, sizeof(f->err));
	case TX_SIM:
	default: {
		size_t n = sim_seal_record(k, type, p, len, wire);

		if (!n) {
			snprintf(f->err, sizeof(f->err), "userspace record encryption failed");
			return -1;
		}
		return write_all(fd, wire, n, 0, f->err, sizeof(f->err));
	}
	}
}

/*
 * One TLS 1.3 KeyUpdate (update_not_requested), then this side's next write
 * key (RFC 8446 §4.6.3: every record after it is under the new key).
 */
static int send_key_update(struct tx_flow *f, SSL *ssl, int fd, struct record_keys *k, uint8_t *wire)
{
	int r;

	switch (f->mode) {
	case TX_USER:
		/* SSL_do_handshake writes the scheduled KeyUpdate now rather than with the next record. */
		if (!SSL_key_update(ssl, SSL_KEY_UPDATE_NOT_REQUESTED) || (r = SSL_do_handshake(ssl)) != 1) {
			snprintf(f->err, sizeof(f->err), "KeyUpdate %llu (SSL_key_update)",
				 (unsigned long long)f->ku_sent + 1);
			ssl_err_append(f->err, sizeof(f->err), ssl, 0);
			return -1;
		}
		break;
	case TX_KTLS:
		if (ktls_send_typed(fd, RT_HANDSHAKE, key_update_msg, KEY_UPDATE_MSG_LEN, f->err, sizeof(f->err)) ||
		    tls13_update_keys(k, f->err, sizeof(f->err)))
			return -1;
		r = ktls_set_key(fd, k, false);
		if (r) {
			char what[128];

			snprintf(what, sizeof(what), "KeyUpdate %llu: setsockopt(SOL_TLS, TLS_TX) with the next key",
				 (unsigned long long)f->ku_sent + 1);
			err_errno(f->err, sizeof(f->err), what, -r);
			return -1;
		}
		break;
	case TX_SIM:
	default: {
		size_t n = sim_seal_record(k, RT_HANDSHAKE, key_update_msg, KEY_UPDATE_MSG_LEN, wire);

		if (!n) {
			snprintf(f->err, sizeof(f->err), "userspace record encryption failed");
			return -1;
		}
		if (write_all(fd, wire, n, 0, f->err, sizeof(f->err)) || tls13_update_keys(k, f->err, sizeof(f->err)))
			return -1;
		break;
	}
	}
	f->ku_sent++;
	return 0;
}

static bool ccs_due(const struct options *o, uint64_t record_no)
{
	for (unsigned i = 0; i < o->n_ccs_at; i++)
		if (o->ccs_at[i] == record_no)
			return true;
	return false;
}

/*
 * --malformed. Framing limits of Linux 6.1 tls_rx_msg_size() for TLS 1.2:
 * length > 2^14 + overhead (at most 8 + 16) is EMSGSIZE, length < overhead is
 * EBADMSG, version other than 03 03 is EINVAL; tls_record_content_type()
 * fails a record of type 0 with EBADMSG.
 */
#define OVERSIZE_LEN   (MAX_RECORD + 256 + 1)  /* also above TLS 1.3's 2^14 + 256 */
#define FILLER_LEN     64                      /* bytes after a split bad header */
#define SPLIT_PAUSE_MS 50
#define UNSENT_WAIT_MS 10000

/*
 * A receiver can reject a record from its header alone and reset the
 * connection while the rest is still being written: past the header,
 * EPIPE/ECONNRESET are that rejection, not a sender failure.
 */
static int write_after_header(int fd, const uint8_t *p, size_t len, char *err, size_t errlen)
{
	int r = write_all(fd, p, len, 0, err, errlen);

	if (r == -EPIPE || r == -ECONNRESET) {
		err[0] = 0;
		return 0;
	}
	return r;
}

static void sleep_ms(unsigned ms)
{
	nanosleep(&(struct timespec){ .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 }, NULL);
}

/*
 * TCP appends new bytes to a queued skb that has not gone out yet, so the
 * 3 header bytes are only a segment of their own once they have left the
 * send queue. Bounded: a stalled peer must not turn into a hang here.
 */
static void wait_unsent(int fd, unsigned max_ms)
{
	int unsent;

	for (unsigned ms = 0; ms < max_ms; ms++) {
		if (ioctl(fd, SIOCOUTQNSD, &unsent) || unsent <= 0)
			return;
		sleep_ms(1);
	}
}

/* 17 03 03 | pause | length 00 00 (below any overhead) and filler, in one segment. */
static int send_split_badlen(struct tx_flow *f, int fd)
{
	static const uint8_t head[3] = { RT_APPDATA, 3, 3 };
	static const uint8_t rest[2 + FILLER_LEN];     /* all zero: length and filler */
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one))) {
		err_errno(f->err, sizeof(f->err), "setsockopt(TCP_NODELAY)", errno);
		return -1;
	}
	if (write_all(fd, head, sizeof(head), 0, f->err, sizeof(f->err)))
		return -1;
	wait_unsent(fd, UNSENT_WAIT_MS);
	sleep_ms(SPLIT_PAUSE_MS);
	return write_after_header(fd, rest, sizeof(rest), f->err, sizeof(f->err));
}

/* Header claiming OVERSIZE_LEN bytes, then that much filler. */
static int send_oversize(struct tx_flow *f, int fd)
{
	static const uint8_t head[5] = { RT_APPDATA, 3, 3, OVERSIZE_LEN >> 8, OVERSIZE_LEN & 0xff };
	uint8_t *filler = calloc(1, OVERSIZE_LEN);
	int r;

	if (!filler) {
		snprintf(f->err, sizeof(f->err), "out of memory");
		return -1;
	}
	r = write_all(fd, head, sizeof(head), 0, f->err, sizeof(f->err));
	if (!r)
		r = write_after_header(fd, filler, OVERSIZE_LEN, f->err, sizeof(f->err));
	free(filler);
	return r ? -1 : 0;
}

/*
 * version/type0: the record that data record K would have been (same
 * payload), sealed by the sim model; only the header differs. Type 0 is in
 * the AAD too, so the tag verifies. The version is patched after sealing: the
 * AAD always carries 03 03, so only the receiver's framing check can object.
 */
static int send_sealed_malformed(struct tx_flow *f, int fd, struct record_keys *k,
				 const uint8_t *p, size_t len, uint8_t *wire)
{
	bool type0 = f->o->malformed == MAL_TYPE0;
	size_t n = sim_seal_record(k, type0 ? 0 : RT_APPDATA, p, len, wire);

	if (!n) {
		snprintf(f->err, sizeof(f->err), "userspace record encryption failed");
		return -1;
	}
	if (!type0)
		wire[2] = 1;
	if (write_all(fd, wire, 5, 0, f->err, sizeof(f->err)))
		return -1;
	return write_after_header(fd, wire + 5, n - 5, f->err, sizeof(f->err)) ? -1 : 0;
}

static bool malformed_due(const struct tx_flow *f)
{
	return f->o->malformed && f->records + 1 == f->o->malformed_at;
}

/* Replaces data record K (payload p/len) with the --malformed record. */
static int send_malformed(struct tx_flow *f, int fd, struct record_keys *k,
			  const uint8_t *p, size_t len, uint8_t *wire)
{
	logf_(f->o, "send: flow %u: malformed record (%s) in place of data record %llu", f->index,
	      malformed_names[f->o->malformed], (unsigned long long)f->o->malformed_at);
	switch (f->o->malformed) {
	case MAL_SPLIT_BADLEN:
		return send_split_badlen(f, fd);
	case MAL_OVERSIZE:
		return send_oversize(f, fd);
	default:
		return send_sealed_malformed(f, fd, k, p, len, wire);
	}
}

static void *tx_flow_main(void *arg)
{
	struct tx_flow *f = arg;
	const struct options *o = f->o;
	uint8_t *buf = malloc(MAX_RECORD), *wire = malloc(MAX_RECORD + 64);
	uint64_t rng = o->seed ^ (0xa5a5a5a5ULL * (f->index + 1)), off = 0;
	unsigned next_pause = 0;
	struct seq_tracker tracker;
	struct record_keys keys;
	struct ku_sched ku;
	struct pattern pat;
	SSL *ssl = NULL;
	int fd, r;

	memset(&keys, 0, sizeof(keys));
	f->mode = o->tx_mode == TX_KTLS && ktls_ku_fallback ? TX_USER : o->tx_mode;
	f->ktls = f->mode == TX_KTLS;
	ku_sched_init(&ku, o, f->index);
	pattern_init(&pat, o->seed, f->index);
	fd = net_connect(o, f->err, sizeof(f->err));
	if (fd < 0)
		goto out_free;
	ssl = SSL_new(f->ctx);
	if (!buf || !wire || !ssl || !SSL_set_fd(ssl, fd)) {
		snprintf(f->err, sizeof(f->err), "out of memory");
		goto out;
	}
	seq_tracker_attach(ssl, &tracker, o->tls13);
	errno = 0;
	r = SSL_connect(ssl);
	if (r != 1) {
		snprintf(f->err, sizeof(f->err), "TLS handshake (SSL_connect)");
		ssl_err_append(f->err, sizeof(f->err), ssl, r);
		goto out;
	}
	if (f->mode != TX_USER) {
		if (!tracker.wr_ccs_seen) {
			snprintf(f->err, sizeof(f->err), "no %s written; cannot tell the write sequence number",
				 o->tls13 ? "client Finished" : "ChangeCipherSpec");
			goto out;
		}
		if (derive_record_keys(ssl, o->cipher, KEYS_FOR_WRITE, tracker.wr_seq, &keys, f->err, sizeof(f->err)))
			goto out;
		if (f->mode == TX_KTLS && ktls_install(fd, &keys, false, f->err, sizeof(f->err)))
			goto out;
	}
	while (off < o->bytes || malformed_due(f)) {
		uint64_t len = o->rec_min;

		if (next_pause < o->n_pause_at && off >= o->pause_at[next_pause] && off < o->bytes) {
			while (next_pause < o->n_pause_at && off >= o->pause_at[next_pause])
				next_pause++;
			pause_stream(f, off);
		}

		if (o->rec_max > o->rec_min)
			len += splitmix64(&rng) % (o->rec_max - o->rec_min + 1);
		/* A record after the payload exists only as --malformed K = records + 1. */
		if (off < o->bytes && len > o->bytes - off)
			len = o->bytes - off;
		for (unsigned n = ku_due(&ku, f->records); n; n--)
			if (send_key_update(f, ssl, fd, &keys, wire))
				goto out;
		if (ccs_due(o, f->records + 1)) {
			static const uint8_t ccs = 1;

			if (send_record(f, ssl, fd, &keys, RT_CCS, &ccs, 1, wire))
				goto out;
			f->markers++;
		}
		pattern_fill(&pat, off, buf, (size_t)len);
		if (malformed_due(f)) {
			if (send_malformed(f, fd, &keys, buf, (size_t)len, wire))
				goto out;
			goto wait_close;    /* stop sending; no close_notify after it */
		}
		/* Hidden test hook: corrupt one payload byte before encryption. */
		if (o->corrupt_at >= 0 && (uint64_t)o->corrupt_at >= off && (uint64_t)o->corrupt_at < off + len)
			buf[o->corrupt_at - (int64_t)off] ^= 0x5a;
		if (send_record(f, ssl, fd, &keys, RT_APPDATA, buf, (size_t)len, wire))
			goto out;
		off += len;
		f->records++;
	}
	f->bytes = off;
	if (o->malformed) {
		snprintf(f->err, sizeof(f->err), "--malformed %s@%llu: the payload ended after %llu data records",
			 malformed_names[o->malformed], (unsigned long long)o->malformed_at,
			 (unsigned long long)f->records);
		goto out;
	}
	/* close_notify: as an SSL_shutdown, or as a raw alert record through kTLS/sim. */
	if (f->mode == TX_USER) {
		SSL_shutdown(ssl);
	} else {
		static const uint8_t close_notify[2] = { 1, 0 };

		if (send_record(f, ssl, fd, &keys, RT_ALERT, close_notify, 2, wire))
			goto out;
	}
wait_close:
	/* Wait for the receiver to close, so our exit means the data was consumed. */
	shutdown(fd, SHUT_WR);
	for (;;) {
		ssize_t n = recv(fd, wire, MAX_RECORD, 0);

		if (n > 0 || (n < 0 && errno == EINTR))
			continue;
		if (n < 0 && errno != ECONNRESET) {
			err_errno(f->err, sizeof(f->err), "waiting for the receiver to close", errno);
			goto out;
		}
		break;
	}
	f->ok = true;
out:
	OPENSSL_cleanse(&keys, sizeof(keys));
	ERR_clear_error();
	SSL_free(ssl);
	seq_tracker_wipe(&tracker);
	close(fd);
out_free:
	free(buf);
	free(wire);
	f->bytes = off;
	return NULL;
}

int run_send(const struct options *o)
{
	struct run_result res = { .role = "send", .flows = o->flows, .mode_key = "tx_mode",
				  .mode = tx_mode_names[o->tx_mode], .cipher = o->cipher->name,
				  .tls_version = o->tls13 ? "1.3" : "1.2", .ktls = -1, .bad_offset = -1,
				  .malformed = o->malformed ? malformed_names[o->malformed] : NULL,
				  .malformed_at = o->malformed_at };
	struct tx_flow *flows = calloc(o->flows, sizeof(*flows));
	static char err[ERRBUF_LEN + 64];
	SSL_CTX *ctx = NULL;
	double t0, u0 = 0, s0 = 0, u1, s1;

	tls_stat_read(&res.before);
	/*
	 * kTLS TX rekey (a second TLS_TX after the KeyUpdate) exists where the
	 * kernel counts it (6.14+ uAPI: TlsTxRekeyOk); elsewhere the second
	 * TLS_TX is refused, so the flows send with OpenSSL instead, and say so.
	 */
	res.ku_send = o->ku_kind != KU_OFF;
	if (res.ku_send && o->tx_mode == TX_KTLS && !kernel_tls_stat_has("TlsTxRekeyOk"))
		ktls_ku_fallback = "kTLS TX cannot rekey on this kernel (no TlsTxRekeyOk in /proc/net/tls_stat): "
				   "sent with SSL_write (userspace TLS) instead";
	res.ku_tx = !res.ku_send ? NULL : ktls_ku_fallback ? "user" : tx_mode_names[o->tx_mode];
	res.ku_note = ktls_ku_fallback;
	res.ktls = o->tx_mode == TX_KTLS && !ktls_ku_fallback;
	if (o->n_pause_at) {
		struct sigaction sa = { .sa_handler = pause_signal, .sa_flags = SA_RESTART };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR1, &sa, NULL);
		sigaction(SIGUSR2, &sa, NULL);
	}
	watchdog_start(&res, o->timeout_sec);
	if (!flows) {
		snprintf(err, sizeof(err), "out of memory");
		goto done;
	}
	ctx = make_client_ctx(o, err, sizeof(err));
	if (!ctx)
		goto done;
	logf_(o, "send: connecting to %s, %u flow(s), tx-mode %s, cipher %s, TLS %s, %llu bytes/flow", o->addr,
	      o->flows, tx_mode_names[o->tx_mode], o->cipher->name, res.tls_version, (unsigned long long)o->bytes);
	if (ktls_ku_fallback)
		logf_(o, "send: --key-update: %s", ktls_ku_fallback);
	cpu_times(&u0, &s0);
	t0 = now_sec();
	for (unsigned i = 0; i < o->flows; i++) {
		struct tx_flow *f = &flows[i];

		f->o = o;
		f->ctx = ctx;
		f->index = i;
		if (pthread_create(&f->thread, NULL, tx_flow_main, f)) {
			snprintf(err, sizeof(err), "pthread_create failed");
			break;
		}
		f->started = true;
	}
	for (unsigned i = 0; i < o->flows; i++) {
		struct tx_flow *f = &flows[i];

		if (!f->started)
			continue;
		pthread_join(f->thread, NULL);
		res.bytes += f->bytes;
		res.records += f->records;
		res.rekey_markers += f->markers;
		res.ku_sent += f->ku_sent;
		if (!f->ok && !err[0])
			snprintf(err, sizeof(err), "flow %u: %s", i, f->err);
	}
	res.seconds = now_sec() - t0;
	cpu_times(&u1, &s1);
	res.cpu_user = u1 - u0;
	res.cpu_sys = s1 - s0;
done:
	SSL_CTX_free(ctx);
	tls_stat_read(&res.after);
	res.ok = !err[0];
	res.error = res.ok ? NULL : err;
	if (!res.ok)
		logf_(o, "send: FAILED: %s", err);
	report_once(&res);
	free(flows);
	return res.ok ? 0 : 1;
}
