// SPDX-License-Identifier: GPL-2.0
/*
 * Innova hardware engine: streaming AES-GCM of one TLS record.
 *
 * A record arrives in pieces cut anywhere (frames, holes), so the GCM
 * state of the current record lives in the flow (struct hw_gcm_stream):
 * J0 and E_K(J0) from its explicit nonce, a GHASH accumulator with a
 * partial-block buffer, and one cached keystream block for unaligned
 * pieces.  Whole blocks go to the backend in one call, decrypt and GHASH
 * stitched (hw_crypto_ctr_xor_ghash()) when a DEC record is decrypted
 * while GHASH has no partial block pending.
 */
#include "engine_priv.h"

/* ------------------------------------------------------------------ */
/* crypto backend calls                                               */
/* ------------------------------------------------------------------ */

/*
 * Every backend call goes through these: an error (real, or injected for
 * the whole-block CTR call that can allocate in a real backend) sets
 * f->rec.crypto_err, and the record step that made the call poisons the
 * record before the frame can be marked (hw_record_crypto_fail()).
 */
static inline void crypto_status(struct hw_flow *f, int err)
{
	if (unlikely(err))
		f->rec.crypto_err = true;
}

/* -EIO while injected failures are pending (hw_engine_inject_crypto_fail) */
static int crypto_injected_fail(struct hw_engine *eng)
{
	if (likely(!eng->crypto_fail_next))
		return 0;
	eng->crypto_fail_next--;
	return -EIO;
}

void hw_engine_inject_crypto_fail(struct hw_engine *eng, u32 n)
{
	eng->crypto_fail_next = n;
}

u32 hw_engine_crypto_fail_pending(const struct hw_engine *eng)
{
	return eng->crypto_fail_next;
}

static void aes_block(struct hw_flow *f, const u8 in[16], u8 out[16])
{
	crypto_status(f, hw_crypto_aes_block(f->rec.key, in, out));
}

static void ghash_blocks(struct hw_flow *f, const u8 *in, u32 nblocks)
{
	crypto_status(f, hw_crypto_ghash(f->rec.key, f->gcm.ghash, in,
					 nblocks));
}

static void ctr_xor(struct hw_rx_ctx *cx, struct hw_flow *f, const u8 ctr[16],
		    const u8 *in, u8 *out, u32 len)
{
	crypto_status(f, crypto_injected_fail(cx->eng) ?:
			 hw_crypto_ctr_xor(f->rec.key, ctr, in, out, len));
}

static void ctr_xor_ghash(struct hw_rx_ctx *cx, struct hw_flow *f,
			  const u8 ctr[16], const u8 *in, u8 *out, u32 nblocks)
{
	crypto_status(f, crypto_injected_fail(cx->eng) ?:
			 hw_crypto_ctr_xor_ghash(f->rec.key, ctr, in, out,
						 nblocks, f->gcm.ghash));
}

/*
 * A backend call for the current record failed: its output (and maybe its
 * GHASH) is garbage.  Nothing of this frame is marked, the rest of the
 * record is only followed, and at its end the flow stops decrypting until
 * a resync (record_end() in engine.c).
 */
void hw_record_crypto_fail(struct hw_rx_ctx *cx, struct hw_flow *f)
{
	f->rec.crypto_err = false;
	cx->markable = false;
	cx->events |= HW_EV_CRYPTO_ERR;
	if (f->rec.fail)
		return;
	f->rec.fail = true;
	f->rec.mode = HW_RM_FOLLOW;
	f->rec.key = NULL;
	HW_STAT_INC(cx->eng, f, crypto_err);
}

/* ------------------------------------------------------------------ */
/* streaming GCM                                                      */
/* ------------------------------------------------------------------ */

/*
 * J0, E_K(J0) and the AAD block of the current record (prefix complete);
 * iv: the key's nonce material (struct hw_key_slot).
 */
void hw_gcm_init(struct hw_rx_ctx *cx, struct hw_flow *f,
		 const u8 iv[HW_TLS_IV_LEN])
{
	const struct hw_tls_fmt *fmt = HW_FMT(f);
	u64 rn = f->rec.idx + f->rn_off;
	u8 blk[16];
	u32 clen = f->rec.len - fmt->prefix - HW_TLS_TAG;
	int i;

	memset(blk, 0, sizeof(blk));
	if (fmt->explicit_nonce) {
		/* salt | the record's explicit nonce */
		memcpy(f->gcm.ctr, iv, 4);
		memcpy(f->gcm.ctr + 4, f->rec.hdr + HW_TLS_HDR, 8);
		/* AAD: rec_seq(8) | type | 03 03 | plaintext length */
		hw_put_be64(blk, rn);
		memcpy(blk + 8, f->rec.hdr, 3);
		hw_put_be16(blk + 11, (u16)clen);
	} else {
		/* static IV XOR the record number; AAD: the header */
		memcpy(f->gcm.ctr, iv, HW_TLS_IV_LEN);
		for (i = 0; i < 8; i++)
			f->gcm.ctr[4 + i] ^= (u8)(rn >> (56 - 8 * i));
		memcpy(blk, f->rec.hdr, HW_TLS_HDR);
	}
	hw_put_be32(f->gcm.ctr + 12, 1);
	aes_block(f, f->gcm.ctr, f->gcm.ekj0);
	memset(f->gcm.ghash, 0, sizeof(f->gcm.ghash));
	ghash_blocks(f, blk, 1);
	f->gcm.fill = 0;
	f->gcm.ks_valid = false;
	if (unlikely(f->rec.crypto_err))
		hw_record_crypto_fail(cx, f);
}

/* GHASH the next n ciphertext bytes of the record */
void hw_gcm_ghash(struct hw_flow *f, const u8 *in, u32 n)
{
	u32 nb;

	if (f->gcm.fill) {
		u32 m = hw_min_u32(16u - f->gcm.fill, n);

		memcpy(f->gcm.buf + f->gcm.fill, in, m);
		f->gcm.fill += (u8)m;
		in += m;
		n -= m;
		if (f->gcm.fill < 16)
			return;
		ghash_blocks(f, f->gcm.buf, 1);
		f->gcm.fill = 0;
	}
	nb = n / 16;
	if (nb) {
		ghash_blocks(f, in, nb);
		in += nb * 16;
		n -= nb * 16;
	}
	if (n) {
		memcpy(f->gcm.buf, in, n);
		f->gcm.fill = (u8)n;
	}
}

static void ks_block(struct hw_flow *f, u32 blk)
{
	u8 c[16];

	if (f->gcm.ks_valid && f->gcm.ks_blk == blk)
		return;
	memcpy(c, f->gcm.ctr, 12);
	hw_put_be32(c + 12, 2 + blk);
	aes_block(f, c, f->gcm.ks);
	hw_memzero_explicit(c, sizeof(c));
	f->gcm.ks_blk = blk;
	f->gcm.ks_valid = true;
}

/* out[i] = in[i] ^ ks[i], n <= 16; word at a time */
static void xor_ks(u8 *out, const u8 *in, const u8 *ks, u32 n)
{
	u64 a, b;
	u32 i;

	if (n >= 8) {
		memcpy(&a, in, 8);
		memcpy(&b, ks, 8);
		a ^= b;
		memcpy(out, &a, 8);
		in += 8;
		ks += 8;
		out += 8;
		n -= 8;
		if (n >= 8) {
			memcpy(&a, in, 8);
			memcpy(&b, ks, 8);
			a ^= b;
			memcpy(out, &a, 8);
			return;
		}
	}
	if (n >= 4) {
		u32 v, k;

		memcpy(&v, in, 4);
		memcpy(&k, ks, 4);
		v ^= k;
		memcpy(out, &v, 4);
		in += 4;
		ks += 4;
		out += 4;
		n -= 4;
	}
	for (i = 0; i < n; i++)
		out[i] = in[i] ^ ks[i];
}

/* decrypt ciphertext bytes [off, off + n) of the record */
void hw_gcm_decrypt(struct hw_rx_ctx *cx, struct hw_flow *f, u32 off,
		    const u8 *in, u8 *out, u32 n)
{
	u32 whole;

	if (off & 15) {
		u32 o = off & 15;
		u32 m = hw_min_u32(16 - o, n);

		ks_block(f, off / 16);
		xor_ks(out, in, f->gcm.ks + o, m);
		off += m;
		in += m;
		out += m;
		n -= m;
	}
	whole = n & ~15u;
	if (whole) {
		u8 c[16];

		memcpy(c, f->gcm.ctr, 12);
		hw_put_be32(c + 12, 2 + off / 16);
		ctr_xor(cx, f, c, in, out, whole);
		off += whole;
		in += whole;
		out += whole;
		n -= whole;
	}
	if (n) {
		ks_block(f, off / 16);
		xor_ks(out, in, f->gcm.ks, n);
	}
}

/*
 * decrypt + GHASH ciphertext bytes [off, off + n) of a DEC record: the
 * unaligned head and tail go the byte-wise way, whole blocks in between
 * through the backend's one-pass call.  GHASH has consumed exactly off
 * bytes, so at a block-aligned off its carry buffer is empty.
 */
void hw_gcm_decrypt_ghash(struct hw_rx_ctx *cx, struct hw_flow *f, u32 off,
			  const u8 *in, u8 *out, u32 n)
{
	u32 head = hw_min_u32((16 - (off & 15)) & 15, n), whole;
	u8 c[16];

	if (head) {
		hw_gcm_decrypt(cx, f, off, in, out, head);
		hw_gcm_ghash(f, in, head);
		off += head;
		in += head;
		out += head;
		n -= head;
	}
	whole = n & ~15u;
	if (whole && !f->gcm.fill) {
		memcpy(c, f->gcm.ctr, 12);
		hw_put_be32(c + 12, 2 + off / 16);
		ctr_xor_ghash(cx, f, c, in, out, whole / 16);
		off += whole;
		in += whole;
		out += whole;
		n -= whole;
	}
	if (n) {
		hw_gcm_decrypt(cx, f, off, in, out, n);
		hw_gcm_ghash(f, in, n);
	}
}

/*
 * The cached keystream block must not outlive its record (nor be reused
 * under the next record's J0).
 */
void hw_gcm_drop_keystream(struct hw_flow *f)
{
	hw_memzero_explicit(f->gcm.ks, sizeof(f->gcm.ks));
	f->gcm.ks_valid = false;
}

/* all ciphertext and the tag seen: does the tag match? */
bool hw_gcm_check(struct hw_flow *f)
{
	u8 blk[16];
	u32 clen = f->rec.len - HW_PFX(f) - HW_TLS_TAG;
	u8 diff = 0;
	int i;

	if (f->gcm.fill) {
		memset(f->gcm.buf + f->gcm.fill, 0, 16u - f->gcm.fill);
		ghash_blocks(f, f->gcm.buf, 1);
		f->gcm.fill = 0;
	}
	hw_put_be64(blk, (u64)HW_FMT(f)->aad_len * 8);
	hw_put_be64(blk + 8, (u64)clen * 8);
	ghash_blocks(f, blk, 1);
	for (i = 0; i < 16; i++)
		diff |= (u8)(f->gcm.ghash[i] ^ f->gcm.ekj0[i] ^ f->gcm.tag[i]);
	hw_gcm_drop_keystream(f);
	return diff == 0;
}

