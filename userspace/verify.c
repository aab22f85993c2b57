// SPDX-License-Identifier: GPL-2.0
/* Byte-exact payload verification; see verify.h. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "verify.h"

/* First 8 payload bytes of a flow (little-endian word), sorted: exact heads by binary search. */
struct head_index {
	uint64_t word;
	unsigned flow;
};

struct flow_claims {
	pthread_mutex_t lock;
	unsigned flows;
	uint64_t seed;
	struct head_index *index;   /* NULL until the first claim (the seed is the verifier's) */
	bool claimed[];
};

struct flow_claims *flow_claims_new(unsigned flows)
{
	struct flow_claims *c = calloc(1, sizeof(*c) + flows * sizeof(bool));

	if (c) {
		pthread_mutex_init(&c->lock, NULL);
		c->flows = flows;
	}
	return c;
}

void flow_claims_free(struct flow_claims *c)
{
	if (c) {
		pthread_mutex_destroy(&c->lock);
		free(c->index);
	}
	free(c);
}

static int head_cmp(const void *a, const void *b)
{
	const struct head_index *x = a, *y = b;

	return x->word < y->word ? -1 : x->word > y->word ? 1 : (x->flow > y->flow) - (x->flow < y->flow);
}

static uint64_t head_word(const uint8_t head[8])
{
	uint64_t w = 0;

	for (int i = 7; i >= 0; i--)
		w = w << 8 | head[i];
	return w;
}

/*
 * An exact 8-byte head: the lowest unclaimed flow starting with it, found in
 * O(log flows) (thousands of flows would make the linear scan quadratic).
 * Called with the lock held; -1 if none (or no index: out of memory).
 */
static int claim_by_index(struct flow_claims *c, uint64_t seed, const uint8_t head[8])
{
	struct head_index key = { .word = head_word(head) };
	size_t lo = 0, hi = c->flows;

	if (!c->index || c->seed != seed) {
		struct head_index *ix = realloc(c->index, c->flows * sizeof(*ix));
		struct pattern p;
		uint8_t b[8];

		if (!ix)
			return -1;
		for (unsigned f = 0; f < c->flows; f++) {
			pattern_init(&p, seed, f);
			pattern_fill(&p, 0, b, 8);
			ix[f].word = head_word(b);
			ix[f].flow = f;
		}
		qsort(ix, c->flows, sizeof(*ix), head_cmp);
		c->index = ix;
		c->seed = seed;
	}
	while (lo < hi) {       /* first entry with word >= key.word */
		size_t mid = lo + (hi - lo) / 2;

		if (c->index[mid].word < key.word)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < c->flows && c->index[lo].word == key.word; lo++)
		if (!c->claimed[c->index[lo].flow])
			return (int)c->index[lo].flow;
	return -1;
}

void verifier_init(struct verifier *v, const struct options *o, struct flow_claims *claims)
{
	memset(v, 0, sizeof(*v));
	v->o = o;
	v->claims = claims;
	v->flow = -1;
	v->bad_offset = -1;
}

/*
 * Pick the unclaimed flow whose stream starts with head[0..n). If none
 * matches exactly, fall back to the flow with the longest matching prefix
 * when that is unambiguous (a single flow, or >= 4 matching bytes), so a
 * corrupted byte among the first 8 is still reported at its exact offset.
 */
static int claim_flow(struct verifier *v, char *err, size_t errlen)
{
	struct flow_claims *c = v->claims;
	struct pattern p;
	int best = -1;
	size_t best_len = 0;
	unsigned unclaimed = 0;

	pthread_mutex_lock(&c->lock);
	if (v->head_len == sizeof(v->head)) {
		best = claim_by_index(c, v->o->seed, v->head);
		if (best >= 0) {
			best_len = v->head_len;
			goto found;
		}
	}
	for (unsigned f = 0; f < c->flows; f++) {
		ssize_t bad;
		size_t match;

		if (c->claimed[f])
			continue;
		unclaimed++;
		pattern_init(&p, v->o->seed, f);
		bad = pattern_check(&p, 0, v->head, v->head_len);
		match = bad < 0 ? v->head_len : (size_t)bad;
		if (best < 0 || match > best_len) {
			best = (int)f;
			best_len = match;
		}
		if (bad < 0)
			break;
	}
found:
	if (best >= 0 && (best_len == v->head_len || unclaimed == 1 || best_len >= 4)) {
		c->claimed[best] = true;
		v->flow = best;
		pattern_init(&v->pat, v->o->seed, (unsigned)best);
	}
	pthread_mutex_unlock(&c->lock);
	if (v->flow < 0) {
		snprintf(err, errlen, "payload mismatch at offset 0: first %zu bytes match no unclaimed flow "
			 "of seed %llu (wrong --seed/--flows, or corrupted data)",
			 v->head_len, (unsigned long long)v->o->seed);
		v->bad_offset = 0;
		return -1;
	}
	return 0;
}

static int check_bytes(struct verifier *v, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	ssize_t bad;
	uint8_t want;

	if (v->o->bytes_set && v->offset + len > v->o->bytes) {
		snprintf(err, errlen, "flow %d: received more than --bytes %llu (extra data at offset %llu)",
			 v->flow, (unsigned long long)v->o->bytes, (unsigned long long)v->o->bytes);
		return -1;
	}
	bad = pattern_check(&v->pat, v->offset, buf, len);
	if (bad >= 0) {
		v->bad_offset = (int64_t)(v->offset + (uint64_t)bad);
		pattern_fill(&v->pat, (uint64_t)v->bad_offset, &want, 1);
		snprintf(err, errlen, "flow %d: payload mismatch at offset %lld (expected 0x%02x, got 0x%02x)",
			 v->flow, (long long)v->bad_offset, want, buf[bad]);
		return -1;
	}
	v->offset += len;
	return 0;
}

int verifier_feed(struct verifier *v, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	if (v->flow < 0) {
		uint64_t limit = v->o->bytes_set ? v->o->bytes : UINT64_MAX;
		size_t want = limit < sizeof(v->head) ? (size_t)limit : sizeof(v->head);
		size_t take = want - v->head_len < len ? want - v->head_len : len;

		if (want == 0) {
			if (!len)
				return 0;
			snprintf(err, errlen, "received data but --bytes is 0");
			return -1;
		}
		memcpy(v->head + v->head_len, buf, take);
		v->head_len += take;
		if (v->head_len < want)
			return 0;
		if (claim_flow(v, err, errlen))
			return -1;
		if (check_bytes(v, v->head, v->head_len, err, errlen))
			return -1;
		buf += take;
		len -= take;
	}
	return len ? check_bytes(v, buf, len, err, errlen) : 0;
}

int verifier_finish(struct verifier *v, char *err, size_t errlen)
{
	/* A stream shorter than 8 bytes: identify the flow by what there is. */
	if (v->flow < 0 && v->head_len) {
		if (claim_flow(v, err, errlen) || check_bytes(v, v->head, v->head_len, err, errlen))
			return -1;
	}
	if (v->o->bytes_set && v->offset != v->o->bytes) {
		snprintf(err, errlen, "flow %d: connection ended after %llu of %llu payload bytes",
			 v->flow, (unsigned long long)v->offset, (unsigned long long)v->o->bytes);
		return -1;
	}
	return 0;
}
