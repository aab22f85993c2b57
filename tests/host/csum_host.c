// SPDX-License-Identifier: GPL-2.0
/*
 * Host side of hw_csum_partial() (include/innova/hw_port.h): the engine's
 * TCP checksum check.  In the module this is the kernel's csum_partial();
 * here an AVX2 loop (16-bit words widened to 32-bit lanes) with a portable
 * 64-bit fallback, forced by HW_NO_AVX2 for the tests.
 */
#include <stdlib.h>
#include <immintrin.h>
#include <innova/hw_port.h>

static u64 csum_scalar(u64 sum, const u8 *p, u32 len)
{
	u64 a, b, x, y, s1 = 0, c = 0, c1 = 0;
	u32 v;
	u16 w;

	/*
	 * 64-bit one's complement accumulation: add with end-around carry,
	 * the carries counted in c (each worth 2^64 = 1 mod 2^16 - 1).  Two
	 * independent accumulators halve the add-with-carry dependency chain.
	 */
	while (len >= 32) {
		memcpy(&a, p, 8);
		memcpy(&b, p + 8, 8);
		memcpy(&x, p + 16, 8);
		memcpy(&y, p + 24, 8);
		sum += a;
		c += sum < a;
		s1 += b;
		c1 += s1 < b;
		sum += x;
		c += sum < x;
		s1 += y;
		c1 += s1 < y;
		p += 32;
		len -= 32;
	}
	sum += s1;
	c += c1 + (sum < s1);
	while (len >= 8) {
		memcpy(&a, p, 8);
		sum += a;
		c += sum < a;
		p += 8;
		len -= 8;
	}
	/* fold into 32 bits so the narrower adds below cannot overflow */
	sum = (sum & 0xffffffffu) + (sum >> 32) + c;
	if (len >= 4) {
		memcpy(&v, p, 4);
		sum += v;
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		memcpy(&w, p, 2);
		sum += w;
		p += 2;
		len -= 2;
	}
	if (len) {
		w = 0;
		memcpy(&w, p, 1);
		sum += w;
	}
	return sum;
}

/*
 * 64 bytes per step: words zero-extended into 32-bit lanes straight from
 * memory (vpmovzxwd), two accumulators; a lane takes at most 2 * 0xffff
 * per step, so 4096 steps (256 KiB) cannot overflow it before the flush.
 */
__attribute__((target("avx2")))
static u64 csum_avx2(const u8 *p, u32 len)
{
	u64 sum = 0;

	while (len >= 64) {
		__m256i a = _mm256_setzero_si256(), b = a;
		u32 n = len / 64 > 4096 ? 4096 : len / 64;
		u32 lane[8];
		int i;

		len -= n * 64;
		/* two steps per turn: half the loop overhead */
		for (; n >= 2; n -= 2, p += 128) {
			a = _mm256_add_epi32(a, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)));
			b = _mm256_add_epi32(b, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + 16))));
			a = _mm256_add_epi32(a, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + 32))));
			b = _mm256_add_epi32(b, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + 48))));
			a = _mm256_add_epi32(a, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + 64))));
			b = _mm256_add_epi32(b, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + 80))));
			a = _mm256_add_epi32(a, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + 96))));
			b = _mm256_add_epi32(b, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + 112))));
		}
		if (n) {
			a = _mm256_add_epi32(a, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)));
			b = _mm256_add_epi32(b, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + 16))));
			a = _mm256_add_epi32(a, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + 32))));
			b = _mm256_add_epi32(b, _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + 48))));
			p += 64;
		}
		_mm256_storeu_si256((__m256i *)lane, _mm256_add_epi32(a, b));
		for (i = 0; i < 8; i++)
			sum += lane[i];
	}
	return csum_scalar(sum, p, len);
}

static int csum_mode = -1;	/* 1 AVX2, 0 portable */

u64 hw_csum_partial(const u8 *p, u32 len)
{
	if (csum_mode < 0)
		csum_mode = __builtin_cpu_supports("avx2") && !getenv("HW_NO_AVX2");
	return csum_mode ? csum_avx2(p, len) : csum_scalar(0, p, len);
}

/* test hook: 1 AVX2 (if the CPU has it), 0 portable */
void hw_csum_force(int avx2)
{
	csum_mode = avx2 && __builtin_cpu_supports("avx2");
}
