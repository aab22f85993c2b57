// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic payload: byte i of flow f is byte (i % 8) of
 * splitmix64_mix(key(seed, f) + (i / 8) * GAMMA). Random access by offset, so
 * sender and receiver agree on every byte without a second channel, and a
 * corrupted, missing or duplicated chunk shows up at its exact offset.
 */
#include <string.h>
#include "innova_tls.h"

#define GAMMA 0x9e3779b97f4a7c15ULL

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t splitmix64(uint64_t *state)
{
	*state += GAMMA;
	return mix64(*state);
}

void pattern_init(struct pattern *p, uint64_t seed, unsigned flow)
{
	/* Distinct, well-separated streams per (seed, flow). */
	p->key = mix64(seed ^ mix64(0x696e6e6f7661ULL + flow));
}

static inline uint64_t word_at(const struct pattern *p, uint64_t idx)
{
	return mix64(p->key + idx * GAMMA);
}

void pattern_fill(const struct pattern *p, uint64_t offset, uint8_t *buf, size_t len)
{
	size_t i = 0;

	/* Leading partial word. */
	while (i < len && ((offset + i) & 7)) {
		uint64_t o = offset + i;
		buf[i++] = (uint8_t)(word_at(p, o >> 3) >> (8 * (o & 7)));
	}
	/* Whole words, little-endian byte order. */
	for (; i + 8 <= len; i += 8) {
		uint64_t w = word_at(p, (offset + i) >> 3);
		for (int b = 0; b < 8; b++)
			buf[i + b] = (uint8_t)(w >> (8 * b));
	}
	for (; i < len; i++) {
		uint64_t o = offset + i;
		buf[i] = (uint8_t)(word_at(p, o >> 3) >> (8 * (o & 7)));
	}
}

ssize_t pattern_check(const struct pattern *p, uint64_t offset, const uint8_t *buf, size_t len)
{
	uint8_t exp[4096];

	for (size_t done = 0; done < len;) {
		size_t n = len - done < sizeof(exp) ? len - done : sizeof(exp);

		pattern_fill(p, offset + done, exp, n);
		if (memcmp(exp, buf + done, n)) {
			for (size_t i = 0; i < n; i++)
				if (exp[i] != buf[done + i])
					return (ssize_t)(done + i);
		}
		done += n;
	}
	return -1;
}
