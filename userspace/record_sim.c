// SPDX-License-Identifier: GPL-2.0
/*
 * A userspace model of the kernel's TLS 1.2/1.3 record layer, driven by the same
 * record_keys that would go into TLS_RX/TLS_TX. It exists so the key
 * derivation, sequence accounting and nonce conventions can be proven on a
 * host whose kernel has no kTLS (--rx-mode sim / --tx-mode sim): if OpenSSL's
 * peer accepts our records and we accept its records, the crypto_info we
 * would hand to the kernel is right. Mirrors tls_sw.c (nonce, AAD, limits),
 * for TLS 1.2 and (--tls13) TLS 1.3.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <openssl/evp.h>
#include "innova_tls.h"

#define TAG_LEN 16

static void nonce_for(const struct record_keys *k, const uint8_t *explicit_nonce, uint8_t nonce[12])
{
	const struct cipher_desc *c = k->cipher;

	if (c->explicit_nonce_len && !k->tls13) {   /* TLS 1.2 GCM/CCM: salt || explicit */
		memcpy(nonce, k->fixed_iv, 4);
		memcpy(nonce + 4, explicit_nonce, 8);
	} else {                /* ChaCha, and all of TLS 1.3: iv XOR (0^32 || seq) */
		memcpy(nonce, k->fixed_iv, 12);
		for (int i = 0; i < 8; i++)
			nonce[4 + i] ^= (uint8_t)(k->seq >> (56 - 8 * i));
	}
}

static void make_aad(uint64_t seq, uint8_t type, size_t len, uint8_t aad[13])
{
	for (int i = 0; i < 8; i++)
		aad[i] = (uint8_t)(seq >> (56 - 8 * i));
	aad[8] = type;
	aad[9] = 3;
	aad[10] = 3;
	aad[11] = (uint8_t)(len >> 8);
	aad[12] = (uint8_t)len;
}

static const EVP_CIPHER *evp_for(const struct cipher_desc *c)
{
	switch (c->id) {
	case CIPHER_AES128GCM: return EVP_aes_128_gcm();
	case CIPHER_AES256GCM: return EVP_aes_256_gcm();
	case CIPHER_AES128CCM: return EVP_aes_128_ccm();
	default:               return EVP_chacha20_poly1305();
	}
}

/* One-shot AEAD; tag is written on encrypt and checked on decrypt. */
static int aead(bool enc, const struct record_keys *k, const uint8_t nonce[12], const uint8_t *aad,
		size_t aad_len, const uint8_t *in, size_t len, uint8_t *out, uint8_t tag[TAG_LEN])
{
	bool ccm = k->cipher->id == CIPHER_AES128CCM;
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int l, ok = 0;

	if (!ctx || !EVP_CipherInit_ex(ctx, evp_for(k->cipher), NULL, NULL, NULL, enc) ||
	    !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL))
		goto out;
	if (ccm && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAG_LEN, enc ? NULL : tag))
		goto out;
	if (!EVP_CipherInit_ex(ctx, NULL, NULL, k->key, nonce, enc))
		goto out;
	if (ccm && !EVP_CipherUpdate(ctx, NULL, &l, NULL, (int)len))  /* CCM needs the length first */
		goto out;
	if (!EVP_CipherUpdate(ctx, NULL, &l, aad, (int)aad_len))
		goto out;
	if (len && !EVP_CipherUpdate(ctx, out, &l, in, (int)len))
		goto out;                 /* CCM decrypt fails here on a bad tag */
	if (!enc && !ccm && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAG_LEN, tag))
		goto out;
	if (!ccm && !EVP_CipherFinal_ex(ctx, out + len, &l))
		goto out;
	if (enc && !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, TAG_LEN, tag))
		goto out;
	ok = 1;
out:
	EVP_CIPHER_CTX_free(ctx);
	return ok ? 0 : -1;
}

static void be_increment(uint8_t *p, size_t n)
{
	while (n-- && ++p[n] == 0)
		;
}

/*
 * TLS 1.3 (RFC 8446 §5.2): outer type 23, version 03 03, body = plaintext ||
 * real type || tag (no padding); AAD = the 5-byte header; nonce = IV XOR seq.
 */
static size_t seal13(struct record_keys *k, uint8_t type, const uint8_t *pt, size_t len, uint8_t *out)
{
	size_t body = len + 1 + TAG_LEN;
	uint8_t nonce[12];

	out[0] = RT_APPDATA;
	out[1] = 3;
	out[2] = 3;
	out[3] = (uint8_t)(body >> 8);
	out[4] = (uint8_t)body;
	memmove(out + 5, pt, len);
	out[5 + len] = type;
	nonce_for(k, NULL, nonce);
	if (aead(true, k, nonce, out, 5, out + 5, len + 1, out + 5, out + 5 + len + 1))
		return 0;
	k->seq++;
	return 5 + body;
}

size_t sim_seal_record(struct record_keys *k, uint8_t type, const uint8_t *pt, size_t len, uint8_t *out)
{
	size_t en = k->cipher->explicit_nonce_len, body = en + len + TAG_LEN;
	uint8_t nonce[12], aad[13];

	if (k->tls13)
		return seal13(k, type, pt, len, out);
	out[0] = type;
	out[1] = 3;
	out[2] = 3;
	out[3] = (uint8_t)(body >> 8);
	out[4] = (uint8_t)body;
	memcpy(out + 5, k->nonce_iv, en);
	nonce_for(k, out + 5, nonce);
	make_aad(k->seq, type, len, aad);
	if (aead(true, k, nonce, aad, sizeof(aad), pt, len, out + 5 + en, out + 5 + en + len))
		return 0;
	/* Like the kernel: explicit nonce = iv + records sent. */
	be_increment(k->nonce_iv, 8);
	k->seq++;
	return 5 + body;
}

static int read_full(int fd, uint8_t *buf, size_t len, bool *eof)
{
	size_t got = 0;

	*eof = false;
	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n == 0) {
			*eof = true;
			return got ? -EPIPE : 0;   /* EOF inside a record is an error */
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	return 0;
}

/* The failure of a kTLS recvmsg(): message in err, errno as the kernel would return it. */
static ssize_t sim_fail(char *err, size_t errlen, const char *what, int e)
{
	err_errno(err, errlen, what, e);
	errno = e;
	return -1;
}

/*
 * TLS 1.3, after the framing checks: decrypt with the header as AAD, then the
 * real type is the last non-zero byte (tls_padding_length(): none is EBADMSG).
 */
static ssize_t open13(struct record_keys *k, const uint8_t hdr[5], const uint8_t *buf, size_t body,
		      uint8_t *type, uint8_t *pt, char *err, size_t errlen)
{
	size_t len = body - TAG_LEN;
	uint8_t nonce[12];

	nonce_for(k, NULL, nonce);
	if (aead(false, k, nonce, hdr, 5, buf, len, pt, (uint8_t *)buf + len)) {
		char what[96];

		snprintf(what, sizeof(what), "record %llu: authentication failed", (unsigned long long)k->seq);
		return sim_fail(err, errlen, what, EBADMSG);
	}
	k->seq++;
	while (len && !pt[len - 1])
		len--;
	if (!len)
		return sim_fail(err, errlen, "TLS 1.3 record without a content type (all padding)", EBADMSG);
	*type = pt[len - 1];
	return (ssize_t)(len - 1);
}

/* TLS 1.3: no explicit nonce, one byte of real content type (tls_sw's tail_size). */
static size_t explicit_len(const struct record_keys *k)
{
	return k->tls13 ? 0 : k->cipher->explicit_nonce_len;
}

ssize_t sim_check_header(const struct record_keys *k, const uint8_t hdr[5], char *err, size_t errlen)
{
	size_t en = explicit_len(k), tail = k->tls13 ? 1 : 0, body = (size_t)hdr[3] << 8 | hdr[4];

	/* Same framing checks, in the same order, as tls_rx_msg_size(). */
	if (body > MAX_RECORD + en + TAG_LEN + tail)
		return sim_fail(err, errlen, "record too long", EMSGSIZE);
	if (body < en + TAG_LEN)
		return sim_fail(err, errlen, "record too short", EBADMSG);
	if (hdr[1] != 3 || hdr[2] != 3)
		return sim_fail(err, errlen, "record version is not 03 03", EINVAL);
	return (ssize_t)body;
}

ssize_t sim_open_body(struct record_keys *k, const uint8_t hdr[5], const uint8_t *buf, size_t body,
		      uint8_t *type, uint8_t *pt, char *err, size_t errlen)
{
	size_t en = explicit_len(k), len;
	uint8_t nonce[12], aad[13];

	if (k->tls13)
		return open13(k, hdr, buf, body, type, pt, err, errlen);
	len = body - en - TAG_LEN;
	nonce_for(k, buf, nonce);
	make_aad(k->seq, hdr[0], len, aad);
	if (aead(false, k, nonce, aad, sizeof(aad), buf + en, len, pt, (uint8_t *)buf + en + len)) {
		char what[96];

		snprintf(what, sizeof(what), "record %llu: authentication failed", (unsigned long long)k->seq);
		return sim_fail(err, errlen, what, EBADMSG);
	}
	k->seq++;
	/* tls_record_content_type(): 0 means "no type yet" there, so a type-0 record is EBADMSG. */
	if (hdr[0] == 0)
		return sim_fail(err, errlen, "record of content type 0", EBADMSG);
	*type = hdr[0];
	return (ssize_t)len;
}

ssize_t sim_open_record(int fd, struct record_keys *k, uint8_t *type, uint8_t *pt, char *err, size_t errlen)
{
	uint8_t hdr[5], buf[MAX_RECORD + 256];
	ssize_t body;
	bool eof;
	int rc;

	rc = read_full(fd, hdr, 5, &eof);
	if (!rc && eof)
		return SIM_EOF;
	if (rc)
		return sim_fail(err, errlen, "read record header", -rc);
	body = sim_check_header(k, hdr, err, errlen);
	if (body < 0)
		return -1;
	rc = read_full(fd, buf, (size_t)body, &eof);
	if (rc || eof)
		return sim_fail(err, errlen, "read record body", rc ? -rc : EPIPE);
	return sim_open_body(k, hdr, buf, (size_t)body, type, pt, err, errlen);
}
