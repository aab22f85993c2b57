// SPDX-License-Identifier: GPL-2.0
/*
 * Host crypto backend for the Innova engine: OpenSSL libcrypto (EVP) for AES
 * (ECB single blocks, CTR keystream), GHASH with PCLMULQDQ (4-block
 * aggregated reduction) or a portable bitwise fallback.
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
	__m128i hp[8];		/* H^1..H^8, byte-reflected, for PCLMUL */
	u8 next_ctr[16];	/* counter the CTR context continues at */
	int ctr_live;
	int clmul;
};

/* test hook: make the next hw_crypto_key_new() fail with -ENOMEM */
int hw_crypto_fail_next;

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

/* ---- PCLMUL GHASH (operands byte-reflected) ---- */
#define TGT __attribute__((target("pclmul,sse4.1,ssse3")))

TGT static inline __m128i bswap128(__m128i x)
{
	const __m128i m = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
				       12, 13, 14, 15);
	return _mm_shuffle_epi8(x, m);
}

TGT static inline void clmul_acc(__m128i a, __m128i b, __m128i *lo,
				 __m128i *mid, __m128i *hi)
{
	*lo = _mm_xor_si128(*lo, _mm_clmulepi64_si128(a, b, 0x00));
	*hi = _mm_xor_si128(*hi, _mm_clmulepi64_si128(a, b, 0x11));
	*mid = _mm_xor_si128(*mid, _mm_clmulepi64_si128(a, b, 0x10));
	*mid = _mm_xor_si128(*mid, _mm_clmulepi64_si128(a, b, 0x01));
}

/* reduce the 256-bit product (lo, mid, hi) modulo the GCM polynomial */
TGT static inline __m128i clmul_reduce(__m128i t3, __m128i t4, __m128i t6)
{
	__m128i t2, t5, t7, t8, t9;

	t5 = _mm_slli_si128(t4, 8);
	t4 = _mm_srli_si128(t4, 8);
	t3 = _mm_xor_si128(t3, t5);
	t6 = _mm_xor_si128(t6, t4);
	/* shift the 256-bit value left by one (bit reflection) */
	t7 = _mm_srli_epi32(t3, 31);
	t8 = _mm_srli_epi32(t6, 31);
	t3 = _mm_slli_epi32(t3, 1);
	t6 = _mm_slli_epi32(t6, 1);
	t9 = _mm_srli_si128(t7, 12);
	t8 = _mm_slli_si128(t8, 4);
	t7 = _mm_slli_si128(t7, 4);
	t3 = _mm_or_si128(t3, t7);
	t6 = _mm_or_si128(t6, t8);
	t6 = _mm_or_si128(t6, t9);
	/* reduction */
	t7 = _mm_slli_epi32(t3, 31);
	t8 = _mm_slli_epi32(t3, 30);
	t9 = _mm_slli_epi32(t3, 25);
	t7 = _mm_xor_si128(t7, t8);
	t7 = _mm_xor_si128(t7, t9);
	t8 = _mm_srli_si128(t7, 4);
	t7 = _mm_slli_si128(t7, 12);
	t3 = _mm_xor_si128(t3, t7);
	t2 = _mm_srli_epi32(t3, 1);
	t4 = _mm_srli_epi32(t3, 2);
	t5 = _mm_srli_epi32(t3, 7);
	t2 = _mm_xor_si128(t2, t4);
	t2 = _mm_xor_si128(t2, t5);
	t2 = _mm_xor_si128(t2, t8);
	t3 = _mm_xor_si128(t3, t2);
	return _mm_xor_si128(t6, t3);
}

TGT static __m128i gfmul(__m128i a, __m128i b)
{
	__m128i lo = _mm_setzero_si128(), mid = lo, hi = lo;

	clmul_acc(a, b, &lo, &mid, &hi);
	return clmul_reduce(lo, mid, hi);
}

TGT static void ghash_clmul_setup(struct hw_crypto_key *k)
{
	__m128i h = bswap128(_mm_loadu_si128((const __m128i *)k->h));

	k->hp[0] = h;
	k->hp[1] = gfmul(h, h);
	for (int i = 2; i < 8; i++)
		k->hp[i] = gfmul(k->hp[i - 1], h);
}

TGT static void ghash_clmul(struct hw_crypto_key *k, u8 state[16],
			    const u8 *d, unsigned int nb)
{
	__m128i y = bswap128(_mm_loadu_si128((const __m128i *)state));

	while (nb >= 8) {
		__m128i lo = _mm_setzero_si128(), mid = lo, hi = lo;
		int i;

		for (i = 0; i < 8; i++) {
			__m128i x = bswap128(_mm_loadu_si128(
					(const __m128i *)(d + 16 * i)));

			if (!i)
				x = _mm_xor_si128(x, y);
			clmul_acc(x, k->hp[7 - i], &lo, &mid, &hi);
		}
		y = clmul_reduce(lo, mid, hi);
		d += 128;
		nb -= 8;
	}
	while (nb >= 4) {
		__m128i x0 = bswap128(_mm_loadu_si128((const __m128i *)d));
		__m128i x1 = bswap128(_mm_loadu_si128((const __m128i *)(d + 16)));
		__m128i x2 = bswap128(_mm_loadu_si128((const __m128i *)(d + 32)));
		__m128i x3 = bswap128(_mm_loadu_si128((const __m128i *)(d + 48)));
		__m128i lo = _mm_setzero_si128(), mid = lo, hi = lo;

		clmul_acc(_mm_xor_si128(y, x0), k->hp[3], &lo, &mid, &hi);
		clmul_acc(x1, k->hp[2], &lo, &mid, &hi);
		clmul_acc(x2, k->hp[1], &lo, &mid, &hi);
		clmul_acc(x3, k->hp[0], &lo, &mid, &hi);
		y = clmul_reduce(lo, mid, hi);
		d += 64;
		nb -= 4;
	}
	while (nb--) {
		__m128i x = bswap128(_mm_loadu_si128((const __m128i *)d));

		y = gfmul(_mm_xor_si128(y, x), k->hp[0]);
		d += 16;
	}
	_mm_storeu_si128((__m128i *)state, bswap128(y));
}

/* ---- interface ---- */

void hw_crypto_aes_block(struct hw_crypto_key *k, const u8 in[16], u8 out[16])
{
	int outl;

	EVP_EncryptUpdate(k->ecb, out, &outl, in, 16);
}

void hw_crypto_ctr_xor(struct hw_crypto_key *k, const u8 ctr[16],
		       const u8 *in, u8 *out, unsigned int len)
{
	int outl;
	u32 c;

	/* consecutive frames of a record continue the same counter run */
	if (!k->ctr_live || memcmp(ctr, k->next_ctr, 16) || (len & 15))
		EVP_EncryptInit_ex(k->ctr, NULL, NULL, NULL, ctr);
	EVP_EncryptUpdate(k->ctr, out, &outl, in, (int)len);
	memcpy(k->next_ctr, ctr, 16);
	c = hw_get_be32(ctr + 12) + (len + 15) / 16;
	hw_put_be32(k->next_ctr + 12, c);
	k->ctr_live = !(len & 15) && c > hw_get_be32(ctr + 12);
}

void hw_crypto_ghash(struct hw_crypto_key *k, u8 state[16], const u8 *data,
		     unsigned int nblocks)
{
	unsigned int i, j;

	if (k->clmul) {
		ghash_clmul(k, state, data, nblocks);
		return;
	}
	for (i = 0; i < nblocks; i++) {
		for (j = 0; j < 16; j++)
			state[j] ^= data[16 * i + j];
		gf_mul_ref(state, k->h);
	}
}

int hw_crypto_key_new(const u8 *key, unsigned int keylen,
		      struct hw_crypto_key **out)
{
	const EVP_CIPHER *ecb, *ctr;
	struct hw_crypto_key *k;
	u8 zero[16] = { 0 };

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
	k->clmul = __builtin_cpu_supports("pclmul") &&
		   __builtin_cpu_supports("ssse3") && !getenv("HW_NO_CLMUL");
	if (k->clmul)
		ghash_clmul_setup(k);
	*out = k;
	return 0;
}

void hw_crypto_key_free(struct hw_crypto_key *k)
{
	if (!k)
		return;
	EVP_CIPHER_CTX_free(k->ecb);
	EVP_CIPHER_CTX_free(k->ctr);
	OPENSSL_cleanse(k, sizeof(*k));
	free(k);
}
