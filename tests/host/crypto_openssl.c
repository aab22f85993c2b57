// SPDX-License-Identifier: GPL-2.0
/*
 * Host crypto backend for the Innova engine: OpenSSL libcrypto (EVP) for AES
 * (ECB single blocks, CTR keystream) or AES-NI, GHASH with PCLMULQDQ
 * (8-block aggregated Karatsuba, one reduction per 8 blocks) or a portable
 * bitwise fallback.  HW_NO_AESNI / HW_NO_CLMUL force the fallbacks.
 */
#include <stdlib.h>
#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <immintrin.h>
#include <innova/hw_crypto.h>

struct hw_crypto_key {
	EVP_CIPHER_CTX *ecb;
	EVP_CIPHER_CTX *ctr;
	u8 h[16];		/* H in GCM byte order */
	__m128i hp[8];		/* H^1..H^8 * y, byte-reflected, for PCLMUL */
	__m128i hk[8];		/* hi ^ lo of hp[i] (Karatsuba) */
	__m128i kp[4];		/* kp[j] = hk[7 - 2j] (lo) | hk[6 - 2j] (hi) */
	__m128i rk[15];		/* AES-NI encryption schedule */
	int nr;			/* AES rounds: 10 or 14 */
	u8 next_ctr[16];	/* counter the CTR context continues at */
	int ctr_live;
	int clmul;		/* PCLMUL GHASH (needs AVX) */
	int aesni;		/* AES-NI block + CTR (needs AVX) */
};

/* test hook: make the next hw_crypto_key_new() fail with -ENOMEM */
int hw_crypto_fail_next;
static unsigned int nkeys;	/* keys alive */
/* bench hook: separate GHASH and CTR passes instead of the stitched loop */
int hw_crypto_no_stitch;

/* ---- portable GF(2^128) multiply (GCM bit order), reference ---- */
static void gf_mul_ref(u8 x[16], const u8 y[16])
{
	u8 z[16] = { 0 }, v[16];
	int i, j, k;

	memcpy(v, y, 16);
	for (i = 0; i < 16; i++) {
		for (j = 7; j >= 0; j--) {
			if (x[i] >> j & 1)
				for (k = 0; k < 16; k++)
					z[k] ^= v[k];
			/* v = v * x (right shift in GCM order) */
			int lsb = v[15] & 1;

			for (k = 15; k > 0; k--)
				v[k] = (u8)(v[k] >> 1 | v[k - 1] << 7);
			v[0] >>= 1;
			if (lsb)
				v[0] ^= 0xe1;
		}
	}
	memcpy(x, z, 16);
}

/*
 * ---- AES-NI / PCLMUL fast path (VEX-encoded: needs AVX) ----
 *
 * GHASH works on byte-reflected operands (bswap of the GCM block), where
 * the carry-less product of two elements is the field product times y^-127
 * modulo the reversed polynomial P' = y^128 + y^127 + y^126 + y^121 + 1
 * (y = 1/x).  Storing every power of H pre-multiplied by y turns that into
 * a Montgomery product (times y^-128), reduced 64 bits at a time by
 * clmul(low word, 0xc2 << 56) because P' = 1 mod y^64.  Products use
 * Karatsuba (3 multiplies); eight blocks are aggregated per reduction.
 */
#define TGT __attribute__((target("aes,pclmul,avx,sse4.1,ssse3")))

TGT static inline __m128i bswap128(__m128i x)
{
	const __m128i m = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
				       12, 13, 14, 15);
	return _mm_shuffle_epi8(x, m);
}

/* Karatsuba accumulate: a * (h, hk = h.hi ^ h.lo in both halves) */
TGT static inline void kmul_acc(__m128i a, __m128i h, __m128i hk,
				__m128i *lo, __m128i *mid, __m128i *hi)
{
	__m128i ak = _mm_xor_si128(a, _mm_shuffle_epi32(a, 0x4e));

	*lo = _mm_xor_si128(*lo, _mm_clmulepi64_si128(a, h, 0x00));
	*hi = _mm_xor_si128(*hi, _mm_clmulepi64_si128(a, h, 0x11));
	*mid = _mm_xor_si128(*mid, _mm_clmulepi64_si128(ak, hk, 0x00));
}

/* Montgomery-reduce the Karatsuba triple (lo, mid, hi) to 128 bits */
TGT static inline __m128i kreduce(__m128i lo, __m128i mid, __m128i hi)
{
	/* 0xc2 << 56 (as a signed 64-bit lane) */
	const __m128i poly = _mm_set_epi64x(0, -0x3e00000000000000LL);
	__m128i t;

	mid = _mm_xor_si128(mid, _mm_xor_si128(lo, hi));
	lo = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
	hi = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
	t = _mm_xor_si128(_mm_shuffle_epi32(lo, 0x4e),
			  _mm_clmulepi64_si128(lo, poly, 0x00));
	t = _mm_xor_si128(_mm_shuffle_epi32(t, 0x4e),
			  _mm_clmulepi64_si128(t, poly, 0x00));
	return _mm_xor_si128(hi, t);
}

TGT static inline __m128i hkey(__m128i h)
{
	return _mm_xor_si128(_mm_unpacklo_epi64(h, h), _mm_unpackhi_epi64(h, h));
}

/* a * b' (b' = b * y): the GHASH product of a and b */
TGT static __m128i gfmul(__m128i a, __m128i b)
{
	__m128i lo = _mm_setzero_si128(), mid = lo, hi = lo;

	kmul_acc(a, b, hkey(b), &lo, &mid, &hi);
	return kreduce(lo, mid, hi);
}

TGT static void ghash_clmul_setup(struct hw_crypto_key *k)
{
	__m128i h = bswap128(_mm_loadu_si128((const __m128i *)k->h));
	__m128i carry = _mm_srai_epi32(_mm_shuffle_epi32(h, 0xff), 31);
	/* P' without y^128: 0xc2 << 56 : 1 */
	const __m128i p = _mm_set_epi64x(-0x3e00000000000000LL, 1);
	int i;

	/* h' = h * y mod P': shift left by one, conditionally add P' */
	h = _mm_or_si128(_mm_slli_epi64(h, 1),
			 _mm_srli_epi64(_mm_slli_si128(h, 8), 63));
	h = _mm_xor_si128(h, _mm_and_si128(carry, p));
	k->hp[0] = h;
	for (i = 1; i < 8; i++)
		k->hp[i] = gfmul(k->hp[i - 1], h);
	for (i = 0; i < 8; i++)
		k->hk[i] = hkey(k->hp[i]);
	for (i = 0; i < 4; i++)
		k->kp[i] = _mm_unpacklo_epi64(k->hk[7 - 2 * i],
					      k->hk[6 - 2 * i]);
}

/* Karatsuba middle products of two blocks at once (kp: both hi ^ lo) */
TGT static inline void kmul2_mid(__m128i a, __m128i b, __m128i kp,
				 __m128i *mid)
{
	__m128i t = _mm_xor_si128(_mm_unpacklo_epi64(a, b),
				  _mm_unpackhi_epi64(a, b));

	*mid = _mm_xor_si128(*mid, _mm_clmulepi64_si128(t, kp, 0x00));
	*mid = _mm_xor_si128(*mid, _mm_clmulepi64_si128(t, kp, 0x11));
}

TGT static inline void kmul_lohi(__m128i a, __m128i h, __m128i *lo,
				 __m128i *hi)
{
	*lo = _mm_xor_si128(*lo, _mm_clmulepi64_si128(a, h, 0x00));
	*hi = _mm_xor_si128(*hi, _mm_clmulepi64_si128(a, h, 0x11));
}

TGT static inline __m128i load_bs(const u8 *p)
{
	return bswap128(_mm_loadu_si128((const __m128i *)p));
}

/* blocks 2i, 2i + 1 of an 8-block group (y folded into block 0) */
TGT static inline void gh_pair(const struct hw_crypto_key *kk, const u8 *d,
			       int i, __m128i y, __m128i *lo, __m128i *mid,
			       __m128i *hi)
{
	__m128i x0 = load_bs(d + 32 * i), x1 = load_bs(d + 32 * i + 16);

	if (!i)
		x0 = _mm_xor_si128(x0, y);
	kmul_lohi(x0, kk->hp[7 - 2 * i], lo, hi);
	kmul_lohi(x1, kk->hp[6 - 2 * i], lo, hi);
	kmul2_mid(x0, x1, kk->kp[i], mid);
	/* no reassociation across pairs: 16 xmm registers stay enough */
	__asm__("" : "+x"(*lo), "+x"(*mid), "+x"(*hi));
}

TGT static void ghash_clmul(struct hw_crypto_key *k, u8 state[16],
			    const u8 *d, unsigned int nb)
{
	const __m128i *hp = k->hp, *hk = k->hk;
	__m128i y = bswap128(_mm_loadu_si128((const __m128i *)state));

	while (nb >= 8) {
		__m128i lo = _mm_setzero_si128(), mid = lo, hi = lo;
		const struct hw_crypto_key *kk = k;

		/* keep the key powers as memory operands, not stack spills */
		__asm__("" : "+r"(kk));
		gh_pair(kk, d, 0, y, &lo, &mid, &hi);
		gh_pair(kk, d, 1, y, &lo, &mid, &hi);
		gh_pair(kk, d, 2, y, &lo, &mid, &hi);
		gh_pair(kk, d, 3, y, &lo, &mid, &hi);
		y = kreduce(lo, mid, hi);
		d += 128;
		nb -= 8;
	}
	if (nb) {
		__m128i lo = _mm_setzero_si128(), mid = lo, hi = lo;
		unsigned int i;

		/* the remaining 1..7 blocks, aggregated with H^nb..H^1 */
		for (i = 0; i < nb; i++) {
			__m128i x = load_bs(d + 16 * i);

			if (!i)
				x = _mm_xor_si128(x, y);
			kmul_acc(x, hp[nb - 1 - i], hk[nb - 1 - i], &lo, &mid,
				 &hi);
		}
		y = kreduce(lo, mid, hi);
	}
	_mm_storeu_si128((__m128i *)state, bswap128(y));
}

/* AES key schedules (encryption only) with AESKEYGENASSIST */
TGT static inline __m128i ks_mix(__m128i k, __m128i t)
{
	k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
	k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
	k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
	return _mm_xor_si128(k, t);
}

#define KS128(i, rcon)							\
	(rk[i] = ks_mix(rk[(i) - 1], _mm_shuffle_epi32(			\
		_mm_aeskeygenassist_si128(rk[(i) - 1], rcon), 0xff)))

TGT static void aesni_expand(struct hw_crypto_key *k, const u8 *key,
			     unsigned int keylen)
{
	__m128i *rk = k->rk, t;

	rk[0] = _mm_loadu_si128((const __m128i *)key);
	if (keylen == 16) {
		k->nr = 10;
		KS128(1, 0x01);
		KS128(2, 0x02);
		KS128(3, 0x04);
		KS128(4, 0x08);
		KS128(5, 0x10);
		KS128(6, 0x20);
		KS128(7, 0x40);
		KS128(8, 0x80);
		KS128(9, 0x1b);
		KS128(10, 0x36);
		return;
	}
	k->nr = 14;
	rk[1] = _mm_loadu_si128((const __m128i *)(key + 16));
#define KS256(i, rcon)							\
	do {								\
		rk[i] = ks_mix(rk[(i) - 2], _mm_shuffle_epi32(		\
			_mm_aeskeygenassist_si128(rk[(i) - 1], rcon), 0xff)); \
		if ((i) + 1 <= 14)					\
			rk[(i) + 1] = ks_mix(rk[(i) - 1], _mm_shuffle_epi32( \
				_mm_aeskeygenassist_si128(rk[i], 0), 0xaa)); \
	} while (0)
	KS256(2, 0x01);
	KS256(4, 0x02);
	KS256(6, 0x04);
	KS256(8, 0x08);
	KS256(10, 0x10);
	KS256(12, 0x20);
	t = _mm_aeskeygenassist_si128(rk[13], 0x40);
	rk[14] = ks_mix(rk[12], _mm_shuffle_epi32(t, 0xff));
#undef KS256
}

TGT static inline __m128i aesni_enc1(const struct hw_crypto_key *k, __m128i b)
{
	const __m128i *rk = k->rk;

	b = _mm_xor_si128(b, rk[0]);
	b = _mm_aesenc_si128(b, rk[1]);
	b = _mm_aesenc_si128(b, rk[2]);
	b = _mm_aesenc_si128(b, rk[3]);
	b = _mm_aesenc_si128(b, rk[4]);
	b = _mm_aesenc_si128(b, rk[5]);
	b = _mm_aesenc_si128(b, rk[6]);
	b = _mm_aesenc_si128(b, rk[7]);
	b = _mm_aesenc_si128(b, rk[8]);
	b = _mm_aesenc_si128(b, rk[9]);
	if (k->nr > 10) {
		b = _mm_aesenc_si128(b, rk[10]);
		b = _mm_aesenc_si128(b, rk[11]);
		b = _mm_aesenc_si128(b, rk[12]);
		b = _mm_aesenc_si128(b, rk[13]);
	}
	return _mm_aesenclast_si128(b, rk[k->nr]);
}

TGT static void aesni_block(const struct hw_crypto_key *k, const u8 *in,
			    u8 *out)
{
	_mm_storeu_si128((__m128i *)out,
			 aesni_enc1(k, _mm_loadu_si128((const __m128i *)in)));
}

/* keystream block b (before the last round) XOR input block i */
#define AES_OUT(i, b)							\
	_mm_storeu_si128((__m128i *)(out + 16 * (i)),		\
		_mm_xor_si128(_mm_aesenclast_si128(b, r),	\
			_mm_loadu_si128((const __m128i *)(in + 16 * (i)))))

/* round-0 state of counter block c + n (c byte-reflected) */
TGT static inline __m128i ctr_blk(__m128i c, int n, __m128i rk0)
{
	return _mm_xor_si128(bswap128(_mm_add_epi32(c,
				_mm_set_epi32(0, 0, 0, n))), rk0);
}

/* CTR, 8 blocks in flight; the counter is inc32 on the last 4 bytes */
TGT static void aesni_ctr(const struct hw_crypto_key *k, const u8 ctr[16],
			  const u8 *in, u8 *out, unsigned int len)
{
	const __m128i *rk = k->rk;
	const __m128i one = _mm_set_epi32(0, 0, 0, 1);
	const __m128i eight = _mm_set_epi32(0, 0, 0, 8);
	__m128i c = bswap128(_mm_loadu_si128((const __m128i *)ctr));
	const int nr = k->nr;

	while (len >= 128) {
		__m128i b0, b1, b2, b3, b4, b5, b6, b7, r;

		b0 = ctr_blk(c, 0, rk[0]);
		b1 = ctr_blk(c, 1, rk[0]);
		b2 = ctr_blk(c, 2, rk[0]);
		b3 = ctr_blk(c, 3, rk[0]);
		b4 = ctr_blk(c, 4, rk[0]);
		b5 = ctr_blk(c, 5, rk[0]);
		b6 = ctr_blk(c, 6, rk[0]);
		b7 = ctr_blk(c, 7, rk[0]);
		c = _mm_add_epi32(c, eight);
#define AES_RND(i)							\
		do {							\
			r = rk[i];					\
			b0 = _mm_aesenc_si128(b0, r);			\
			b1 = _mm_aesenc_si128(b1, r);			\
			b2 = _mm_aesenc_si128(b2, r);			\
			b3 = _mm_aesenc_si128(b3, r);			\
			b4 = _mm_aesenc_si128(b4, r);			\
			b5 = _mm_aesenc_si128(b5, r);			\
			b6 = _mm_aesenc_si128(b6, r);			\
			b7 = _mm_aesenc_si128(b7, r);			\
		} while (0)
		AES_RND(1);
		AES_RND(2);
		AES_RND(3);
		AES_RND(4);
		AES_RND(5);
		AES_RND(6);
		AES_RND(7);
		AES_RND(8);
		AES_RND(9);
		if (nr > 10) {
			AES_RND(10);
			AES_RND(11);
			AES_RND(12);
			AES_RND(13);
		}
#undef AES_RND
		r = rk[nr];
		AES_OUT(0, b0);
		AES_OUT(1, b1);
		AES_OUT(2, b2);
		AES_OUT(3, b3);
		AES_OUT(4, b4);
		AES_OUT(5, b5);
		AES_OUT(6, b6);
		AES_OUT(7, b7);
		in += 128;
		out += 128;
		len -= 128;
	}
	if (len >= 64) {
		__m128i b0, b1, b2, b3, r;

		b0 = ctr_blk(c, 0, rk[0]);
		b1 = ctr_blk(c, 1, rk[0]);
		b2 = ctr_blk(c, 2, rk[0]);
		b3 = ctr_blk(c, 3, rk[0]);
		c = _mm_add_epi32(c, _mm_set_epi32(0, 0, 0, 4));
#define AES_RND(i)							\
		do {							\
			r = rk[i];					\
			b0 = _mm_aesenc_si128(b0, r);			\
			b1 = _mm_aesenc_si128(b1, r);			\
			b2 = _mm_aesenc_si128(b2, r);			\
			b3 = _mm_aesenc_si128(b3, r);			\
		} while (0)
		AES_RND(1);
		AES_RND(2);
		AES_RND(3);
		AES_RND(4);
		AES_RND(5);
		AES_RND(6);
		AES_RND(7);
		AES_RND(8);
		AES_RND(9);
		if (nr > 10) {
			AES_RND(10);
			AES_RND(11);
			AES_RND(12);
			AES_RND(13);
		}
#undef AES_RND
		r = rk[nr];
		AES_OUT(0, b0);
		AES_OUT(1, b1);
		AES_OUT(2, b2);
		AES_OUT(3, b3);
		in += 64;
		out += 64;
		len -= 64;
	}
#undef AES_OUT
	while (len) {
		__m128i ks = aesni_enc1(k, bswap128(c));

		c = _mm_add_epi32(c, one);
		if (len >= 16) {
			__m128i x = _mm_loadu_si128((const __m128i *)in);

			_mm_storeu_si128((__m128i *)out, _mm_xor_si128(ks, x));
			in += 16;
			out += 16;
			len -= 16;
		} else {
			u8 kb[16];
			unsigned int j;

			_mm_storeu_si128((__m128i *)kb, ks);
			for (j = 0; j < len; j++)
				out[j] = in[j] ^ kb[j];
			len = 0;
		}
	}
}

/*
 * Stitched CTR + GHASH: the 8-block AES pipeline of aesni_ctr() with the
 * GHASH of the same 8 ciphertext blocks (gh_pair) interleaved between its
 * rounds, so the AES and carry-less multiply units work at the same time.
 * All input loads of a group come before its stores (in == out is fine).
 */
TGT static void aesni_ctr_ghash(struct hw_crypto_key *k, const u8 ctr[16],
				const u8 *in, u8 *out, unsigned int nb,
				u8 state[16])
{
	const __m128i *rk = k->rk;
	const __m128i eight = _mm_set_epi32(0, 0, 0, 8);
	__m128i c = bswap128(_mm_loadu_si128((const __m128i *)ctr));
	__m128i y = bswap128(_mm_loadu_si128((const __m128i *)state));
	const int nr = k->nr;
	u8 cb[16];

	while (nb >= 8) {
		__m128i b0, b1, b2, b3, b4, b5, b6, b7, r;
		__m128i lo = _mm_setzero_si128(), mid = lo, hi = lo;
		const struct hw_crypto_key *kk = k;

		__asm__("" : "+r"(kk));
		b0 = ctr_blk(c, 0, rk[0]);
		b1 = ctr_blk(c, 1, rk[0]);
		b2 = ctr_blk(c, 2, rk[0]);
		b3 = ctr_blk(c, 3, rk[0]);
		b4 = ctr_blk(c, 4, rk[0]);
		b5 = ctr_blk(c, 5, rk[0]);
		b6 = ctr_blk(c, 6, rk[0]);
		b7 = ctr_blk(c, 7, rk[0]);
		c = _mm_add_epi32(c, eight);
#define AES_RND(i)							\
		do {							\
			r = rk[i];					\
			b0 = _mm_aesenc_si128(b0, r);			\
			b1 = _mm_aesenc_si128(b1, r);			\
			b2 = _mm_aesenc_si128(b2, r);			\
			b3 = _mm_aesenc_si128(b3, r);			\
			b4 = _mm_aesenc_si128(b4, r);			\
			b5 = _mm_aesenc_si128(b5, r);			\
			b6 = _mm_aesenc_si128(b6, r);			\
			b7 = _mm_aesenc_si128(b7, r);			\
		} while (0)
		AES_RND(1);
		gh_pair(kk, in, 0, y, &lo, &mid, &hi);
		AES_RND(2);
		AES_RND(3);
		gh_pair(kk, in, 1, y, &lo, &mid, &hi);
		AES_RND(4);
		AES_RND(5);
		gh_pair(kk, in, 2, y, &lo, &mid, &hi);
		AES_RND(6);
		AES_RND(7);
		gh_pair(kk, in, 3, y, &lo, &mid, &hi);
		AES_RND(8);
		y = kreduce(lo, mid, hi);
		AES_RND(9);
		if (nr > 10) {
			AES_RND(10);
			AES_RND(11);
			AES_RND(12);
			AES_RND(13);
		}
#undef AES_RND
		r = rk[nr];
#define AES_OUT(i, b)							\
	_mm_storeu_si128((__m128i *)(out + 16 * (i)),		\
		_mm_xor_si128(_mm_aesenclast_si128(b, r),	\
			_mm_loadu_si128((const __m128i *)(in + 16 * (i)))))
		AES_OUT(0, b0);
		AES_OUT(1, b1);
		AES_OUT(2, b2);
		AES_OUT(3, b3);
		AES_OUT(4, b4);
		AES_OUT(5, b5);
		AES_OUT(6, b6);
		AES_OUT(7, b7);
#undef AES_OUT
		in += 128;
		out += 128;
		nb -= 8;
	}
	_mm_storeu_si128((__m128i *)state, bswap128(y));
	if (nb) {
		_mm_storeu_si128((__m128i *)cb, bswap128(c));
		ghash_clmul(k, state, in, nb);
		aesni_ctr(k, cb, in, out, nb * 16);
	}
}

/* ---- interface ---- */

/*
 * Test hook: the n-th next CTR call (hw_crypto_ctr_xor or the stitched
 * call) fails with -ENOMEM, as a real backend that allocates can, after
 * writing garbage to out: the engine must never mark what it produced.
 */
int hw_crypto_fail_ctr_in;

static bool ctr_fails(u8 *out, unsigned int len)
{
	if (!hw_crypto_fail_ctr_in || --hw_crypto_fail_ctr_in)
		return false;
	memset(out, 0xa5, len);
	return true;
}

int hw_crypto_aes_block(struct hw_crypto_key *k, const u8 in[16], u8 out[16])
{
	int outl;

	if (k->aesni) {
		aesni_block(k, in, out);
		return 0;
	}
	return EVP_EncryptUpdate(k->ecb, out, &outl, in, 16) ? 0 : -EIO;
}

int hw_crypto_ctr_xor(struct hw_crypto_key *k, const u8 ctr[16],
		      const u8 *in, u8 *out, unsigned int len)
{
	int outl;
	u32 c;

	if (ctr_fails(out, len))
		return -ENOMEM;
	if (k->aesni) {
		aesni_ctr(k, ctr, in, out, len);
		return 0;
	}
	/* consecutive frames of a record continue the same counter run */
	if (!k->ctr_live || memcmp(ctr, k->next_ctr, 16) || (len & 15)) {
		if (!EVP_EncryptInit_ex(k->ctr, NULL, NULL, NULL, ctr))
			return -EIO;
	}
	if (!EVP_EncryptUpdate(k->ctr, out, &outl, in, (int)len)) {
		k->ctr_live = false;
		return -EIO;
	}
	memcpy(k->next_ctr, ctr, 16);
	c = hw_get_be32(ctr + 12) + (len + 15) / 16;
	hw_put_be32(k->next_ctr + 12, c);
	k->ctr_live = !(len & 15) && c > hw_get_be32(ctr + 12);
	return 0;
}

int hw_crypto_ghash(struct hw_crypto_key *k, u8 state[16], const u8 *data,
		    unsigned int nblocks)
{
	unsigned int i, j;

	if (k->clmul) {
		ghash_clmul(k, state, data, nblocks);
		return 0;
	}
	for (i = 0; i < nblocks; i++) {
		for (j = 0; j < 16; j++)
			state[j] ^= data[16 * i + j];
		gf_mul_ref(state, k->h);
	}
	return 0;
}

int hw_crypto_ctr_xor_ghash(struct hw_crypto_key *k, const u8 ctr[16],
			    const u8 *in, u8 *out, unsigned int nblocks,
			    u8 state[16])
{
	if (k->aesni && k->clmul && !hw_crypto_no_stitch) {
		if (ctr_fails(out, nblocks * 16))
			return -ENOMEM;
		aesni_ctr_ghash(k, ctr, in, out, nblocks, state);
		return 0;
	}
	hw_crypto_ghash(k, state, in, nblocks);
	return hw_crypto_ctr_xor(k, ctr, in, out, nblocks * 16);
}

int hw_crypto_key_new(const u8 *key, unsigned int keylen,
		      struct hw_crypto_key **out)
{
	const EVP_CIPHER *ecb, *ctr;
	struct hw_crypto_key *k;
	u8 zero[16] = { 0 }, chk[16];
	int simd;

	if (keylen == 16) {
		ecb = EVP_aes_128_ecb();
		ctr = EVP_aes_128_ctr();
	} else if (keylen == 32) {
		ecb = EVP_aes_256_ecb();
		ctr = EVP_aes_256_ctr();
	} else {
		return -EINVAL;
	}
	if (hw_crypto_fail_next) {
		hw_crypto_fail_next = 0;
		return -ENOMEM;
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	nkeys++;	/* hw_crypto_key_free() takes it back */
	k->ecb = EVP_CIPHER_CTX_new();
	k->ctr = EVP_CIPHER_CTX_new();
	if (!k->ecb || !k->ctr ||
	    !EVP_EncryptInit_ex(k->ecb, ecb, NULL, key, NULL) ||
	    !EVP_EncryptInit_ex(k->ctr, ctr, NULL, key, zero)) {
		hw_crypto_key_free(k);
		return -ENOMEM;
	}
	EVP_CIPHER_CTX_set_padding(k->ecb, 0);
	hw_crypto_aes_block(k, zero, k->h);
	simd = __builtin_cpu_supports("avx") && __builtin_cpu_supports("aes") &&
	       __builtin_cpu_supports("pclmul");
	if (simd && !getenv("HW_NO_AESNI")) {
		aesni_expand(k, key, keylen);
		/* self-check the schedule against OpenSSL: H = E_K(0) */
		aesni_block(k, zero, chk);
		k->aesni = !memcmp(chk, k->h, 16);
	}
	k->clmul = simd && !getenv("HW_NO_CLMUL");
	if (k->clmul)
		ghash_clmul_setup(k);
	*out = k;
	return 0;
}

unsigned int hw_crypto_key_count(void)
{
	return nkeys;
}

void hw_crypto_key_free(struct hw_crypto_key *k)
{
	if (!k)
		return;
	nkeys--;
	EVP_CIPHER_CTX_free(k->ecb);
	EVP_CIPHER_CTX_free(k->ctr);
	OPENSSL_cleanse(k, sizeof(*k));
	free(k);
}
