// SPDX-License-Identifier: GPL-2.0
/* Host test helpers: TLS 1.2/1.3 AES-GCM record streams (OpenSSL one-shot
 * EVP GCM as the reference) and Ethernet/IP/TCP frames with real checksums. */
#include <stdio.h>
#include <stdlib.h>
#include <openssl/evp.h>
#include "tls_stream.h"

static const EVP_CIPHER *gcm(unsigned int klen)
{
	return klen == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm();
}

static void aad_make(u8 aad[13], u64 rn, u8 type, u16 plen)
{
	hw_put_be64(aad, rn);
	aad[8] = type;
	aad[9] = 3;
	aad[10] = 3;
	hw_put_be16(aad + 11, plen);
}

/* one-shot encrypt of a record into out (5 + 8 + plen + 16 bytes) */
static void rec_encrypt(const struct epoch *e, u64 rn, u8 type, const u8 *pt,
			u32 plen, const u8 nonce[8], u8 *out)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	u8 iv[12], aad[13];
	int l;

	memcpy(iv, e->salt, 4);
	memcpy(iv + 4, nonce, 8);
	out[0] = type;
	out[1] = 3;
	out[2] = 3;
	hw_put_be16(out + 3, (u16)(plen + 24));
	memcpy(out + 5, nonce, 8);
	aad_make(aad, rn, type, (u16)plen);
	if (!EVP_EncryptInit_ex(c, gcm(e->klen), NULL, e->key, iv) ||
	    !EVP_EncryptUpdate(c, NULL, &l, aad, 13) ||
	    (plen && !EVP_EncryptUpdate(c, out + 13, &l, pt, (int)plen)) ||
	    !EVP_EncryptFinal_ex(c, out + 13 + plen, &l) ||
	    !EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16,
				 out + 13 + plen)) {
		fprintf(stderr, "EVP encrypt failed\n");
		abort();
	}
	EVP_CIPHER_CTX_free(c);
}

/* one-shot decrypt; writes the CTR output to pt even if the tag fails */
static bool rec_decrypt(const struct epoch *e, u64 rn, const u8 *rec,
			u32 len, u8 *pt)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	u32 plen = len - 29;
	u8 iv[12], aad[13], tag[16];
	int l, ok;

	memcpy(iv, e->salt, 4);
	memcpy(iv + 4, rec + 5, 8);
	memcpy(tag, rec + len - 16, 16);
	aad_make(aad, rn, rec[0], (u16)plen);
	aad[9] = rec[1];
	aad[10] = rec[2];
	if (!EVP_DecryptInit_ex(c, gcm(e->klen), NULL, e->key, iv) ||
	    !EVP_DecryptUpdate(c, NULL, &l, aad, 13) ||
	    (plen && !EVP_DecryptUpdate(c, pt, &l, rec + 13, (int)plen)) ||
	    !EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, 16, tag)) {
		fprintf(stderr, "EVP decrypt failed\n");
		abort();
	}
	ok = EVP_DecryptFinal_ex(c, pt + plen, &l);
	EVP_CIPHER_CTX_free(c);
	return ok > 0;
}

/* TLS 1.3: static IV XOR the record number */
static void nonce13(const struct epoch *e, u64 rn, u8 iv[12])
{
	int i;

	memcpy(iv, e->salt, 4);
	memcpy(iv + 4, e->iv, 8);
	for (i = 0; i < 8; i++)
		iv[4 + i] ^= (u8)(rn >> (56 - 8 * i));
}

/*
 * TLS 1.3 record of inner plaintext pt | type | pad zero bytes into out
 * (5 + plen + 1 + pad + 16 bytes); the outer type is always 23.
 */
static void rec_encrypt13(const struct epoch *e, u64 rn, u8 type,
			  const u8 *pt, u32 plen, u32 pad, u8 *out)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	u32 ilen = plen + 1 + pad;
	u8 iv[12], *inner = calloc(1, ilen);
	int l;

	memcpy(inner, pt, plen);
	inner[plen] = type;
	nonce13(e, rn, iv);
	out[0] = 0x17;
	out[1] = 3;
	out[2] = 3;
	hw_put_be16(out + 3, (u16)(ilen + 16));
	if (!EVP_EncryptInit_ex(c, gcm(e->klen), NULL, e->key, iv) ||
	    !EVP_EncryptUpdate(c, NULL, &l, out, 5) ||
	    !EVP_EncryptUpdate(c, out + 5, &l, inner, (int)ilen) ||
	    !EVP_EncryptFinal_ex(c, out + 5 + ilen, &l) ||
	    !EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16,
				 out + 5 + ilen)) {
		fprintf(stderr, "EVP encrypt failed\n");
		abort();
	}
	EVP_CIPHER_CTX_free(c);
	free(inner);
}

/* TLS 1.3 one-shot decrypt; the CTR output goes to pt even on a bad tag */
static bool rec_decrypt13(const struct epoch *e, u64 rn, const u8 *rec,
			  u32 len, u8 *pt)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	u32 clen = len - 21;
	u8 iv[12], tag[16];
	int l, ok;

	nonce13(e, rn, iv);
	memcpy(tag, rec + len - 16, 16);
	if (!EVP_DecryptInit_ex(c, gcm(e->klen), NULL, e->key, iv) ||
	    !EVP_DecryptUpdate(c, NULL, &l, rec, 5) ||
	    (clen && !EVP_DecryptUpdate(c, pt, &l, rec + 5, (int)clen)) ||
	    !EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, 16, tag)) {
		fprintf(stderr, "EVP decrypt failed\n");
		abort();
	}
	ok = EVP_DecryptFinal_ex(c, pt + clen, &l);
	EVP_CIPHER_CTX_free(c);
	return ok > 0;
}

int epoch_of_rn(const struct stream *s, u64 rn)
{
	int e, best = 0;

	for (e = 0; e < s->nep; e++)
		if (rn >= s->ep[e].from_rn)
			best = e;
	return best;
}

bool hdr_plausible_bytes(const u8 *h)
{
	u16 l = hw_get_be16(h + 3);

	/* either version's bounds (TLS 1.3: 16 .. 2^14 + 17) */
	return h[0] >= 0x14 && h[0] <= 0x18 && h[1] == 3 && h[2] == 3 &&
	       l >= 16 && l <= 16384 + 24;
}

static u32 rec_plen(const struct stream_cfg *c, struct rng *r)
{
	switch (c->size_mode) {
	case 0:
		return 16384;
	case 1:
		return rng_below(r, 16385);
	default:
		return rng_chance(r, 0.2) ? rng_below(r, 16385) :
					     rng_below(r, 400);
	}
}

void stream_gen(struct stream *s, const struct stream_cfg *c, struct rng *r)
{
	u64 keyup_at[MAX_EPOCHS];
	size_t cap = 0;
	u8 *pt = malloc(16384 + 64);
	int i, e, k;
	u32 off;

	memset(s, 0, sizeof(*s));
	s->isn = (u32)rng_next(r);
	s->rn0 = c->rn0;
	s->tls13 = c->tls13;
	s->nep = 1 + c->nkeyup;
	for (e = 0; e < s->nep; e++) {
		s->ep[e].klen = c->klen;
		for (k = 0; k < 32; k++)
			s->ep[e].key[k] = (u8)rng_next(r);
		for (k = 0; k < 4; k++)
			s->ep[e].salt[k] = (u8)rng_next(r);
		/* (1.2 streams draw no IV: their seeds replay as before) */
		for (k = 0; k < 8 && c->tls13; k++)
			s->ep[e].iv[k] = (u8)rng_next(r);
	}
	s->ep[0].from_rn = 0;
	/* key changes at evenly spread record numbers (rn relative to rn0) */
	for (e = 1; e < s->nep; e++) {
		keyup_at[e] = (u64)c->nrec * e / s->nep + 1;
		s->ep[e].from_rn = c->rn0 + keyup_at[e];
	}

	for (i = 0; i < c->nrec; i++)
		cap += 16384 + 64;
	s->wire = malloc(cap);
	off = 0;
	for (i = 0; i < c->nrec; i++) {
		u64 rn = c->rn0 + (u64)i;
		u32 plen = rec_plen(c, r);
		u8 type = 0x17, nonce[8];
		bool ccs = false;

		for (e = 1; e < s->nep; e++)
			if (rn + 1 == s->ep[e].from_rn)
				ccs = true;
		if (ccs && c->tls13) {
			type = 0x16;	/* the KeyUpdate handshake message */
			plen = 5;
		} else if (ccs) {
			type = 0x14;
			plen = 1;
		} else if (rng_chance(r, 0.03)) {
			type = rng_chance(r, 0.5) ? 0x15 : 0x16;
		}
		for (k = 0; k < (int)plen; k++)
			pt[k] = (u8)rng_next(r);
		if (ccs && c->tls13) {
			memcpy(pt, "\x18\x00\x00\x01\x00", 5); /* KeyUpdate */
		} else if (c->tls13 && type == 0x16 && plen >= 4) {
			/* a NewSessionTicket, as a server sends them */
			pt[0] = 4;
			pt[1] = (u8)((plen - 4) >> 16);
			pt[2] = (u8)((plen - 4) >> 8);
			pt[3] = (u8)(plen - 4);
		}
		if (c->tls13) {
			/* zero padding now and then, within 2^14 + 1 */
			u32 pad = rng_chance(r, 0.2) ? rng_below(r, 40) : 0;

			if (plen + 1 + pad > 16385)
				pad = 16385 - plen - 1;
			rec_encrypt13(&s->ep[epoch_of_rn(s, rn)], rn, type, pt,
				      plen, pad, s->wire + off);
			off += plen + 1 + pad + 21;
			continue;
		}
		if (rng_chance(r, 0.5))
			hw_put_be64(nonce, rn);
		else
			for (k = 0; k < 8; k++)
				nonce[k] = (u8)rng_next(r);
		rec_encrypt(&s->ep[epoch_of_rn(s, rn)], rn, type, pt, plen,
			    nonce, s->wire + off);
		off += plen + 29;
	}
	s->n = off;
	free(pt);

	/* sender-side corruption: the wire itself differs */
	for (k = 0; k < c->corrupt_tag + c->corrupt_ct + c->corrupt_hdr; k++) {
		u32 o = 0, len;
		int idx = 2 + (int)rng_below(r, (u32)(c->nrec - 3));

		for (i = 0; i < idx; i++)
			o += 5 + hw_get_be16(s->wire + o + 3);
		len = 5 + hw_get_be16(s->wire + o + 3);
		if (k < c->corrupt_tag)
			s->wire[o + len - 1 - rng_below(r, 16)] ^=
				(u8)(1 + rng_below(r, 255));
		else if (k < c->corrupt_tag + c->corrupt_ct &&
			 len > stream_prefix(s) + 16)
			s->wire[o + stream_prefix(s) +
				rng_below(r, len - stream_prefix(s) - 16)] ^= 0x40;
		else if (k >= c->corrupt_tag + c->corrupt_ct)
			s->wire[o + 3] ^= (u8)(1 + rng_below(r, 0x3f));
	}

	/* reference parse, as the kernel's strparser would do it */
	s->plain = malloc(s->n);
	s->valid = calloc(1, s->n);
	memcpy(s->plain, s->wire, s->n);
	s->rec = calloc((size_t)c->nrec + 1, sizeof(*s->rec));
	off = 0;
	for (i = 0; off + 5 <= s->n; i++) {
		u8 *h = s->wire + off;
		u16 l = hw_get_be16(h + 3);
		struct ref_rec *rr = &s->rec[i];

		if (h[1] != 3 || h[2] != 3 ||
		    l < (c->tls13 ? 16 : 24) ||
		    l > 16384 + (c->tls13 ? 17 : 24) ||
		    off + 5 + l > s->n || i >= c->nrec)
			break;
		rr->off = off;
		rr->len = 5u + l;
		rr->rn = c->rn0 + (u64)i;
		rr->type = h[0];
		rr->epoch = epoch_of_rn(s, rr->rn);
		rr->tag_ok = c->tls13 ?
			rec_decrypt13(&s->ep[rr->epoch], rr->rn, h, rr->len,
				      s->plain + off + 5) :
			rec_decrypt(&s->ep[rr->epoch], rr->rn, h, rr->len,
				    s->plain + off + 13);
		memset(s->valid + off, 1, rr->len);
		off += rr->len;
	}
	s->nrec = i;
}

void stream_free(struct stream *s)
{
	free(s->wire);
	free(s->plain);
	free(s->valid);
	free(s->rec);
	memset(s, 0, sizeof(*s));
}

int stream_rec_at(const struct stream *s, u32 off)
{
	int lo = 0, hi = s->nrec - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (off < s->rec[mid].off)
			hi = mid - 1;
		else if (off >= s->rec[mid].off + s->rec[mid].len)
			lo = mid + 1;
		else
			return mid;
	}
	return -1;
}

/* ---- frames ---- */

/* straightforward 16-bit one's complement sum (independent of engine.c) */
static u32 sum16(u32 sum, const u8 *p, u32 len)
{
	u32 i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (u32)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (u32)p[len - 1] << 8;
	return sum;
}

static u16 fold16(u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (u16)~sum;
}

u32 frame_hdr_len(const struct frame_cfg *fc)
{
	return 14 + (fc->vlan ? 4 : 0) + (fc->family == 6 ? 40 : 20) +
	       (fc->tsopt ? 32 : 20);
}

struct frame_cfg frame_cfg_reverse(const struct frame_cfg *fc)
{
	struct frame_cfg rc = *fc;

	memcpy(rc.saddr, fc->daddr, sizeof(rc.saddr));
	memcpy(rc.daddr, fc->saddr, sizeof(rc.daddr));
	rc.sport = fc->dport;
	rc.dport = fc->sport;
	return rc;
}

void frame_tuple(const struct frame_cfg *fc, struct hw_flow_tuple *t)
{
	memset(t, 0, sizeof(*t));
	t->family = (u8)fc->family;
	memcpy(t->saddr, fc->saddr, fc->family == 6 ? 16 : 4);
	memcpy(t->daddr, fc->daddr, fc->family == 6 ? 16 : 4);
	t->sport = fc->sport;
	t->dport = fc->dport;
	/* frame_build tags VLAN 42 */
	t->vlan = fc->vlan && !fc->vid0 ? (u16)(HW_VLAN_TAGGED | 42) : 0;
}

void frame_fix_csum(u8 *b, u32 len)
{
	u32 off = 12, l3, l4, l4len, sum;
	u16 et = hw_get_be16(b + off);

	(void)len;
	off += 2;
	if (et == 0x8100) {
		et = hw_get_be16(b + off + 2);
		off += 4;
	}
	l3 = off;
	if (et == 0x0800) {
		u32 ihl = (b[l3] & 15u) * 4;

		l4 = l3 + ihl;
		l4len = hw_get_be16(b + l3 + 2) - ihl;
		sum = sum16(0, b + l3 + 12, 8);
	} else {
		l4 = l3 + 40;
		l4len = hw_get_be16(b + l3 + 4);
		sum = sum16(0, b + l3 + 8, 32);
	}
	sum += 6 + l4len;
	b[l4 + 16] = 0;
	b[l4 + 17] = 0;
	sum = sum16(sum, b + l4, l4len);
	hw_put_be16(b + l4 + 16, fold16(sum));
}

u32 frame_build(u8 *b, const struct frame_cfg *fc, u32 seq, u8 flags,
		const u8 *payload, u32 plen)
{
	u32 off = 0, l3, l4, thl = fc->tsopt ? 32 : 20, len;
	int i;

	for (i = 0; i < 6; i++) {
		b[i] = (u8)(0x02 + i);
		b[6 + i] = (u8)(0x12 + i);
	}
	off = 12;
	if (fc->vlan) {
		hw_put_be16(b + off, 0x8100);
		hw_put_be16(b + off + 2, fc->vid0 ? 0xa000 : 42);
		off += 4;
	}
	hw_put_be16(b + off, fc->family == 6 ? 0x86dd : 0x0800);
	off += 2;
	l3 = off;
	if (fc->family == 4) {
		u32 s;

		b[l3] = 0x45;
		b[l3 + 1] = 0;
		hw_put_be16(b + l3 + 2, (u16)(20 + thl + plen));
		hw_put_be16(b + l3 + 4, 0x1234);
		hw_put_be16(b + l3 + 6, 0x4000);	/* DF */
		b[l3 + 8] = 64;
		b[l3 + 9] = 6;
		b[l3 + 10] = 0;
		b[l3 + 11] = 0;
		memcpy(b + l3 + 12, fc->saddr, 4);
		memcpy(b + l3 + 16, fc->daddr, 4);
		s = sum16(0, b + l3, 20);
		hw_put_be16(b + l3 + 10, fold16(s));
		l4 = l3 + 20;
	} else {
		hw_put_be32(b + l3, 0x60000000);
		hw_put_be16(b + l3 + 4, (u16)(thl + plen));
		b[l3 + 6] = 6;
		b[l3 + 7] = 64;
		memcpy(b + l3 + 8, fc->saddr, 16);
		memcpy(b + l3 + 24, fc->daddr, 16);
		l4 = l3 + 40;
	}
	hw_put_be16(b + l4, fc->sport);
	hw_put_be16(b + l4 + 2, fc->dport);
	hw_put_be32(b + l4 + 4, seq);
	hw_put_be32(b + l4 + 8, 0x11223344);
	b[l4 + 12] = (u8)((thl / 4) << 4);
	b[l4 + 13] = flags;
	hw_put_be16(b + l4 + 14, 65535);
	b[l4 + 16] = 0;
	b[l4 + 17] = 0;
	hw_put_be16(b + l4 + 18, 0);
	if (fc->tsopt) {
		static const u8 opt[12] = { 1, 1, 8, 10, 0, 0, 1, 2, 0, 0, 3, 4 };

		memcpy(b + l4 + 20, opt, 12);
	}
	if (plen)
		memcpy(b + l4 + thl, payload, plen);
	len = l4 + thl + plen;
	while (len < 60)
		b[len++] = 0xee;	/* Ethernet padding, not payload */
	frame_fix_csum(b, len);
	return len;
}
