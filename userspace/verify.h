/* SPDX-License-Identifier: GPL-2.0 */
/* Receiver-side payload verification shared by every rx mode. */
#ifndef INNOVA_VERIFY_H
#define INNOVA_VERIFY_H

#include "innova_tls.h"

/*
 * Connections can be accepted in any order, so a flow is identified by its
 * first (up to) 8 payload bytes, which differ between flow indices with
 * overwhelming probability; after that every byte is checked at its offset.
 */
struct flow_claims;

struct verifier {
	const struct options *o;
	struct flow_claims *claims;
	struct pattern pat;
	int flow;                 /* -1 until identified */
	uint8_t head[8];
	size_t head_len;
	uint64_t offset;          /* payload bytes verified so far */
	int64_t bad_offset;
};

struct flow_claims *flow_claims_new(unsigned flows);
void flow_claims_free(struct flow_claims *c);
void verifier_init(struct verifier *v, const struct options *o, struct flow_claims *claims);
/* 0 = fine so far, -1 = mismatch/overrun (err filled, v->bad_offset set if a byte differed). */
int verifier_feed(struct verifier *v, const uint8_t *buf, size_t len, char *err, size_t errlen);
/* At EOF: checks the total length; 0 or -1 with err. */
int verifier_finish(struct verifier *v, char *err, size_t errlen);

#endif
