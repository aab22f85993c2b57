// SPDX-License-Identifier: GPL-2.0
/*
 * TLS 1.3 KeyUpdate (RFC 8446 §4.6.3, §7.2): the sender's schedule
 * (--key-update), the next traffic secret and its record keys (both ends),
 * the check of a received KeyUpdate record, and the known-answer self test
 * (`innova-tls selftest-keyupdate`: RFC 8448 vectors, an HMAC cross-check of
 * "traffic upd", and OpenSSL's own SSL_key_update records opened with the
 * keys derived here). Key bytes are never printed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include "innova_tls.h"

/* HandshakeType key_update (24), uint24 length 1, KeyUpdateRequest update_not_requested (0) */
const uint8_t key_update_msg[KEY_UPDATE_MSG_LEN] = { 24, 0, 0, 1, 0 };

/* ---- sender schedule ---- */

static uint64_t ku_interval(struct ku_sched *s)
{
	const struct options *o = s->o;

	if (o->ku_max > o->ku_min)
		return o->ku_min + splitmix64(&s->rng) % (o->ku_max - o->ku_min + 1);
	return o->ku_min;
}

void ku_sched_init(struct ku_sched *s, const struct options *o, unsigned flow)
{
	s->o = o;
	/* Its own stream: record sizes stay what they were without --key-update. */
	s->rng = o->seed ^ 0x6b657975706461ULL ^ (0x9e3779b97f4a7c15ULL * (flow + 1));
	s->next = o->ku_kind == KU_OFF ? UINT64_MAX : ku_interval(s);
}

/*
 * KeyUpdates due before the next data record: after every interval of data
 * records (never before the first or after the last: the caller asks only
 * when another data record follows).
 */
unsigned ku_due(struct ku_sched *s, uint64_t records_sent)
{
	if (s->o->ku_kind == KU_OFF || records_sent == 0 || records_sent < s->next)
		return 0;
	s->next = records_sent + ku_interval(s);
	return s->o->ku_kind == KU_BURST ? s->o->ku_burst : 1;
}

/* ---- key derivation ---- */

static const char *digest_for(size_t secret_len)
{
	return secret_len == 48 ? "SHA384" : secret_len == 32 ? "SHA256" : NULL;
}

int tls13_update_keys(struct record_keys *k, char *err, size_t errlen)
{
	const char *md = digest_for(k->secret_len);
	uint8_t next[64];

	if (!k->tls13 || !md) {
		snprintf(err, errlen, "KeyUpdate: no TLS 1.3 traffic secret to update");
		return -1;
	}
	if (tls13_hkdf_expand_label(md, k->secret, k->secret_len, "traffic upd", next, k->secret_len) ||
	    tls13_hkdf_expand_label(md, next, k->secret_len, "key", k->key, k->cipher->key_len) ||
	    tls13_hkdf_expand_label(md, next, k->secret_len, "iv", k->fixed_iv, 12)) {
		OPENSSL_cleanse(next, sizeof(next));
		snprintf(err, errlen, "KeyUpdate: HKDF-Expand-Label failed");
		return -1;
	}
	memcpy(k->secret, next, k->secret_len);
	OPENSSL_cleanse(next, sizeof(next));
	k->seq = 0;
	return 0;
}

int ku_check_record(const uint8_t *p, size_t len, char *err, size_t errlen)
{
	if (len >= 4 && p[0] == 24 && p[1] == 0 && p[2] == 0 && p[3] == 1 && len == KEY_UPDATE_MSG_LEN &&
	    p[4] <= 1)
		return 0;
	snprintf(err, errlen, "unexpected TLS 1.3 handshake record (%zu bytes, message type %d%s): only a lone "
		 "KeyUpdate is expected after the handshake", len, len ? p[0] : -1,
		 len >= 4 && p[0] == 24 ? ", malformed KeyUpdate" : "");
	return -1;
}

bool kernel_tls_stat_has(const char *name)
{
	struct tls_stat s;

	tls_stat_read(&s);
	for (unsigned i = 0; i < s.n; i++)
		if (!strcmp(s.name[i], name))
			return true;
	return false;
}

/* ---- selftest-keyupdate ---- */

static unsigned st_n, st_fail;

static void st_result(bool ok, const char *fmt, const char *arg)
{
	st_n++;
	if (!ok)
		st_fail++;
	printf("%sok %u - ", ok ? "" : "not ", st_n);
	printf(fmt, arg);
	putchar('\n');
}

static size_t unhex(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;

	while (*s && n < max) {
		unsigned v;

		if (*s == ' ') {
			s++;
			continue;
		}
		if (sscanf(s, "%2x", &v) != 1)
			break;
		out[n++] = (uint8_t)v;
		s += 2;
	}
	return n;
}

/* RFC 8448 §3 (simple 1-RTT handshake, TLS_AES_128_GCM_SHA256): secret -> write key, write iv. */
static const struct {
	const char *what, *secret, *key, *iv;
} rfc8448[] = {
	{ "server handshake traffic secret",
	  "b6 7b 7d 69 0c c1 6c 4e 75 e5 42 13 cb 2d 37 b4 e9 c9 12 bc de d9 10 5d 42 be fd 59 d3 91 ad 38",
	  "3f ce 51 60 09 c2 17 27 d0 f2 e4 e8 6e e4 03 bc", "5d 31 3e b2 67 12 76 ee 13 00 0b 30" },
	{ "client handshake traffic secret",
	  "b3 ed db 12 6e 06 7f 35 a7 80 b3 ab f4 5e 2d 8f 3b 1a 95 07 38 f5 2e 96 00 74 6a 0e 27 a5 5a 21",
	  "db fa a6 93 d1 76 2c 5b 66 6a f5 d9 50 25 8d 01", "5b d3 c7 1b 83 6e 0b 76 bb 73 26 5f" },
	{ "server application traffic secret 0",
	  "a1 1a f9 f0 55 31 f8 56 ad 47 11 6b 45 a9 50 32 82 04 b4 f4 4b fb 6b 3a 4b 4f 1f 3f cb 63 16 43",
	  "9f 02 28 3b 6c 9c 07 ef c2 6b b9 f2 ac 92 e3 56", "cf 78 2b 88 dd 83 54 9a ad f1 e9 84" },
};

static void st_rfc8448(void)
{
	for (size_t i = 0; i < sizeof(rfc8448) / sizeof(rfc8448[0]); i++) {
		uint8_t secret[32], key[16], iv[12], got_key[16], got_iv[12];
		bool ok;

		unhex(rfc8448[i].secret, secret, sizeof(secret));
		unhex(rfc8448[i].key, key, sizeof(key));
		unhex(rfc8448[i].iv, iv, sizeof(iv));
		ok = !tls13_hkdf_expand_label("SHA256", secret, 32, "key", got_key, 16) &&
		     !tls13_hkdf_expand_label("SHA256", secret, 32, "iv", got_iv, 12) &&
		     !memcmp(key, got_key, 16) && !memcmp(iv, got_iv, 12);
		st_result(ok, "RFC 8448 §3 %s: HKDF-Expand-Label key and iv", rfc8448[i].what);
	}
}

/*
 * "traffic upd" against a second construction: for L <= Hash.length,
 * HKDF-Expand(PRK, info, L) = HMAC(PRK, info || 0x01)[0..L), info =
 * uint16 L || uint8 len("tls13 traffic upd") || "tls13 traffic upd" || uint8 0.
 */
static void st_traffic_upd(const char *md_name, size_t hlen)
{
	static const char label[] = "tls13 traffic upd";
	const struct cipher_desc *c = cipher_by_id(hlen == 48 ? CIPHER_AES256GCM : CIPHER_AES128GCM);
	struct record_keys k = { .cipher = c, .tls13 = true, .secret_len = hlen };
	uint8_t info[64], mac[64], secret0[64], key2[32], iv2[12];
	unsigned maclen = 0;
	size_t n = 0;
	char err[ERRBUF_LEN];
	bool ok;

	for (size_t i = 0; i < hlen; i++)
		secret0[i] = (uint8_t)(0x40 + 3 * i);
	memcpy(k.secret, secret0, hlen);
	info[n++] = 0;
	info[n++] = (uint8_t)hlen;
	info[n++] = (uint8_t)(sizeof(label) - 1);
	memcpy(info + n, label, sizeof(label) - 1);
	n += sizeof(label) - 1;
	info[n++] = 0;
	info[n++] = 1;
	ok = HMAC(EVP_get_digestbyname(md_name), secret0, (int)hlen, info, n, mac, &maclen) && maclen == hlen &&
	     !tls13_update_keys(&k, err, sizeof(err)) && !memcmp(k.secret, mac, hlen) && k.seq == 0 &&
	     !tls13_hkdf_expand_label(md_name, mac, hlen, "key", key2, c->key_len) &&
	     !tls13_hkdf_expand_label(md_name, mac, hlen, "iv", iv2, 12) &&
	     !memcmp(k.key, key2, c->key_len) && !memcmp(k.fixed_iv, iv2, 12);
	st_result(ok, "%s: next secret = HMAC(secret, info(\"traffic upd\") || 1), key/iv from it, seq 0", md_name);
	OPENSSL_cleanse(&k, sizeof(k));
}

/* Move what one side wrote to the other side's read BIO. */
static void shuttle(BIO *from, BIO *to)
{
	uint8_t buf[4096];
	int n;

	while ((n = BIO_read(from, buf, sizeof(buf))) > 0)
		BIO_write(to, buf, n);
}

/* Read exactly one TLS record from b (an OpenSSL client's output) and open it with k. */
static ssize_t open_one(BIO *b, struct record_keys *k, uint8_t *type, uint8_t *pt, char *err, size_t errlen)
{
	static uint8_t body[MAX_RECORD + 512];
	uint8_t hdr[5];
	ssize_t blen;

	if (BIO_read(b, hdr, 5) != 5) {
		snprintf(err, errlen, "no record written");
		return -1;
	}
	blen = sim_check_header(k, hdr, err, errlen);
	if (blen < 0)
		return -1;
	if (BIO_read(b, body, (int)blen) != (int)blen) {
		snprintf(err, errlen, "short record");
		return -1;
	}
	return sim_open_body(k, hdr, body, (size_t)blen, type, pt, err, errlen);
}

/*
 * OpenSSL's own KeyUpdate: a TLS 1.3 client (memory BIOs) writes data, then
 * SSL_key_update + SSL_do_handshake, then data, several times; each record it
 * writes must open with the keys derived here, the KeyUpdate record under the
 * old key, the data after it only under the new one.
 */
static void st_openssl_pair(enum cipher_id id)
{
	const struct cipher_desc *c = cipher_by_id(id);
	struct options o;
	SSL_CTX *cctx = NULL, *sctx = NULL;
	SSL *cl = NULL, *sv = NULL;
	BIO *c_in = BIO_new(BIO_s_mem()), *c_out = BIO_new(BIO_s_mem());
	BIO *s_in = BIO_new(BIO_s_mem()), *s_out = BIO_new(BIO_s_mem());
	struct seq_tracker tr;
	struct record_keys k, old;
	static uint8_t pt[MAX_RECORD + 512];
	char err[ERRBUF_LEN] = "", what[256];
	unsigned updates = 0;
	int i;

	memset(&k, 0, sizeof(k));
	memset(&old, 0, sizeof(old));
	memset(&o, 0, sizeof(o));
	o.tls13 = true;
	o.cipher = c;
	o.rx_mode = RX_USER;
	snprintf(what, sizeof(what), "OpenSSL SSL_key_update x8 (%s, %s): every record opens with the derived keys, "
		 "old key refused after the update", c->name, c->openssl_name13);
	cctx = make_client_ctx(&o, err, sizeof(err));
	sctx = cctx ? make_server_ctx(&o, err, sizeof(err)) : NULL;
	cl = sctx ? SSL_new(cctx) : NULL;
	sv = cl ? SSL_new(sctx) : NULL;
	if (!sv || !c_in || !c_out || !s_in || !s_out) {
		if (!err[0])
			snprintf(err, sizeof(err), "setup failed");
		goto out;
	}
	SSL_set_bio(cl, c_in, c_out);
	SSL_set_bio(sv, s_in, s_out);
	c_in = c_out = s_in = s_out = NULL;
	seq_tracker_attach(cl, &tr, true);
	SSL_set_connect_state(cl);
	SSL_set_accept_state(sv);
	for (i = 0; i < 10 && (!SSL_is_init_finished(cl) || !SSL_is_init_finished(sv)); i++) {
		SSL_do_handshake(cl);
		shuttle(SSL_get_wbio(cl), SSL_get_rbio(sv));
		SSL_do_handshake(sv);
		shuttle(SSL_get_wbio(sv), SSL_get_rbio(cl));
	}
	if (!SSL_is_init_finished(cl) || !SSL_is_init_finished(sv)) {
		snprintf(err, sizeof(err), "handshake did not finish");
		goto out;
	}
	if (derive_record_keys(cl, c, KEYS_FOR_WRITE, tr.wr_seq, &k, err, sizeof(err)))
		goto out;
	for (int round = 0; round < 9; round++) {
		uint8_t msg[3000], type = 0;
		ssize_t n;
		size_t len = 1 + (size_t)round * 300;

		for (size_t j = 0; j < len; j++)
			msg[j] = (uint8_t)(round * 31 + j);
		if (SSL_write(cl, msg, (int)len) != (int)len) {
			snprintf(err, sizeof(err), "SSL_write failed");
			goto out;
		}
		if (round > 0) {
			/* The record after an update must not open under the key before it. */
			uint8_t hdr[5], t2;
			static uint8_t body[4096];
			int blen;

			if (BIO_ctrl_pending(SSL_get_wbio(cl)) < 5 + len) {
				snprintf(err, sizeof(err), "round %d: record missing", round);
				goto out;
			}
			/* peek: copy the record out, then open it with the old key */
			blen = BIO_read(SSL_get_wbio(cl), hdr, 5);
			blen = BIO_read(SSL_get_wbio(cl), body, hdr[3] << 8 | hdr[4]);
			if (blen <= 0 || sim_open_body(&old, hdr, body, (size_t)blen, &t2, pt, err, sizeof(err)) >= 0 ||
			    errno != EBADMSG) {
				snprintf(err, sizeof(err), "round %d: the old key opened a record after the KeyUpdate",
					 round);
				goto out;
			}
			err[0] = 0;
			n = sim_open_body(&k, hdr, body, (size_t)blen, &type, pt, err, sizeof(err));
		} else {
			n = open_one(SSL_get_wbio(cl), &k, &type, pt, err, sizeof(err));
		}
		if (n < 0)
			goto out;
		if (type != RT_APPDATA || (size_t)n != len || memcmp(pt, msg, len)) {
			snprintf(err, sizeof(err), "round %d: data record differs (type %u, %zd bytes)", round, type, n);
			goto out;
		}
		if (round == 8)
			break;
		if (!SSL_key_update(cl, SSL_KEY_UPDATE_NOT_REQUESTED) || SSL_do_handshake(cl) != 1) {
			snprintf(err, sizeof(err), "SSL_key_update/SSL_do_handshake failed");
			goto out;
		}
		n = open_one(SSL_get_wbio(cl), &k, &type, pt, err, sizeof(err));
		if (n < 0)
			goto out;
		if (type != RT_HANDSHAKE || ku_check_record(pt, (size_t)n, err, sizeof(err)))
			goto out;
		old = k;
		if (tls13_update_keys(&k, err, sizeof(err)))
			goto out;
		updates++;
	}
	if (updates != 8 || tr.wr_key_updates != 8)
		snprintf(err, sizeof(err), "%u updates opened, the tracker counted %llu", updates,
			 (unsigned long long)tr.wr_key_updates);
out:
	st_result(!err[0], "%s", what);
	if (err[0])
		printf("#   %s\n", err);
	ERR_clear_error();
	OPENSSL_cleanse(&k, sizeof(k));
	OPENSSL_cleanse(&old, sizeof(old));
	SSL_free(cl);
	SSL_free(sv);
	if (cl)
		seq_tracker_wipe(&tr);
	BIO_free(c_in);
	BIO_free(c_out);
	BIO_free(s_in);
	BIO_free(s_out);
	SSL_CTX_free(cctx);
	SSL_CTX_free(sctx);
}

/* KeyUpdates the schedule for o sends before data records 1..nrec */
static uint64_t ku_count(const struct options *o, uint64_t nrec)
{
	struct ku_sched s;
	uint64_t total = 0;

	ku_sched_init(&s, o, 0);
	for (uint64_t r = 0; r < nrec; r++)
		total += ku_due(&s, r);
	return total;
}

static void st_schedule(void)
{
	struct options o;
	struct ku_sched s;
	uint64_t total;
	bool ok;

	memset(&o, 0, sizeof(o));
	o.seed = 5;
	o.ku_kind = KU_EVERY;
	o.ku_min = o.ku_max = 10;
	o.ku_burst = 1;
	total = ku_count(&o, 64);
	st_result(total == 6, "%s", "schedule: every 10 over 64 records = 6 updates (after 10, 20, .., 60)");
	o.ku_min = o.ku_max = 1;
	total = ku_count(&o, 64);
	st_result(total == 63, "%s", "schedule: every record over 64 records = 63 updates");
	o.ku_kind = KU_BURST;
	o.ku_burst = 3;
	o.ku_min = o.ku_max = 16;
	total = ku_count(&o, 64);
	st_result(total == 9, "%s", "schedule: burst:3/16 over 64 records = 9 updates");
	o.ku_kind = KU_EVERY;
	o.ku_burst = 1;
	o.ku_min = o.ku_max = KU_INTERVAL_MAX;
	total = ku_count(&o, 2 * KU_INTERVAL_MAX + 1);
	st_result(total == 2, "%s", "schedule: every 20000 over 40001 records = 2 updates");
	o.ku_kind = KU_RANDOM;
	o.ku_min = 2;
	o.ku_max = 5;
	ku_sched_init(&s, &o, 0);
	ok = true;
	total = 0;
	for (uint64_t r = 0, last = 0; r < 10000; r++) {
		if (ku_due(&s, r)) {
			ok = ok && r - last >= 2 && r - last <= 5;
			last = r;
			total++;
		}
	}
	ok = ok && total > 10000 / 5 && total < 10000 / 2;
	{
		struct ku_sched s2;
		uint64_t same = 0;

		ku_sched_init(&s2, &o, 0);
		ku_sched_init(&s, &o, 0);
		for (uint64_t r = 0; r < 1000; r++)
			same += ku_due(&s, r) == ku_due(&s2, r);
		ok = ok && same == 1000;
	}
	st_result(ok, "%s", "schedule: random:2-5 keeps every gap in 2..5 and replays from the seed");
}

int run_selftest_keyupdate(void)
{
	char err[ERRBUF_LEN];
	uint8_t bad[5] = { 24, 0, 0, 1, 2 }, nst[5] = { 4, 0, 0, 1, 0 };

	st_rfc8448();
	st_traffic_upd("SHA256", 32);
	st_traffic_upd("SHA384", 48);
	st_openssl_pair(CIPHER_AES128GCM);
	st_openssl_pair(CIPHER_AES256GCM);
	st_openssl_pair(CIPHER_CHACHA20);
	st_result(!ku_check_record(key_update_msg, KEY_UPDATE_MSG_LEN, err, sizeof(err)) &&
		  ku_check_record(bad, 5, err, sizeof(err)) && ku_check_record(nst, 5, err, sizeof(err)) &&
		  ku_check_record(key_update_msg, 4, err, sizeof(err)),
		  "%s", "KeyUpdate record check: accepts 18 00 00 01 00, refuses a bad request byte, another "
		  "message, a short one");
	st_schedule();
	printf("1..%u\n", st_n);
	return st_fail ? 1 : 0;
}
