// SPDX-License-Identifier: GPL-2.0
/*
 * Record keys for handing a connection from OpenSSL to kernel kTLS: TLS 1.2
 * key block derivation (RFC 5246 §6.3), TLS 1.3 traffic key derivation
 * (RFC 8446 §7.1/§7.3, from the keylog callback's application traffic
 * secrets), record sequence tracking, and the tls12_crypto_info_* the kernel
 * expects (it uses the same structs for TLS 1.3).
 */
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include "innova_tls.h"

/* ECDSA suites: the receiver's ephemeral P-256 key is cheap to make even in a TCG guest. */
static const struct cipher_desc ciphers[CIPHER_COUNT] = {
	{ CIPHER_AES128GCM, "aes128gcm", "ECDHE-ECDSA-AES128-GCM-SHA256", "TLS_AES_128_GCM_SHA256",
	  TLS_CIPHER_AES_GCM_128,
	  16, 4, 8, sizeof(struct tls12_crypto_info_aes_gcm_128) },
	{ CIPHER_AES256GCM, "aes256gcm", "ECDHE-ECDSA-AES256-GCM-SHA384", "TLS_AES_256_GCM_SHA384",
	  TLS_CIPHER_AES_GCM_256,
	  32, 4, 8, sizeof(struct tls12_crypto_info_aes_gcm_256) },
	/* TLS 1.3 has an AES-CCM suite too, but nothing here needs it: --tls13 refuses CCM. */
	{ CIPHER_AES128CCM, "aes128ccm", "ECDHE-ECDSA-AES128-CCM", NULL, TLS_CIPHER_AES_CCM_128,
	  16, 4, 8, sizeof(struct tls12_crypto_info_aes_ccm_128) },
	/* RFC 7905: 12-byte fixed IV XORed with the sequence number, no explicit nonce. */
	{ CIPHER_CHACHA20, "chacha20", "ECDHE-ECDSA-CHACHA20-POLY1305", "TLS_CHACHA20_POLY1305_SHA256",
	  TLS_CIPHER_CHACHA20_POLY1305,
	  32, 12, 0, sizeof(struct tls12_crypto_info_chacha20_poly1305) },
};

const struct cipher_desc *cipher_by_name(const char *name)
{
	for (int i = 0; i < CIPHER_COUNT; i++)
		if (!strcmp(ciphers[i].name, name))
			return &ciphers[i];
	return NULL;
}

const struct cipher_desc *cipher_by_id(enum cipher_id id)
{
	return (unsigned)id < CIPHER_COUNT ? &ciphers[id] : NULL;
}

/*
 * TLS 1.3: a direction's application traffic keys protect every record after
 * the one carrying that direction's Finished (the header callback of that
 * record comes before its Finished message callback), so the numbering
 * starts there. No NewSessionTicket follows (num_tickets 0); a KeyUpdate
 * (--key-update) starts it again at 0; the middlebox-compatibility
 * ChangeCipherSpec is plaintext and ignored.
 */
static void msg_cb13(struct seq_tracker *t, int write_p, int content_type, const uint8_t *h, size_t len)
{
	/*
	 * A KeyUpdate (SSL_key_update on the sender, OpenSSL's own handling on
	 * the receiver) is the last record under the old key: its header
	 * callback already counted it, the next record is number 0 again.
	 */
	if (content_type == SSL3_RT_HANDSHAKE && len >= 1 && h[0] == SSL3_MT_KEY_UPDATE) {
		if (write_p) {
			t->wr_key_updates++;
			t->wr_seq = 0;
		} else {
			t->rd_key_updates++;
			t->rd_seq = 0;
		}
		return;
	}
	if (content_type == SSL3_RT_HANDSHAKE && len >= 1 && h[0] == SSL3_MT_FINISHED) {
		if (write_p) {
			t->wr_ccs_seen = true;
			t->wr_seq = 0;
		} else {
			t->rd_ccs_seen = true;
			t->rd_seq = 0;
		}
	} else if (content_type == SSL3_RT_HEADER && len >= 5) {
		if (write_p && t->wr_ccs_seen)
			t->wr_seq++;
		else if (!write_p && t->rd_ccs_seen)
			t->rd_seq++;
	} else if (content_type == SSL3_RT_INNER_CONTENT_TYPE && len >= 1 && !write_p && t->rd_ccs_seen &&
		   h[0] == RT_APPDATA) {
		t->rd_app_records++;
	}
}

/*
 * Count records per direction from OpenSSL's record-header callbacks. The
 * plaintext ChangeCipherSpec record resets that direction's sequence to 0;
 * every later record (Finished, application data, alerts) consumes one
 * number. This is exact whatever OpenSSL read or wrote past the handshake.
 */
static void msg_cb(int write_p, int version, int content_type, const void *buf,
		   size_t len, SSL *ssl, void *arg)
{
	struct seq_tracker *t = arg;
	const uint8_t *h = buf;

	(void)version;
	(void)ssl;
	if (!t)
		return;
	if (t->tls13) {
		msg_cb13(t, write_p, content_type, h, len);
		return;
	}
	if (content_type != SSL3_RT_HEADER || len < 5)
		return;
	if (write_p) {
		if (h[0] == RT_CCS && !t->wr_ccs_seen) {
			t->wr_ccs_seen = true;
			t->wr_seq = 0;
		} else if (t->wr_ccs_seen) {
			t->wr_seq++;
		}
	} else {
		if (h[0] == RT_CCS && !t->rd_ccs_seen) {
			t->rd_ccs_seen = true;
			t->rd_seq = 0;
		} else if (t->rd_ccs_seen) {
			t->rd_seq++;
			if (h[0] == RT_APPDATA)
				t->rd_app_records++;
		}
	}
}

void seq_tracker_attach(SSL *ssl, struct seq_tracker *t, bool tls13)
{
	memset(t, 0, sizeof(*t));
	t->tls13 = tls13;
	SSL_set_msg_callback(ssl, msg_cb);
	SSL_set_msg_callback_arg(ssl, t);
	SSL_set_app_data(ssl, t);       /* for tls13_keylog_cb */
}

void seq_tracker_wipe(struct seq_tracker *t)
{
	OPENSSL_cleanse(t->client_secret, sizeof(t->client_secret));
	OPENSSL_cleanse(t->server_secret, sizeof(t->server_secret));
	t->client_secret_len = t->server_secret_len = 0;
}

static int hexval(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/*
 * "CLIENT_TRAFFIC_SECRET_0 <client random> <secret>" (NSS key log format):
 * the secret goes into the tracker and nowhere else; other lines are ignored.
 */
void tls13_keylog_cb(const SSL *ssl, const char *line)
{
	static const char cl[] = "CLIENT_TRAFFIC_SECRET_0 ", sv[] = "SERVER_TRAFFIC_SECRET_0 ";
	struct seq_tracker *t = SSL_get_app_data(ssl);
	uint8_t *dst;
	size_t *dlen, n = 0;
	const char *p;

	if (!t)
		return;
	if (!strncmp(line, cl, sizeof(cl) - 1)) {
		dst = t->client_secret;
		dlen = &t->client_secret_len;
	} else if (!strncmp(line, sv, sizeof(sv) - 1)) {
		dst = t->server_secret;
		dlen = &t->server_secret_len;
	} else {
		return;
	}
	p = strchr(line + sizeof(cl) - 1, ' ');     /* skip the client random */
	*dlen = 0;
	if (!p)
		return;
	for (p++; n < TLS13_SECRET_MAX && isxdigit((unsigned char)p[0]) && isxdigit((unsigned char)p[1]); p += 2)
		dst[n++] = (uint8_t)(hexval(p[0]) << 4 | hexval(p[1]));
	if (!*p || *p == '\n')
		*dlen = n;
}

static int tls12_prf(const char *digest, const uint8_t *secret, size_t secret_len,
		     const uint8_t *seed, size_t seed_len, uint8_t *out, size_t out_len)
{
	EVP_KDF *kdf = EVP_KDF_fetch(NULL, "TLS1-PRF", NULL);
	EVP_KDF_CTX *kctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
	OSSL_PARAM params[4];
	int ok = 0;

	if (kctx) {
		params[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)digest, 0);
		params[1] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SECRET, (void *)secret, secret_len);
		params[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SEED, (void *)seed, seed_len);
		params[3] = OSSL_PARAM_construct_end();
		ok = EVP_KDF_derive(kctx, out, out_len, params) > 0;
	}
	EVP_KDF_CTX_free(kctx);
	EVP_KDF_free(kdf);
	return ok ? 0 : -1;
}

/* HKDF-Expand-Label(secret, label, "", out_len) of RFC 8446 §7.1 */
int tls13_hkdf_expand_label(const char *digest, const uint8_t *secret, size_t secret_len,
			     const char *label, uint8_t *out, size_t out_len)
{
	EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
	EVP_KDF_CTX *kctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
	size_t ll = strlen(label), n = 0;
	int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY, ok = 0;
	uint8_t info[2 + 1 + 6 + 32 + 1];
	OSSL_PARAM params[5];

	if (kctx && ll <= 32) {
		/* struct { uint16 length; opaque label<7..255> = "tls13 " + label; opaque context<0..255> = "" } */
		info[n++] = (uint8_t)(out_len >> 8);
		info[n++] = (uint8_t)out_len;
		info[n++] = (uint8_t)(6 + ll);
		memcpy(info + n, "tls13 ", 6);
		n += 6;
		memcpy(info + n, label, ll);
		n += ll;
		info[n++] = 0;
		params[0] = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode);
		params[1] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)digest, 0);
		params[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)secret, secret_len);
		params[3] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info, n);
		params[4] = OSSL_PARAM_construct_end();
		ok = EVP_KDF_derive(kctx, out, out_len, params) > 0;
	}
	EVP_KDF_CTX_free(kctx);
	EVP_KDF_free(kdf);
	return ok ? 0 : -1;
}

/*
 * TLS 1.3 (RFC 8446 §7.3): [sender]_write_key = HKDF-Expand-Label(secret, "key", "", key_length),
 * [sender]_write_iv = HKDF-Expand-Label(secret, "iv", "", 12), secret = the sender's
 * application traffic secret 0 (client->server: CLIENT_TRAFFIC_SECRET_0). The tracker's
 * secrets are wiped once used.
 */
static int derive_tls13_keys(SSL *ssl, const struct cipher_desc *c, bool client_write, uint64_t seq,
			     struct seq_tracker *t, struct record_keys *out, char *err, size_t errlen)
{
	const SSL_CIPHER *sc = SSL_get_current_cipher(ssl);
	const EVP_MD *md = sc ? SSL_CIPHER_get_handshake_digest(sc) : NULL;
	const uint8_t *secret = client_write ? t->client_secret : t->server_secret;
	size_t secret_len = client_write ? t->client_secret_len : t->server_secret_len;
	int rc = -1;

	if (SSL_version(ssl) != TLS1_3_VERSION) {
		snprintf(err, errlen, "negotiated %s, --tls13 needs TLS 1.3", SSL_get_version(ssl));
		goto out;
	}
	if (!c->openssl_name13 || !sc || strcmp(SSL_CIPHER_get_name(sc), c->openssl_name13)) {
		snprintf(err, errlen, "negotiated cipher %s, expected %s", sc ? SSL_CIPHER_get_name(sc) : "(none)",
			 c->openssl_name13 ? c->openssl_name13 : "(no TLS 1.3 suite)");
		goto out;
	}
	if (!md || !secret_len || secret_len != (size_t)EVP_MD_get_size(md)) {
		snprintf(err, errlen, "no %s application traffic secret from OpenSSL's keylog callback",
			 client_write ? "client" : "server");
		goto out;
	}
	out->cipher = c;
	out->tls13 = true;
	out->seq = seq;
	/* Kept for KeyUpdates (RFC 8446 §7.2): the next secret comes from this one. */
	memcpy(out->secret, secret, secret_len);
	out->secret_len = secret_len;
	if (tls13_hkdf_expand_label(EVP_MD_get0_name(md), secret, secret_len, "key", out->key, c->key_len) ||
	    tls13_hkdf_expand_label(EVP_MD_get0_name(md), secret, secret_len, "iv", out->fixed_iv, 12)) {
		snprintf(err, errlen, "TLS 1.3 HKDF-Expand-Label failed");
		OPENSSL_cleanse(out, sizeof(*out));
		goto out;
	}
	rc = 0;
out:
	seq_tracker_wipe(t);
	return rc;
}

int derive_record_keys(SSL *ssl, const struct cipher_desc *c, enum key_dir dir,
		       uint64_t seq, struct record_keys *out, char *err, size_t errlen)
{
	struct seq_tracker *t = SSL_get_app_data(ssl);
	const SSL_CIPHER *sc = SSL_get_current_cipher(ssl);
	SSL_SESSION *sess = SSL_get_session(ssl);
	uint8_t master[SSL_MAX_MASTER_KEY_LENGTH], seed[13 + 2 * SSL3_RANDOM_SIZE], block[2 * (32 + 12)];
	size_t mlen, blen = 2 * (c->key_len + c->fixed_iv_len);
	const EVP_MD *md;
	/* "client write" protects client->server records, whichever side we are. */
	bool client_write = (dir == KEYS_FOR_WRITE) == !SSL_is_server(ssl);
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (t && t->tls13)
		return derive_tls13_keys(ssl, c, client_write, seq, t, out, err, errlen);
	if (SSL_version(ssl) != TLS1_2_VERSION) {
		snprintf(err, errlen, "negotiated %s, kTLS hand-off needs TLS 1.2", SSL_get_version(ssl));
		return -1;
	}
	if (!sc || strcmp(SSL_CIPHER_get_name(sc), c->openssl_name)) {
		snprintf(err, errlen, "negotiated cipher %s, expected %s",
			 sc ? SSL_CIPHER_get_name(sc) : "(none)", c->openssl_name);
		return -1;
	}
	md = SSL_CIPHER_get_handshake_digest(sc);
	mlen = sess ? SSL_SESSION_get_master_key(sess, master, sizeof(master)) : 0;
	if (!md || !mlen) {
		snprintf(err, errlen, "cannot get master secret / PRF digest from OpenSSL");
		return -1;
	}
	/* key_block = PRF(master, "key expansion", server_random || client_random) */
	memcpy(seed, "key expansion", 13);
	SSL_get_server_random(ssl, seed + 13, SSL3_RANDOM_SIZE);
	SSL_get_client_random(ssl, seed + 13 + SSL3_RANDOM_SIZE, SSL3_RANDOM_SIZE);
	if (tls12_prf(EVP_MD_get0_name(md), master, mlen, seed, sizeof(seed), block, blen)) {
		snprintf(err, errlen, "TLS1-PRF key expansion failed");
		goto out;
	}
	/* AEAD suites have no MAC keys: client_key | server_key | client_iv | server_iv */
	out->cipher = c;
	memcpy(out->key, block + (client_write ? 0 : c->key_len), c->key_len);
	memcpy(out->fixed_iv, block + 2 * c->key_len + (client_write ? 0 : c->fixed_iv_len), c->fixed_iv_len);
	out->seq = seq;
	/* Explicit nonces continue from the record number: unique per key, like RFC 5288 suggests. */
	for (int i = 0; i < 8; i++)
		out->nonce_iv[i] = (uint8_t)(seq >> (56 - 8 * i));
	rc = 0;
out:
	OPENSSL_cleanse(master, sizeof(master));
	OPENSSL_cleanse(block, sizeof(block));
	return rc;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (56 - 8 * i));
}

size_t build_crypto_info(const struct record_keys *k, union ktls_crypto_info *ci)
{
	const struct cipher_desc *c = k->cipher;

	memset(ci, 0, sizeof(*ci));
	ci->info.version = k->tls13 ? TLS_1_3_VERSION : TLS_1_2_VERSION;
	ci->info.cipher_type = c->kernel_type;
	/*
	 * TLS 1.3 AES: the kernel rebuilds the 12-byte IV as salt || iv and XORs
	 * the record number into it, so salt = IV[0..4), iv = IV[4..12).
	 */
	if (k->tls13 && c->id != CIPHER_CHACHA20) {
		uint8_t *key = c->id == CIPHER_AES128GCM ? ci->gcm128.key :
			       c->id == CIPHER_AES256GCM ? ci->gcm256.key : ci->ccm128.key;
		uint8_t *salt = c->id == CIPHER_AES128GCM ? ci->gcm128.salt :
				c->id == CIPHER_AES256GCM ? ci->gcm256.salt : ci->ccm128.salt;
		uint8_t *iv = c->id == CIPHER_AES128GCM ? ci->gcm128.iv :
			      c->id == CIPHER_AES256GCM ? ci->gcm256.iv : ci->ccm128.iv;
		uint8_t *rec_seq = c->id == CIPHER_AES128GCM ? ci->gcm128.rec_seq :
				   c->id == CIPHER_AES256GCM ? ci->gcm256.rec_seq : ci->ccm128.rec_seq;

		memcpy(key, k->key, c->key_len);
		memcpy(salt, k->fixed_iv, 4);
		memcpy(iv, k->fixed_iv + 4, 8);
		put_be64(rec_seq, k->seq);
		return c->info_len;
	}
	switch (c->id) {
	case CIPHER_AES128GCM:
		memcpy(ci->gcm128.key, k->key, c->key_len);
		memcpy(ci->gcm128.salt, k->fixed_iv, 4);
		memcpy(ci->gcm128.iv, k->nonce_iv, 8);
		put_be64(ci->gcm128.rec_seq, k->seq);
		break;
	case CIPHER_AES256GCM:
		memcpy(ci->gcm256.key, k->key, c->key_len);
		memcpy(ci->gcm256.salt, k->fixed_iv, 4);
		memcpy(ci->gcm256.iv, k->nonce_iv, 8);
		put_be64(ci->gcm256.rec_seq, k->seq);
		break;
	case CIPHER_AES128CCM:
		memcpy(ci->ccm128.key, k->key, c->key_len);
		memcpy(ci->ccm128.salt, k->fixed_iv, 4);
		memcpy(ci->ccm128.iv, k->nonce_iv, 8);
		put_be64(ci->ccm128.rec_seq, k->seq);
		break;
	case CIPHER_CHACHA20:
		/* The kernel XORs rec_seq into this full 12-byte IV itself. */
		memcpy(ci->chacha.key, k->key, c->key_len);
		memcpy(ci->chacha.iv, k->fixed_iv, 12);
		put_be64(ci->chacha.rec_seq, k->seq);
		break;
	default:
		return 0;
	}
	return c->info_len;
}

int ktls_install(int fd, const struct record_keys *k, bool rx, char *err, size_t errlen)
{
	union ktls_crypto_info ci;
	size_t len = build_crypto_info(k, &ci);
	int rc = 0, e;

	if (setsockopt(fd, IPPROTO_TCP, TCP_ULP, "tls", sizeof("tls")) < 0) {
		e = errno;
		if (e == ENOENT)
			err_errno(err, errlen, "kTLS not available: setsockopt(TCP_ULP, \"tls\")", e);
		else
			err_errno(err, errlen, "setsockopt(TCP_ULP, \"tls\")", e);
		rc = -e;
	} else if (setsockopt(fd, SOL_TLS, rx ? TLS_RX : TLS_TX, &ci, (socklen_t)len) < 0) {
		e = errno;
		err_errno(err, errlen, rx ? "setsockopt(SOL_TLS, TLS_RX)" : "setsockopt(SOL_TLS, TLS_TX)", e);
		rc = -e;
	}
	OPENSSL_cleanse(&ci, sizeof(ci));
	return rc;
}

int ktls_set_key(int fd, const struct record_keys *k, bool rx)
{
	union ktls_crypto_info ci;
	size_t len = build_crypto_info(k, &ci);
	int rc = setsockopt(fd, SOL_TLS, rx ? TLS_RX : TLS_TX, &ci, (socklen_t)len) < 0 ? -errno : 0;

	OPENSSL_cleanse(&ci, sizeof(ci));
	return rc;
}

int ktls_get_rec_seq(int fd, const struct cipher_desc *c, bool rx, uint64_t *seq)
{
	union ktls_crypto_info ci;
	socklen_t len = (socklen_t)c->info_len;
	const uint8_t *rs;
	int rc = -1;

	if (getsockopt(fd, SOL_TLS, rx ? TLS_RX : TLS_TX, &ci, &len) == 0 && len == c->info_len) {
		switch (c->id) {
		case CIPHER_AES128GCM: rs = ci.gcm128.rec_seq; break;
		case CIPHER_AES256GCM: rs = ci.gcm256.rec_seq; break;
		case CIPHER_AES128CCM: rs = ci.ccm128.rec_seq; break;
		default:               rs = ci.chacha.rec_seq; break;
		}
		*seq = 0;
		for (int i = 0; i < 8; i++)
			*seq = (*seq << 8) | rs[i];
		rc = 0;
	}
	OPENSSL_cleanse(&ci, sizeof(ci));
	return rc;
}

int ssl_check_no_buffered_input(SSL *ssl, char *err, size_t errlen)
{
	/*
	 * With read_ahead off OpenSSL reads exactly one record at a time, so after
	 * the caller has drained SSL_pending() nothing may remain in its read
	 * buffer; if something does, those bytes were consumed from the socket and
	 * kTLS would start mid-stream. Refuse rather than guess.
	 */
	if (SSL_pending(ssl) > 0 || SSL_has_pending(ssl)) {
		snprintf(err, errlen, "OpenSSL still holds %d decrypted / unprocessed bytes after the handshake; "
			 "cannot hand the socket to kTLS without losing data", SSL_pending(ssl));
		return -1;
	}
	if (BIO_ctrl_pending(SSL_get_rbio(ssl)) > 0) {
		snprintf(err, errlen, "read BIO has %zu buffered bytes after the handshake; cannot hand off to kTLS",
			 (size_t)BIO_ctrl_pending(SSL_get_rbio(ssl)));
		return -1;
	}
	return 0;
}
