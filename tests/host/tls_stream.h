/* SPDX-License-Identifier: GPL-2.0 */
/* Host test helpers: TLS 1.2/1.3 AES-GCM record streams and TCP frames. */
#ifndef TLS_STREAM_H
#define TLS_STREAM_H

#include <innova/hw_engine.h>

struct rng {
	u64 s;
};

static inline u64 rng_next(struct rng *r)
{
	u64 x = r->s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static inline u32 rng_below(struct rng *r, u32 n)
{
	return n ? (u32)(rng_next(r) % n) : 0;
}

static inline bool rng_chance(struct rng *r, double p)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0) < p;
}

#define MAX_EPOCHS 8

struct epoch {
	u8 key[32];
	unsigned int klen;
	u8 salt[4];
	u8 iv[8];		/* TLS 1.3: static IV = salt | iv */
	u64 from_rn;
};

/* the nonce material hw_engine_flow_key_update() takes: salt | iv */
static inline void epoch_iv(const struct epoch *e, u8 iv[HW_TLS_IV_LEN])
{
	memcpy(iv, e->salt, 4);
	memcpy(iv + 4, e->iv, 8);
}

/* a record as the receiving kernel's strparser parses the wire */
struct ref_rec {
	u32 off;		/* offset in wire */
	u32 len;		/* 5 + L */
	u64 rn;
	u8 type;
	bool tag_ok;
	int epoch;
	bool key_update;	/* TLS 1.3 KeyUpdate: the next key follows */
};

struct stream {
	u8 *wire;		/* bytes as sent (after sender-side corruption) */
	u8 *plain;		/* expected decrypted view of wire */
	u8 *valid;		/* plain[] defined for this byte */
	u32 n;
	u32 isn;		/* TCP seq of wire[0] */
	struct epoch ep[MAX_EPOCHS];
	int nep;
	struct ref_rec *rec;	/* reference parse */
	int nrec;
	u64 rn0;
	bool tls13;		/* TLS 1.3 records (no explicit nonce) */
};

/* bytes before a record's ciphertext: header (+ explicit nonce in 1.2) */
static inline u32 stream_prefix(const struct stream *s)
{
	return s->tls13 ? 5 : 13;
}

/* a flow install for epoch 0 of s: version and nonce material */
static inline void stream_flow_params(const struct stream *s,
				      struct hw_flow_params *fp)
{
	fp->version = s->tls13 ? HW_TLS_1_3 : HW_TLS_1_2;
	memcpy(fp->salt, s->ep[0].salt, 4);
	memcpy(fp->iv, s->ep[0].iv, 8);
}

struct stream_cfg {
	int nrec;
	int size_mode;		/* 0 fixed 16384, 1 random 0..16384, 2 small */
	unsigned int klen;	/* 16 or 32 */
	int nkeyup;		/* key changes (CCS before each) */
	int corrupt_tag;	/* number of records with a flipped tag byte */
	int corrupt_ct;		/* records with a flipped ciphertext byte */
	int corrupt_hdr;	/* 1: corrupt one header's length */
	u64 rn0;
	bool tls13;		/* TLS 1.3 records: nonce from the IV, inner
				 * content type (+ zero padding) encrypted */
};

void stream_gen(struct stream *s, const struct stream_cfg *c, struct rng *r);
void stream_free(struct stream *s);
int epoch_of_rn(const struct stream *s, u64 rn);
/* index of the reference record containing offset off, or -1 */
int stream_rec_at(const struct stream *s, u32 off);

/* frames */
struct frame_cfg {
	int family;		/* 4 or 6 */
	u8 saddr[16], daddr[16];
	u16 sport, dport;
	bool vlan;
	bool vid0;		/* with vlan: VID 0, a priority tag (untagged flow) */
	bool tsopt;		/* 12-byte TCP options */
};

/* build a frame carrying payload at seq; returns frame length */
u32 frame_build(u8 *buf, const struct frame_cfg *fc, u32 seq, u8 flags,
		const u8 *payload, u32 plen);
/* recompute the TCP checksum of a frame built by frame_build */
void frame_fix_csum(u8 *buf, u32 len);
void frame_tuple(const struct frame_cfg *fc, struct hw_flow_tuple *t);
/* the reverse direction of fc (the host's transmissions on that flow) */
struct frame_cfg frame_cfg_reverse(const struct frame_cfg *fc);
/* payload offset of a frame built with fc */
u32 frame_hdr_len(const struct frame_cfg *fc);

bool hdr_plausible_bytes(const u8 *h);

#endif
