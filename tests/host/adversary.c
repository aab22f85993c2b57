// SPDX-License-Identifier: GPL-2.0
/*
 * Adversarial differential harness for the Innova RX engine (issue 20,
 * item 3).  The NIC parses every frame before TCP decides whether to keep
 * it, so an injector can show it frames the socket never sees.  Each
 * execution (one seed) sends a clean TLS 1.2 or TLS 1.3 AES-GCM stream
 * (1.3 in a quarter of the executions, chosen by a hash of the seed
 * apart from everything else it draws, so 1.2 seeds replay as they did
 * before 1.3 was added; -V 12|13 forces one version) through
 *
 *   engine (hw_engine_rx on Ethernet/IPv4/TCP frames, genuine segments with
 *   ACK set)  ->  TCP receiver model  ->  kTLS core model  ->  application
 *
 * with natural faults (loss + later retransmission, reorder, duplication)
 * and seeded attacker frames mixed in.  The attacker only injects; every
 * frame it sends is one TCP drops (rejected ACK, no ACK flag, old data,
 * beyond the window), and the harness checks that TCP did drop it: the
 * socket holds exactly the sender's bytes, so software kTLS would deliver
 * the stream without an error.  What the offload may change is only which
 * bytes arrive marked decrypted.
 *
 * TCP model: a segment is dropped without the ACK flag (RFC 9293
 * 3.10.7.4), with an ACK beyond the receiver's snd_nxt (RFC 5961 5.2), or
 * if it starts at or beyond rcv_nxt + window, or if it is wholly old; otherwise
 * its bytes TCP does not hold yet are taken (first copy wins, overlaps
 * trimmed to the new part), out-of-order bytes kept until the hole fills.
 * (Linux lets a later out-of-order segment that starts at the same seq
 * and covers an earlier one replace it; attack frames never get that far
 * here and genuine copies carry the same bytes, so only which copy's mark
 * wins could differ: not modelled.)
 * Each byte keeps its frame's decrypted mark (skb->decrypted: the driver
 * hands up the engine's output buffer; TCP only coalesces skbs with the
 * same mark, so the mark is per byte in effect).
 *
 * kTLS core model (6.1 tls_sw.c / tls_device.c): the strparser reads each
 * header + explicit nonce (13 bytes; 1.3: the 5-byte header) from the
 * bytes TCP delivered, marked or not (tls_rx_msg_size: length beyond
 * 2^14 + 24 -> EMSGSIZE, below 24 -> EBADMSG; 1.3: 2^14 + 17 and 16,
 * version not 03 03 -> EINVAL), and answers a pending resync
 * request whose seq is that header's start + 4 (tls_device_rx_resync_new_rec
 * -> the driver's hw_engine_flow_resync).  A whole record whose bytes are
 * all marked is trusted as plaintext without a tag check
 * (tls_device_decrypted); a mixed one has its marked payload bytes XORed
 * with the record's keystream (tls_device_reencrypt) and is then decrypted
 * and verified in software like an unmarked one; a tag mismatch is
 * EBADMSG.  TLS 1.3: nonce = static IV XOR record number (the keystream
 * of re-encryption too), AAD = the header as delivered, and the content
 * type the application gets is the last non-zero byte of the plaintext
 * (none: EBADMSG), trusted or verified alike.  The first error kills the
 * connection.
 *
 * Invariants per execution:
 *  - WRONG:  the application never receives a wrong byte (record bounds,
 *            content type and plaintext equal the sender's; 1.3: the
 *            whole inner plaintext, type and padding included);
 *  - ERROR:  no error (software kTLS over the same socket raises none);
 *  - RESUME: after the last disturbance (attack frame, or a natural fault
 *            after it) the stream is quiet, and the first NIC-decrypted
 *            (all-marked) record comes within -b records (96) of the
 *            first record sent after it.  A stray frame ahead costs the
 *            most: the engine takes its position back after 16 old
 *            frames (several records each with small records), then
 *            resyncs through the core (84 records at most in 940 516
 *            executions of 1 M, seeds 50000000 on, the others with an
 *            engine bug's signature; p99 27, p99.9 39).  The quiet
 *            tail is TAIL_RECORDS records; a run that has not seen a
 *            NIC-decrypted record by its end, with bound + 1 records or
 *            fewer after the disturbance, appends TAIL_CHUNK more
 *            records (drawn after everything else, so a seed's attack
 *            phase replays as before) until it can tell: no execution
 *            goes unmeasured.  A failing one names what the engine was
 *            doing when the bound ran out (resume_fail(): ahead, nokey,
 *            other); -K ahead,nokey reports the signatures of open
 *            engine bugs without failing (make test passes it).
 * A failing execution is re-run with attack frames removed to name the
 * culprit (natural faults alone, one attack action, several of one kind,
 * or a combination), and checked against the residual class
 * (residual_candidate()).  --selftest checks that the invariants catch a
 * NIC that marks one wrong byte (in both versions).  The summary gives
 * executions, failures (wrong bytes, errors) and residual cases per
 * version; a version with 100 executions or more and not one
 * NIC-decrypted record fails the run (its WRONG check tested nothing).
 *
 * KeyUpdates (-U PCT, TLS 1.3): that share of records are KeyUpdates
 * (drawn from an rng of their own, so without -U every seed replays as
 * before), each followed by the next key, numbers from 0.  The core stops
 * after reading one, as the patched kernel does until the application
 * sets the next key; 0-KU_MAX_WAIT frames later (from the seed and the
 * record) the driver's replacement runs: tls_dev_del of the old flow,
 * tls_dev_add of the next key with the old flow's handover of the
 * records it followed without a key and a walk over the data TCP holds
 * (ku_install(), as tls_offload.c does).  A NIC that missed the update
 * and decrypted on with the old key fails here with EBADMSG.
 *
 *   adversary [-n EXECS] [-s FIRST_SEED] [-j JOBS] [-t SECONDS] [-b BOUND]
 *             [-k KIND,KIND | -x KIND,KIND] [-q] [--strict-residual]
 *             [-V 12|13] [-U PCT] [-K ahead,nokey,other]
 *   adversary --seed N [-v] [--actions 0,2] [-V 12|13] [-U PCT]
 *                                             replay one execution: trace
 *                                             of every frame, the NIC's
 *                                             verdict, TCP's and the core's
 *   adversary --selftest N [-V 12|13] [-U PCT]
 * Exit status 1 on any failure (residual cases do not fail the run unless
 * --strict-residual).
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <openssl/evp.h>
#include "tls_stream.h"

#define MSS		1448u
#define RCV_WND		(64u << 10)	/* TCP's receive window */
#define RMEM_MAX	(6u << 20)	/* driver's max_ahead: tcp_rmem[2] */
#define RCV_SND_NXT	0x11223344u	/* receiver's snd_nxt (= snd_una) */
/*
 * The sender's window scale: its largest window (TCP's max_window) is at
 * most 65535 << PEER_WSCALE; an ACK older than snd_una - max_window is
 * dropped (RFC 5961 5.2).  The NIC gets the scale and may only bound it
 * by twice that (it does not know snd_una): a too-old ACK within the
 * difference reaches the framing even with the ACK test on.
 */
#define PEER_WSCALE	7
#define PEER_MAX_WINDOW	(0xffffu << PEER_WSCALE)
#define TAIL_RECORDS	24		/* quiet records at the end */
#define TAIL_CHUNK	16		/* records per extension of the tail */
#ifndef RESUME_BOUND
#define RESUME_BOUND	96		/* -b: records */
#endif
#define REC_PREFIX	13u		/* header + explicit nonce (1.2); a
					 * forged prefix's bytes (either) */
#define TLS_TAG		16u
#define MAX_ACTIONS	6
#define MAX_SHOW_SEEDS	4
#define KU_MAX_WAIT	8		/* frames before the next key */

static inline u32 min_u32(u32 a, u32 b)
{
	return a < b ? a : b;
}

/* a after b in sequence space */
static inline bool seq_after(u32 a, u32 b)
{
	return (s32)(a - b) > 0;
}

/* ------------------------------------------------------------------ */
/* attacker actions                                                   */
/* ------------------------------------------------------------------ */

enum att_kind {
	K_NEXTHDR,	/* issue 20 A: 13 bytes at the stream's next record
			 * boundary, sent right when the sender reached it,
			 * rejected ACK */
	K_HDR13,	/* 13 bytes: forged header + nonce near a boundary */
	K_MSS,		/* full MSS, forged header near a boundary */
	K_EXACT,	/* same seq/len as a genuine segment, framing forged */
	K_DIFFCOPY,	/* an upcoming genuine segment, bytes flipped */
	K_HDRCHAIN,	/* 13-byte forgeries at the next few boundaries */
	K_DUPOLD,	/* delivered data again, different bytes, ACK ok */
	K_OLD,		/* far-behind data (before the install too) */
	K_FAR,		/* one segment beyond the window */
	K_FARRUN,	/* a contiguous run beyond max_ahead */
	K_JUNK,		/* random bytes near the stream, bad/no ACK */
	K_NKINDS
};

static const char *const kind_name[K_NKINDS] = {
	"nexthdr", "hdr13", "mss", "exact", "diffcopy", "hdrchain", "dupold",
	"old", "far", "farrun", "junk",
};

/* why TCP drops an attack frame (checked against the TCP model) */
enum drop_why { DROP_NONE, DROP_NO_ACK, DROP_BAD_ACK, DROP_OOW, DROP_OLD };

static const char *const drop_name[] = {
	"accept", "no-ack", "bad-ack", "out-of-window", "old",
};

/* one frame on the wire, in arrival order at the NIC */
struct ev {
	s32 off;		/* stream offset of the first payload byte */
	u32 len;
	bool genuine;
	bool first_tx;		/* genuine: its first transmission */
	u8 kind;		/* attack kind */
	u8 drop;		/* attack: the drop reason it was built for */
	int action;		/* attack: action index, -1 genuine */
	u32 pool;		/* attack: payload offset in the pool */
	u32 snd_max;		/* genuine bytes sent before this frame */
};

/* ------------------------------------------------------------------ */
/* one execution's inputs: stream, schedule, attacker payloads          */
/* ------------------------------------------------------------------ */

struct exec {
	u64 seed;
	struct rng r;
	struct stream s;
	u32 tail_off;		/* first byte of the quiet tail */
	u32 max_ahead;
	struct ev *ev;
	size_t nev, cap;
	u8 *skip;		/* per event: left out of a run (sized with
				 * ev; events appended later are kept) */
	u8 *pool;
	size_t npool, pool_cap;
	int nact;
	u8 act_kind[MAX_ACTIONS];
	u32 kinds_allowed;	/* bit per attack kind */
	/* natural fault rates of this execution (attack phase only) */
	double loss, reorder, dup;
	int seg_mode;		/* 0 MSS, 1 random, 2 mixed, 3 by record */
	bool small;		/* record sizes: mostly small */
	int base_recs;		/* records before the tail's extension */
	size_t base_nev;	/* events before it */
	int ext_chunks;		/* TAIL_CHUNK records each, appended */
	/*
	 * The NIC knows the receiver's snd_nxt (it carries the receiver's
	 * transmissions): TCP's ACK test keeps forged new data from the
	 * framing, and its window test (the receiver ACKs every segment TCP
	 * takes, advertising rcv_nxt + RCV_WND: the NIC's edge is TCP's)
	 * keeps frames beyond the window from moving the stream.  Off in a
	 * quarter of the executions (the receiver's transmissions leave
	 * through another port), which exercises the checks behind them.
	 * From the seed alone, so seeds replay as before.
	 */
	bool ack_check;
	/*
	 * TLS 1.3 records (else 1.2): in a quarter of the executions, from
	 * another hash of the seed (exec_tls13()), or forced by -V.  A 1.2
	 * execution draws what it drew before 1.3 was added.
	 */
	bool tls13;
	struct rng kr;		/* KeyUpdates (-U): where, and the keys */
};

struct gseg {
	double key;
	u32 off, len;
	bool first_tx;
};

/*
 * What the kTLS core and the attacker see of a record's version: the
 * bytes before the ciphertext (header + explicit nonce in 1.2, header
 * alone in 1.3) and the bounds of the header's length field
 * (tls_rx_msg_size(): tag + 8-byte nonce in 1.2, tag + the inner content
 * type in 1.3).
 */
struct tls_ver {
	u32 prefix;
	u32 len_min, len_max;
	const char *name;
};

static const struct tls_ver tls_ver12 = { 13, 24, 16384 + 24, "TLS 1.2" };
static const struct tls_ver tls_ver13 = { 5, 16, 16384 + 17, "TLS 1.3" };

static inline const struct tls_ver *sver(const struct stream *s)
{
	return s->tls13 ? &tls_ver13 : &tls_ver12;
}

/* the GCM nonce of record rn (rec: its bytes, for 1.2's explicit nonce) */
static void rec_nonce(const struct stream *s, int ep, u64 rn, const u8 *rec,
		      u8 iv[12])
{
	memcpy(iv, s->ep[ep].salt, 4);
	if (!s->tls13) {
		memcpy(iv + 4, rec + 5, 8);
		return;
	}
	/* TLS 1.3: the static IV XOR the record number */
	for (int k = 0; k < 8; k++)
		iv[4 + k] = s->ep[ep].iv[k] ^ (u8)(rn >> (56 - 8 * k));
}

/*
 * TLS 1.3 zero padding of a record with plen content bytes: none in 70 %,
 * 1..32 bytes in 29 %, up to the 2^14 + 1 limit in 1 % (more would cost
 * the run its speed, not add cases: the engine reads the padding as
 * plaintext like any other byte).
 */
static u32 pad13(struct rng *r, u32 plen)
{
	u32 q = rng_below(r, 100), room = 16384 - plen, pad;

	pad = q < 70 ? 0 : q < 99 ? 1 + rng_below(r, 32) :
	      rng_below(r, room + 1);
	return pad < room ? pad : room;
}

/*
 * The sender's stream: like stream_gen() (tls_stream.c), one key, no
 * sender-side corruption, but about three times faster: plaintext 8 bytes
 * per random draw, one GCM context for all records.  Record sizes: mostly
 * small (80 % under 400 bytes) or uniform up to 2^14.  TLS 1.2: explicit
 * nonces (half of them the record number), 3 % alerts/handshakes as outer
 * types.  TLS 1.3 (tls13): outer type 23, the inner content type (the
 * same 3 % alerts/handshakes, handshakes as NewSessionTickets) after the
 * content, zero padding drawn from the rng (pad13()), nonce = static IV
 * XOR record number, the header as AAD.  A 1.2 stream draws exactly what
 * it did before 1.3 existed: its seeds replay as before.
 */
static void sender_records(struct stream *s, struct rng *r, struct rng *kr,
			   int nadd, bool small);

/* -U PCT: TLS 1.3 records that are KeyUpdates, in percent (0: none) */
static unsigned int key_update_pct;

static void sender_stream(struct stream *s, struct rng *r, struct rng *kr,
			  int nrec, bool small, unsigned int klen, u64 rn0,
			  bool tls13)
{
	int k;

	memset(s, 0, sizeof(*s));
	s->isn = (u32)rng_next(r);
	s->rn0 = rn0;
	s->tls13 = tls13;
	s->nep = 1;
	s->ep[0].klen = klen;
	for (k = 0; k < 32; k += 8)
		hw_put_be64(s->ep[0].key + k, rng_next(r));
	hw_put_be32(s->ep[0].salt, (u32)rng_next(r));
	if (tls13)
		hw_put_be64(s->ep[0].iv, rng_next(r));
	sender_records(s, r, kr, nrec, small);
}

/*
 * A KeyUpdate as record i (TLS 1.3, kr given): drawn from kr alone, so
 * that without -U every stream is what it was.  Its successor gets the
 * next traffic key, record numbers from 0; random key material stands in
 * for HKDF's (the NIC and the core get it from the model, as the driver
 * gets it from the kernel).  At most MAX_EPOCHS keys in a stream.
 */
static bool draw_key_update(struct stream *s, struct rng *kr)
{
	struct epoch *e;
	int k;

	if (!kr || !s->tls13 || s->nep >= MAX_EPOCHS ||
	    rng_below(kr, 100) >= key_update_pct)
		return false;
	e = &s->ep[s->nep++];
	e->klen = s->ep[0].klen;
	for (k = 0; k < 32; k += 8)
		hw_put_be64(e->key + k, rng_next(kr));
	hw_put_be32(e->salt, (u32)rng_next(kr));
	hw_put_be64(e->iv, rng_next(kr));
	return true;
}

/*
 * nadd more records at the end of s, drawn from r: every size first, then
 * every record's type, plaintext and nonce (on an empty stream, the draws
 * sender_stream() always made; the clean tail's extension appends with
 * the same function after the attack phase is drawn).
 */
static void sender_records(struct stream *s, struct rng *r, struct rng *kr,
			   int nadd, bool small)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	const bool tls13 = s->tls13;
	const struct tls_ver *tv = tls13 ? &tls_ver13 : &tls_ver12;
	const unsigned int klen = s->ep[0].klen;
	const int i0 = s->nrec, nrec = s->nrec + nadd;
	u32 pfx = tv->prefix, *clen = malloc((size_t)nadd * sizeof(u32));
	size_t cap = s->n;
	u32 off = s->n;
	int i, cep = -1;

	s->rec = realloc(s->rec, (size_t)nrec * sizeof(*s->rec));
	memset(s->rec + i0, 0, (size_t)nadd * sizeof(*s->rec));
	for (i = i0; i < nrec; i++) {
		struct ref_rec *rr = &s->rec[i];
		u32 plen;

		/* each record's key and number: a KeyUpdate's next starts one */
		if (!i) {
			rr->rn = s->rn0;
		} else if (s->rec[i - 1].key_update) {
			rr->epoch = s->rec[i - 1].epoch + 1;
		} else {
			rr->epoch = s->rec[i - 1].epoch;
			rr->rn = s->rec[i - 1].rn + 1;
		}
		if (draw_key_update(s, kr)) {
			/* handshake KeyUpdate: 24, length 1, request_update */
			rr->key_update = true;
			plen = 5;
			clen[i - i0] = plen;
			rr->len = 5 + plen + 1 + rng_below(kr, 33) + TLS_TAG;
			cap += rr->len;
			continue;
		}
		plen = !small || rng_chance(r, 0.2) ? rng_below(r, 16385) :
		       rng_below(r, 400);
		clen[i - i0] = plen;
		/* 1.3: content | inner type | zero padding */
		rr->len = tls13 ? 5 + plen + 1 + pad13(r, plen) + TLS_TAG :
			  plen + 29;
		cap += rr->len;
	}
	s->wire = realloc(s->wire, cap + 8);
	s->plain = realloc(s->plain, cap + 8);
	s->valid = realloc(s->valid, cap + 8);
	if (!c || !s->rec || !s->wire || !s->plain || !s->valid || !clen ||
	    !EVP_EncryptInit_ex(c, klen == 16 ? EVP_aes_128_gcm() :
				EVP_aes_256_gcm(), NULL, NULL, NULL))
		abort();
	for (i = i0; i < nrec; i++) {
		struct ref_rec *rr = &s->rec[i];
		u32 plen = clen[i - i0], ilen = rr->len - pfx - TLS_TAG;
		u8 *w = s->wire + off, *pt = s->plain + off + pfx;
		u8 iv[12], aad[13], type;
		int l;

		if (rr->epoch != cep) {
			cep = rr->epoch;
			if (!EVP_EncryptInit_ex(c, NULL, NULL,
						s->ep[cep].key, NULL))
				abort();
		}
		rr->off = off;
		if (rr->key_update) {
			type = 0x16;
			pt[0] = 24;
			pt[1] = 0;
			pt[2] = 0;
			pt[3] = 1;
			pt[4] = (u8)rng_below(kr, 2);
		} else {
			type = rng_chance(r, 0.03) ?
			       (u8)(0x15 + rng_below(r, 2)) : 0x17;
		}
		rr->tag_ok = true;
		for (u32 j = 0; j < plen && !rr->key_update; j += 8)
			hw_put_be64(pt + j, rng_next(r));	/* spills into
								 * the tag: set
								 * below */
		w[1] = 3;
		w[2] = 3;
		hw_put_be16(w + 3, (u16)(rr->len - 5));
		if (tls13) {
			rr->type = 0x17;
			w[0] = 0x17;
			if (type == 0x16 && plen >= 4 && !rr->key_update) {
				/* a NewSessionTicket, as servers send */
				pt[0] = 4;
				pt[1] = (u8)((plen - 4) >> 16);
				pt[2] = (u8)((plen - 4) >> 8);
				pt[3] = (u8)(plen - 4);
			} else if (type == 0x16 && plen && pt[0] == 24 &&
				   !rr->key_update) {
				pt[0] = 4;	/* a KeyUpdate only as drawn */
			}
			pt[plen] = type;
			memset(pt + plen + 1, 0, ilen - plen - 1);
			rec_nonce(s, rr->epoch, rr->rn, w, iv);
			memcpy(aad, w, 5);
		} else {
			rr->type = type;
			w[0] = type;
			hw_put_be64(w + 5, rng_chance(r, 0.5) ? rr->rn :
				    rng_next(r));
			rec_nonce(s, rr->epoch, rr->rn, w, iv);
			hw_put_be64(aad, rr->rn);
			memcpy(aad + 8, w, 3);
			hw_put_be16(aad + 11, (u16)plen);
		}
		if (!EVP_EncryptInit_ex(c, NULL, NULL, NULL, iv) ||
		    !EVP_EncryptUpdate(c, NULL, &l, aad, tls13 ? 5 : 13) ||
		    (ilen && !EVP_EncryptUpdate(c, w + pfx, &l, pt,
						(int)ilen)) ||
		    !EVP_EncryptFinal_ex(c, w + pfx + ilen, &l) ||
		    !EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16,
					 w + pfx + ilen))
			abort();
		/* plain: the wire with each payload decrypted */
		memcpy(s->plain + off, w, pfx);
		memcpy(pt + ilen, w + pfx + ilen, TLS_TAG);
		off += rr->len;
	}
	memset(s->valid + s->n, 1, off - s->n);
	s->n = off;
	s->nrec = nrec;
	free(clen);
	EVP_CIPHER_CTX_free(c);
}

static int gseg_cmp(const void *a, const void *b)
{
	const struct gseg *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static u32 seg_len(int mode, struct rng *r)
{
	switch (mode) {
	case 0:
		return MSS;
	case 1:
		return 1 + rng_below(r, MSS);
	default:
		return rng_chance(r, 0.05) ? 1 + rng_below(r, 16) :
		       rng_chance(r, 0.6) ? MSS : 1 + rng_below(r, MSS);
	}
}

static struct ev *ev_push(struct exec *x)
{
	if (x->nev == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 256;
		x->ev = realloc(x->ev, x->cap * sizeof(*x->ev));
		x->skip = realloc(x->skip, x->cap);
		if (!x->ev || !x->skip)
			abort();
	}
	x->skip[x->nev] = 0;
	memset(&x->ev[x->nev], 0, sizeof(x->ev[0]));
	x->ev[x->nev].action = -1;
	return &x->ev[x->nev++];
}

static u8 *pool_take(struct exec *x, u32 len, u32 *at)
{
	if (x->npool + len > x->pool_cap) {
		x->pool_cap = (x->npool + len) * 2;
		x->pool = realloc(x->pool, x->pool_cap);
	}
	*at = (u32)x->npool;
	x->npool += len;
	return x->pool + *at;
}

/*
 * The sender: the stream cut into segments, each with a send time; in the
 * attack phase some are lost (retransmitted 1..8 frames later, sometimes
 * extended over the next bytes), delayed 1..3 frames, or duplicated.
 */
static struct gseg *sender_schedule(struct exec *x, size_t *n_out)
{
	struct stream *s = &x->s;
	size_t cap = 64 + (size_t)s->n / 8 * 3, n = 0;
	struct gseg *g = malloc(cap * sizeof(*g));
	struct rng *r = &x->r;
	double t = 0;
	u32 off;
	int ri = 0;

	for (off = 0; off < s->n; t += 1) {
		u32 l = seg_len(x->seg_mode, r);

		if (x->seg_mode == 3) {
			/* each record in its own segments (small writes) */
			while (s->rec[ri].off + s->rec[ri].len <= off)
				ri++;
			l = min_u32(MSS, s->rec[ri].off + s->rec[ri].len - off);
		}
		bool faults = off < x->tail_off;
		struct gseg sg = { t, off, 0, true };

		if (l > s->n - off)
			l = s->n - off;
		sg.len = l;
		if (n + 4 > cap) {
			cap *= 2;
			g = realloc(g, cap * sizeof(*g));
		}
		if (faults && rng_chance(r, x->loss)) {
			struct gseg rt = sg;

			rt.first_tx = false;
			rt.key = t + 1 + rng_below(r, 8) + 0.5;
			if (rng_chance(r, 0.3)) {
				rt.len += rng_below(r, MSS);
				if (rt.off + rt.len > s->n)
					rt.len = s->n - rt.off;
			}
			g[n++] = rt;	/* the first copy never arrives */
		} else if (faults && rng_chance(r, x->reorder)) {
			sg.key = t + 1 + rng_below(r, 3) + 0.25;
			g[n++] = sg;
		} else {
			g[n++] = sg;
		}
		if (faults && rng_chance(r, x->dup)) {
			struct gseg d = sg;

			d.first_tx = false;
			d.key = t + 1 + rng_below(r, 8) + 0.75;
			g[n++] = d;
		}
		off += l;
	}
	qsort(g, n, sizeof(*g), gseg_cmp);
	*n_out = n;
	return g;
}

/* what the attacker knows at an insertion point (before genuine frame i) */
struct att_view {
	u32 snd_max;		/* bytes the sender has sent */
	u32 rcv_nxt;		/* TCP's next expected byte */
	const u8 *have;		/* bytes TCP holds, in order or not */
	size_t gi;		/* index of the next genuine frame */
};

/* index of the first record starting at or after off, or nrec */
static int rec_from(const struct stream *s, u32 off)
{
	int lo = 0, hi = s->nrec;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (s->rec[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The boundary to attack: the next one the sender has not sent (the
 * NIC has not seen it either), one inside a hole TCP is waiting on, or
 * one nearby.  Returns -1 if the stream has none left there.
 */
static int pick_boundary(struct exec *x, const struct att_view *v)
{
	struct stream *s = &x->s;
	struct rng *r = &x->r;
	int ri = rec_from(s, v->snd_max);
	u32 p = rng_below(r, 100);

	if (p < 20) {
		/* a boundary in a hole: sent but not received (lost/late) */
		int a = rec_from(s, v->rcv_nxt), k;

		for (k = a; k < ri; k++)
			if (!v->have[s->rec[k].off])
				return k;
	} else if (p < 35) {
		int a = rec_from(s, v->rcv_nxt);
		int k = a + (int)rng_below(r, (u32)(ri - a + 4));

		return k < s->nrec ? k : -1;
	}
	return ri < s->nrec ? ri : -1;
}

/*
 * forged 5-byte header + 8-byte nonce at stream offset b (record ri); in
 * TLS 1.3 the same 13 bytes are a header and the first 8 ciphertext bytes
 * (a forged 1.3 header looks the same on the wire: 17 03 03 + length).
 * Lengths within the version's bounds, except where random.
 */
static void forge_prefix(struct exec *x, u8 *p, u32 b, int ri)
{
	struct stream *s = &x->s;
	const struct tls_ver *tv = sver(s);
	struct rng *r = &x->r;
	u32 q = rng_below(r, 100), l = tv->len_max;
	int k;

	p[0] = rng_chance(r, 0.8) ? 0x17 : (u8)(0x14 + rng_below(r, 5));
	p[1] = 3;
	p[2] = 3;
	if (q >= 50 && q < 70) {
		l = tv->len_min + rng_below(r, 16385);
	} else if (q >= 70 && q < 85 && ri >= 0) {
		/* lands exactly on a later genuine boundary */
		int nk = ri + 1 + (int)rng_below(r, 3);

		if (nk < s->nrec && s->rec[nk].off - b - 5 >= tv->len_min &&
		    s->rec[nk].off - b - 5 <= tv->len_max)
			l = s->rec[nk].off - b - 5;
	} else if (q >= 85 && q < 92) {
		l = tv->len_min + rng_below(r, 400);
	}
	hw_put_be16(p + 3, (u16)l);
	if (ri >= 0 && b + REC_PREFIX <= s->n && rng_chance(r, 0.3))
		memcpy(p + 5, s->wire + b + 5, 8);	/* genuine nonce */
	else
		for (k = 0; k < 8; k++)
			p[5 + k] = (u8)rng_next(r);
	if (ri >= 0 && b + 5 <= s->n && !memcmp(p, s->wire + b, 5))
		p[4] ^= 1;	/* must differ from the genuine header */
}

/*
 * A forged-prefix frame (nexthdr, hdr13, hdrchain): 13 bytes; in TLS 1.3
 * half of them the 5-byte header alone.  (1.2 draws nothing here.)
 */
static u32 hdr_frame_len(struct exec *x)
{
	if (!x->s.tls13)
		return REC_PREFIX;
	return rng_chance(&x->r, 0.5) ? 5 : REC_PREFIX;
}

/* forge_prefix() into a frame of len bytes (len may be below 13) */
static void forge_frame(struct exec *x, u8 *p, u32 len, u32 b, int ri)
{
	u8 h[REC_PREFIX];

	forge_prefix(x, h, b, ri);
	memcpy(p, h, min_u32(len, REC_PREFIX));
}

/* bytes the genuine stream has at [off, off+len) where defined, else random */
static void genuine_or_random(struct exec *x, u8 *p, s32 off, u32 len)
{
	for (u32 j = 0; j < len; j++) {
		s64 o = (s64)off + j;

		p[j] = o >= 0 && o < x->s.n ? x->s.wire[o] :
		       (u8)rng_next(&x->r);
	}
}

static void random_bytes(struct rng *r, u8 *p, u32 len)
{
	for (u32 j = 0; j < len; j++)
		p[j] = (u8)rng_next(r);
}

/* rejected ACK or no ACK flag: dropped wherever the segment lies */
static u8 ahead_drop(struct rng *r)
{
	return rng_chance(r, 0.6) ? DROP_BAD_ACK : DROP_NO_ACK;
}

static struct ev *att_frame(struct exec *x, int action, u8 kind, s32 off,
			    u32 len, u8 drop, u8 **payload)
{
	struct ev *e = ev_push(x);

	e->off = off;
	e->len = len;
	e->kind = kind;
	e->drop = drop;
	e->action = action;
	*payload = pool_take(x, len, &e->pool);
	return e;
}

/* the genuine frame that will carry byte b next (first arrival after gi) */
static const struct gseg *upcoming_seg(const struct gseg *g, size_t ng,
				       size_t gi, u32 b)
{
	for (size_t j = gi; j < ng; j++)
		if (g[j].off <= b && b < g[j].off + g[j].len)
			return &g[j];
	return NULL;
}

/* one attack action's frames, appended to the schedule */
static void attack(struct exec *x, int action, u8 kind,
		   const struct att_view *v, const struct gseg *g, size_t ng)
{
	struct stream *s = &x->s;
	struct rng *r = &x->r;
	u8 *p;
	int ri, k;

	switch (kind) {
	case K_NEXTHDR: {
		u32 len;

		ri = rec_from(s, v->snd_max);
		if (ri >= s->nrec)
			return;
		len = hdr_frame_len(x);
		att_frame(x, action, kind, (s32)s->rec[ri].off, len,
			  DROP_BAD_ACK, &p);
		forge_frame(x, p, len, s->rec[ri].off, ri);
		return;
	}
	case K_HDR13:
	case K_MSS: {
		s32 delta = 0;
		u32 len = kind == K_HDR13 ? hdr_frame_len(x) : MSS;

		ri = pick_boundary(x, v);
		if (ri < 0)
			return;
		if (rng_chance(r, 0.4))
			delta = rng_chance(r, 0.7) ?
				(s32)rng_below(r, 25) - 12 :
				(s32)rng_below(r, 401) - 200;
		att_frame(x, action, kind, (s32)s->rec[ri].off + delta, len,
			  ahead_drop(r), &p);
		if (kind == K_MSS && rng_chance(r, 0.5))
			genuine_or_random(x, p, (s32)s->rec[ri].off + delta,
					  len);
		else
			random_bytes(r, p, len);
		/* the forged prefix where the attacker puts the boundary */
		forge_frame(x, p, len, s->rec[ri].off + delta,
			    delta ? -1 : ri);
		return;
	}
	case K_EXACT:
	case K_DIFFCOPY: {
		/* a genuine segment still to come, copied with forged bytes */
		const struct gseg *sg;
		u32 inner;

		ri = pick_boundary(x, v);
		if (ri < 0)
			return;
		sg = upcoming_seg(g, ng, v->gi, s->rec[ri].off);
		if (!sg)
			return;
		att_frame(x, action, kind, (s32)sg->off, sg->len,
			  ahead_drop(r), &p);
		memcpy(p, s->wire + sg->off, sg->len);
		inner = s->rec[ri].off - sg->off;
		if (kind == K_EXACT) {
			u8 h[REC_PREFIX];
			u32 m = min_u32(REC_PREFIX, sg->len - inner);

			forge_prefix(x, h, s->rec[ri].off, ri);
			memcpy(p + inner, h, m);
			if (!memcmp(p + inner, s->wire + s->rec[ri].off, m))
				p[inner + m - 1] ^= 0x80;
		} else {
			for (k = 1 + (int)rng_below(r, 3); k > 0; k--)
				p[rng_below(r, sg->len)] ^=
					(u8)(1 + rng_below(r, 255));
		}
		return;
	}
	case K_HDRCHAIN: {
		u8 drop = ahead_drop(r);

		ri = rec_from(s, v->snd_max);
		for (k = 0; k < 2 + (int)rng_below(r, 3) && ri + k < s->nrec;
		     k++) {
			u32 len = hdr_frame_len(x);

			att_frame(x, action, kind, (s32)s->rec[ri + k].off,
				  len, drop, &p);
			forge_frame(x, p, len, s->rec[ri + k].off, ri + k);
		}
		return;
	}
	case K_DUPOLD: {
		/* data TCP already delivered: dropped as old, ACK fine */
		u32 len = 1 + rng_below(r, MSS), lo, off;
		int a;

		if (v->rcv_nxt < 2)
			return;
		if (len > v->rcv_nxt)
			len = v->rcv_nxt;
		lo = v->rcv_nxt > 32768 ? v->rcv_nxt - 32768 : 0;
		off = lo + rng_below(r, v->rcv_nxt - lo - len + 1);
		att_frame(x, action, kind, (s32)off, len, DROP_OLD, &p);
		memcpy(p, s->wire + off, len);
		a = rec_from(s, off);
		if (a < s->nrec && s->rec[a].off + REC_PREFIX <= off + len) {
			u32 in = s->rec[a].off - off;

			forge_prefix(x, p + in, s->rec[a].off, a);
		} else {
			p[rng_below(r, len)] ^= 0x5a;
		}
		return;
	}
	case K_OLD: {
		u32 len = 1 + rng_below(r, MSS);
		s32 off = (s32)v->rcv_nxt - (s32)len -
			  (s32)rng_below(r, 4u << 20);
		u8 drop = rng_chance(r, 0.7) ? DROP_OLD : ahead_drop(r);

		att_frame(x, action, kind, off, len, drop, &p);
		random_bytes(r, p, len);
		if (len >= REC_PREFIX)
			forge_prefix(x, p, 0, -1);
		return;
	}
	case K_FAR:
	case K_FARRUN: {
		u32 nfr = kind == K_FAR ? 1 : 8 + rng_below(r, 5);
		u32 base = v->rcv_nxt + RCV_WND + rng_below(r, 1u << 20);

		if (kind == K_FARRUN)
			base = v->rcv_nxt + x->max_ahead + RCV_WND +
			       rng_below(r, 1u << 20);
		for (u32 j = 0; j < nfr; j++) {
			att_frame(x, action, kind, (s32)(base + j * MSS), MSS,
				  DROP_OOW, &p);
			random_bytes(r, p, MSS);
			if (j == 0 || rng_chance(r, 0.3))
				forge_prefix(x, p, 0, -1);
		}
		return;
	}
	case K_JUNK: {
		u32 len = 1 + rng_below(r, MSS);
		s32 off = (s32)v->rcv_nxt - 8192 +
			  (s32)rng_below(r, RCV_WND + 8192);

		att_frame(x, action, kind, off, len, ahead_drop(r), &p);
		random_bytes(r, p, len);
		for (u32 j = 0; j + 5 <= len; j += 1 + rng_below(r, 600))
			if (rng_chance(r, 0.5)) {
				p[j] = (u8)(0x14 + rng_below(r, 5));
				p[j + 1] = 3;
				p[j + 2] = 3;
				hw_put_be16(p + j + 3,
					    (u16)(24 + rng_below(r, 16385)));
			}
		return;
	}
	}
}

static u8 pick_kind(struct exec *x)
{
	u8 k;

	do
		k = (u8)rng_below(&x->r, K_NKINDS);
	while (!(x->kinds_allowed >> k & 1));
	return k;
}

/*
 * K_NEXTHDR goes in where the sender has just finished a record: the first
 * insertion point from gi on (before genuine frame lim at most) where the
 * bytes sent so far end at a record boundary, so the forged header lands
 * exactly where the NIC expects the next one.
 */
static size_t at_boundary(struct exec *x, const struct gseg *g, size_t lim,
			  size_t gi)
{
	const struct stream *s = &x->s;
	u32 snd = 0;

	for (size_t j = 0; j < lim; j++) {
		int ri = rec_from(s, snd);

		if (j >= gi && ri < s->nrec && s->rec[ri].off == snd)
			return j;
		if (g[j].off + g[j].len > snd)
			snd = g[j].off + g[j].len;
	}
	return gi;
}

static int force_version;	/* -V 12|13; 0: from the seed */

/* TLS 1.3 for a quarter of the seeds: splitmix64 of the seed, top 2 bits */
static bool exec_tls13(u64 seed)
{
	u64 z = seed + 0x632BE59BD9B4E019ULL;

	if (force_version)
		return force_version == 13;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return z >> 62 == 0;
}

/*
 * The clean tail's extension, appended while a run needs it to decide the
 * resume check (run_exec()): TAIL_CHUNK more records drawn after
 * everything the execution drew so far, so a seed's attack phase and its
 * first TAIL_RECORDS quiet records are what they were before the tail
 * could grow, and its n-th chunk is the same whichever run asks for it.
 * Sent in order after every earlier frame, cut like the rest of the
 * stream, no faults.
 */
static void tail_extend(struct exec *x)
{
	struct stream *s = &x->s;
	u32 off = s->n, snd_max = s->n;
	int ri = s->nrec;

	sender_records(s, &x->r, key_update_pct ? &x->kr : NULL, TAIL_CHUNK,
		       x->small);
	x->ext_chunks++;
	while (off < s->n) {
		u32 l = seg_len(x->seg_mode, &x->r);
		struct ev *e;

		if (x->seg_mode == 3) {
			while (s->rec[ri].off + s->rec[ri].len <= off)
				ri++;
			l = min_u32(MSS, s->rec[ri].off + s->rec[ri].len - off);
		}
		if (l > s->n - off)
			l = s->n - off;
		e = ev_push(x);
		e->off = (s32)off;
		e->len = l;
		e->genuine = true;
		e->first_tx = true;
		e->snd_max = snd_max;
		off += l;
		snd_max = off;
	}
}

/* the execution for a seed: stream, sender, attacker, merged schedule */
static void exec_build(struct exec *x, u64 seed, u32 kinds_allowed)
{
	struct gseg *g;
	size_t ng, gi;
	int att_recs, ai = 0;
	size_t at[MAX_ACTIONS];
	u8 *have;
	u32 rcv_nxt = 0, snd_max = 0;

	x->seed = seed;
	x->r.s = seed * 0x9E3779B97F4A7C15ULL + 0x5DEECE66DULL;
	x->ack_check = (seed * 0xD1B54A32D192ED03ULL) >> 62 != 0;
	x->tls13 = exec_tls13(seed);
	x->nev = 0;
	x->npool = 0;
	x->ext_chunks = 0;
	x->kinds_allowed = kinds_allowed;
	att_recs = 3 + (int)rng_below(&x->r, 14);
	{
		unsigned int klen;
		u64 rn0;

		x->small = rng_chance(&x->r, 0.85);
		klen = rng_chance(&x->r, 0.5) ? 16 : 32;
		rn0 = rng_chance(&x->r, 0.5) ? 0 : rng_next(&x->r) >> 20;
		/* KeyUpdates from their own rng: other draws as without */
		x->kr.s = seed * 0xBF58476D1CE4E5B9ULL + 0x2545F4914F6CDD1DULL;
		sender_stream(&x->s, &x->r, key_update_pct ? &x->kr : NULL,
			      att_recs + TAIL_RECORDS, x->small,
			      klen, rn0, x->tls13);
	}
	x->base_recs = x->s.nrec;
	x->tail_off = x->s.rec[att_recs].off;
	x->max_ahead = rng_chance(&x->r, 0.25) ? RCV_WND : RMEM_MAX;
	x->seg_mode = (int)rng_below(&x->r, 4);
	x->loss = rng_chance(&x->r, 0.5) ? 0.0 : 0.02 + 0.15 *
		  (double)rng_below(&x->r, 100) / 100;
	x->reorder = rng_chance(&x->r, 0.5) ? 0.0 : 0.08;
	x->dup = rng_chance(&x->r, 0.7) ? 0.0 : 0.05;
	g = sender_schedule(x, &ng);

	/* attack actions: 0 in 5 % (the natural-fault control), else 1..4 */
	x->nact = rng_chance(&x->r, 0.05) || !kinds_allowed ? 0 :
		  1 + (int)rng_below(&x->r, 4);
	for (int a = 0; a < x->nact; a++) {
		size_t lim = 0;

		x->act_kind[a] = pick_kind(x);
		/* before a genuine frame of the attack phase */
		while (lim < ng && g[lim].off < x->tail_off)
			lim++;
		at[a] = rng_below(&x->r, (u32)lim + 1);
		if (x->act_kind[a] == K_NEXTHDR)
			at[a] = at_boundary(x, g, lim, at[a]);
	}
	/* insertion points in order (a small insertion sort) */
	for (int a = 1; a < x->nact; a++)
		for (int b = a; b > 0 && at[b - 1] > at[b]; b--) {
			size_t t = at[b];
			u8 k = x->act_kind[b];

			at[b] = at[b - 1];
			at[b - 1] = t;
			x->act_kind[b] = x->act_kind[b - 1];
			x->act_kind[b - 1] = k;
		}

	have = calloc(1, x->s.n + 1);
	for (gi = 0; gi <= ng; gi++) {
		while (ai < x->nact && at[ai] == gi) {
			struct att_view v = { snd_max, rcv_nxt, have, gi };
			size_t from = x->nev;

			attack(x, ai, x->act_kind[ai], &v, g, ng);
			for (size_t e = from; e < x->nev; e++)
				x->ev[e].snd_max = snd_max;
			ai++;
		}
		if (gi == ng)
			break;
		{
			struct ev *e = ev_push(x);

			e->off = (s32)g[gi].off;
			e->len = g[gi].len;
			e->genuine = true;
			e->first_tx = g[gi].first_tx;
			e->snd_max = snd_max;
			memset(have + g[gi].off, 1, g[gi].len);
			while (rcv_nxt < x->s.n && have[rcv_nxt])
				rcv_nxt++;
			if (g[gi].off + g[gi].len > snd_max)
				snd_max = g[gi].off + g[gi].len;
		}
	}
	free(have);
	free(g);
	x->base_nev = x->nev;
}

static void exec_free(struct exec *x)
{
	stream_free(&x->s);
}

/* ------------------------------------------------------------------ */
/* software crypto of the kTLS core (OpenSSL, independent of the engine) */
/* ------------------------------------------------------------------ */

struct swcrypto {
	EVP_CIPHER_CTX *gcm, *ctr;
};

static void sw_init(struct swcrypto *c, const struct epoch *ep)
{
	c->gcm = EVP_CIPHER_CTX_new();
	c->ctr = EVP_CIPHER_CTX_new();
	if (!EVP_DecryptInit_ex(c->gcm, ep->klen == 16 ? EVP_aes_128_gcm() :
				EVP_aes_256_gcm(), NULL, ep->key, NULL) ||
	    !EVP_EncryptInit_ex(c->ctr, ep->klen == 16 ? EVP_aes_128_ctr() :
				EVP_aes_256_ctr(), NULL, ep->key, NULL)) {
		fprintf(stderr, "EVP init failed\n");
		abort();
	}
}

static void sw_fini(struct swcrypto *c)
{
	EVP_CIPHER_CTX_free(c->gcm);
	EVP_CIPHER_CTX_free(c->ctr);
}

/*
 * tls_device_reencrypt(): the marked payload bytes of a mixed record back
 * to ciphertext, with the keystream of the nonce as delivered (1.2) or of
 * the record number (1.3).
 */
static void sw_reencrypt(struct swcrypto *c, const struct stream *s, int ep,
			 u64 rn, u8 *rec, u32 len, const u8 *mark)
{
	u32 pfx = sver(s)->prefix, plen = len - pfx - TLS_TAG;
	u8 iv[16], *ks;
	int l;

	rec_nonce(s, ep, rn, rec, iv);
	hw_put_be32(iv + 12, 2);	/* GCM: payload counter starts at 2 */
	ks = calloc(1, plen + 16);
	if (!EVP_EncryptInit_ex(c->ctr, NULL, NULL, NULL, iv) ||
	    !EVP_EncryptUpdate(c->ctr, ks, &l, ks, (int)plen))
		abort();
	for (u32 j = 0; j < plen; j++)
		if (mark[pfx + j])
			rec[pfx + j] ^= ks[j];
	free(ks);
}

/*
 * decrypt + verify a whole record as delivered; pt gets the plaintext
 * (1.3: the inner plaintext, content type and padding included).  AAD:
 * 1.2 the record number, type, version and plaintext length; 1.3 the
 * 5-byte header as delivered.
 */
static bool sw_decrypt(struct swcrypto *c, const struct stream *s, int ep,
		       u64 rn, const u8 *rec, u32 len, u8 *pt)
{
	u32 pfx = sver(s)->prefix, plen = len - pfx - TLS_TAG;
	u8 iv[12], aad[13], tag[16];
	int l;

	rec_nonce(s, ep, rn, rec, iv);
	memcpy(tag, rec + len - TLS_TAG, 16);
	if (s->tls13) {
		memcpy(aad, rec, 5);
	} else {
		hw_put_be64(aad, rn);
		memcpy(aad + 8, rec, 3);
		hw_put_be16(aad + 11, (u16)plen);
	}
	if (!EVP_DecryptInit_ex(c->gcm, NULL, NULL, NULL, iv) ||
	    !EVP_DecryptUpdate(c->gcm, NULL, &l, aad, s->tls13 ? 5 : 13) ||
	    (plen && !EVP_DecryptUpdate(c->gcm, pt, &l, rec + pfx,
					(int)plen)) ||
	    !EVP_CIPHER_CTX_ctrl(c->gcm, EVP_CTRL_GCM_SET_TAG, 16, tag))
		abort();
	return EVP_DecryptFinal_ex(c->gcm, pt + plen, &l) > 0;
}

/* ------------------------------------------------------------------ */
/* one run of an execution: engine -> TCP -> kTLS core                */
/* ------------------------------------------------------------------ */

enum fail_class { F_NONE, F_WRONG, F_ERROR, F_RESUME, F_HARNESS, F_NCLASS };

static const char *const class_name[F_NCLASS] = {
	"pass", "WRONG-BYTES", "ERROR", "NO-RESUME", "HARNESS",
};

enum core_err {
	E_NONE, E_EMSGSIZE, E_EBADMSG_LEN, E_EINVAL, E_EBADMSG_TAG, E_STALL,
	E_EBADMSG_TYPE, E_NKINDS
};

static const char *const err_name[E_NKINDS] = {
	"none", "EMSGSIZE (header length)", "EBADMSG (header length)",
	"EINVAL (header version)", "EBADMSG (tag)",
	"stall (a header's record runs past the stream's end)",
	"EBADMSG (TLS 1.3: no inner content type, all zero)",
};

struct run {
	const struct exec *x;
	bool verbose;
	struct hw_engine *eng;
	void *mem;
	u32 handle;
	u8 *frame, *out;
	struct swcrypto sw;
	/* TCP */
	u8 *sock, *mark, *have;
	u32 rcv_nxt;
	/* kTLS core */
	u32 pos;		/* current record's header offset */
	u64 rn;
	u32 rec_len;		/* 0: header not parsed yet */
	bool req_valid;
	u32 req_seq;
	u64 confirms;
	int rec_i;		/* records completed */
	u8 *rec_dev;		/* per record: 1 software, 2 NIC */
	u8 *recbuf, *pt;
	/* outcome */
	enum fail_class fail;
	enum core_err err;
	u32 fail_off;
	char why[200];
	int resume;		/* records until NIC-decrypted, -1 never,
				 * -2 connection dead, -3 stream ended first */
	int nic_recs, mixed_recs, sw_recs;
	/*
	 * The engine when the resume bound ran out: its flow as the core
	 * completed the record at bound_ri (the bound's last record after
	 * the last disturbance), and the sender's bytes sent by then.
	 */
	int bound_ri;
	u8 stuck;		/* NO-RESUME: enum stuck */
	bool rearm_ahead;	/* a rearm went ahead of the sender */
	bool at_bound_valid;
	struct hw_flow_info at_bound;
	u32 at_bound_snd;
	u32 snd_max;
	struct hw_stats st;
	/*
	 * TLS 1.3 KeyUpdate (-U): the core's key (epoch), and after it read
	 * a KeyUpdate, the frames that still pass before the application
	 * installs the next key (-1: none pending); the kernel decrypts
	 * nothing meanwhile.
	 */
	int ep;
	int ku_wait;
	int rekeys;
	bool mutate;		/* self-test: corrupt one marked byte */
	bool mutated;
};

static void vlog(struct run *ru, const char *fmt, ...)
{
	va_list ap;

	if (!ru->verbose)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

static void run_fail(struct run *ru, enum fail_class fc, u32 off,
		     const char *fmt, ...)
{
	va_list ap;

	if (ru->fail != F_NONE && ru->fail != F_RESUME)
		return;
	ru->fail = fc;
	ru->fail_off = off;
	va_start(ap, fmt);
	vsnprintf(ru->why, sizeof(ru->why), fmt, ap);
	va_end(ap);
	vlog(ru, "  !! %s at stream offset %u: %s\n", class_name[fc], off,
	     ru->why);
}

/* the core is dead after an error or a wrong byte: the connection ends */
static bool core_dead(const struct run *ru)
{
	return ru->fail == F_WRONG || ru->fail == F_ERROR ||
	       ru->fail == F_HARNESS;
}

/*
 * TLS 1.3, tls_padding_length(): the content type is the last non-zero
 * byte of the inner plaintext; none is EBADMSG.  Applies to trusted
 * (all-marked) records as to verified ones.  False: the error is raised.
 */
static bool core_inner_type(struct run *ru, const u8 *pt, u32 plen)
{
	u32 i = plen;

	if (!ru->x->s.tls13)
		return true;
	while (i && !pt[i - 1])
		i--;
	if (i)
		return true;
	ru->err = E_EBADMSG_TYPE;
	run_fail(ru, F_ERROR, ru->pos, "record rn %llu len %u: %s",
		 (unsigned long long)ru->rn, ru->rec_len,
		 err_name[E_EBADMSG_TYPE]);
	return false;
}

/* a completed record [pos, pos + len): trusted, re-encrypted or software */
static void core_record(struct run *ru)
{
	const struct stream *s = &ru->x->s;
	u32 pos = ru->pos, len = ru->rec_len, nm = 0;
	int ri = stream_rec_at(s, pos);
	bool genuine_bounds = ri >= 0 && s->rec[ri].off == pos &&
			      s->rec[ri].len == len;
	u32 pfx = sver(s)->prefix, plen = len - pfx - TLS_TAG;

	/* spans of unmarked bytes: the socket holds the sender's bytes there */
	for (u32 o = pos, end = pos + len; o < end; ) {
		const u8 *p = memchr(ru->mark + o, 0, end - o);
		u32 to;

		if (!p) {
			nm += end - o;
			break;
		}
		nm += (u32)(p - ru->mark) - o;
		o = (u32)(p - ru->mark);
		p = memchr(ru->mark + o, 1, end - o);
		to = p ? (u32)(p - ru->mark) : end;
		if (memcmp(ru->sock + o, s->wire + o, to - o)) {
			run_fail(ru, F_HARNESS, o,
				 "unmarked socket bytes differ from the wire: "
				 "a forged byte reached TCP");
			return;
		}
		o = to;
	}
	if (nm == len) {
		/* tls_device_decrypted(): trusted, no tag check */
		ru->nic_recs++;
		if (!core_inner_type(ru, ru->sock + pos + pfx, plen))
			return;
		/* 1.3: the type the application sees is in the plaintext */
		if (!genuine_bounds || ru->sock[pos] != s->wire[pos] ||
		    memcmp(ru->sock + pos + pfx, s->plain + pos + pfx, plen)) {
			run_fail(ru, F_WRONG, pos,
				 "all-marked record rn %llu len %u trusted "
				 "with wrong %s",
				 (unsigned long long)ru->rn, len,
				 !genuine_bounds ? "bounds" :
				 ru->sock[pos] != s->wire[pos] ? "type" :
				 "plaintext");
			return;
		}
		ru->rec_dev[ri] = 2;
	} else {
		memcpy(ru->recbuf, ru->sock + pos, len);
		if (nm) {
			ru->mixed_recs++;
			sw_reencrypt(&ru->sw, s, ru->ep, ru->rn, ru->recbuf,
				     len, ru->mark + pos);
		} else {
			ru->sw_recs++;
		}
		if (!sw_decrypt(&ru->sw, s, ru->ep, ru->rn, ru->recbuf, len,
				ru->pt)) {
			ru->err = E_EBADMSG_TAG;
			run_fail(ru, F_ERROR, pos,
				 "%s record rn %llu len %u: EBADMSG (tag)",
				 nm ? "mixed" : "unmarked",
				 (unsigned long long)ru->rn, len);
			return;
		}
		if (!core_inner_type(ru, ru->pt, plen))
			return;
		if (!genuine_bounds ||
		    memcmp(ru->pt, s->plain + pos + pfx, plen)) {
			run_fail(ru, F_WRONG, pos, "verified record differs");
			return;
		}
		ru->rec_dev[ri] = 1;
	}
	vlog(ru, "  core: record rn %llu at %u len %u %s\n",
	     (unsigned long long)ru->rn, pos, len,
	     nm == len ? "NIC-decrypted" : nm ? "mixed->sw ok" : "sw ok");
	if (ri == ru->bound_ri &&
	    !hw_engine_flow_info(ru->eng, ru->handle, &ru->at_bound)) {
		ru->at_bound_valid = true;
		ru->at_bound_snd = ru->snd_max;
	}
	ru->rec_i++;
	ru->rn++;
	ru->pos += len;
	ru->rec_len = 0;
	if (genuine_bounds && s->rec[ri].key_update) {
		/* the application reads it, derives the key, installs it */
		ru->ku_wait = (int)(rng_next(&(struct rng){
			ru->x->seed * 0x9E3779B97F4A7C15ULL + (u64)ri + 1 }) %
			(KU_MAX_WAIT + 1));
		ru->req_valid = false;
		vlog(ru, "  core: KeyUpdate read; next key installed after %d "
		     "more frames\n", ru->ku_wait);
	}
}

/* the strparser over the bytes TCP delivered in order */
static void core_advance(struct run *ru)
{
	const struct stream *s = &ru->x->s;
	const struct tls_ver *tv = sver(s);

	while (!core_dead(ru) && ru->pos < s->n && ru->ku_wait < 0) {
		if (!ru->rec_len) {
			const u8 *h = ru->sock + ru->pos;
			u32 dl;

			/* prot->prepend_size: 13 (1.2) or 5 (1.3) */
			if (ru->rcv_nxt < ru->pos + tv->prefix)
				return;
			dl = hw_get_be16(h + 3);
			ru->err = dl > tv->len_max ? E_EMSGSIZE :
				  dl < tv->len_min ? E_EBADMSG_LEN :
				  h[1] != 3 || h[2] != 3 ? E_EINVAL : E_NONE;
			if (ru->err) {
				run_fail(ru, F_ERROR, ru->pos,
					 "header %02x %02x %02x %02x %02x "
					 "(marked %d): %s", h[0], h[1], h[2],
					 h[3], h[4], ru->mark[ru->pos],
					 err_name[ru->err]);
				return;
			}
			ru->rec_len = 5 + dl;
			if (ru->pos + ru->rec_len > s->n) {
				/* a record the sender never ends: stalls */
				ru->err = E_STALL;
				run_fail(ru, F_ERROR, ru->pos,
					 "header length %u runs past the "
					 "stream (marked %d)", dl,
					 ru->mark[ru->pos]);
				return;
			}
			/* tls_device_rx_resync_new_rec(): DRIVER_REQ */
			if (ru->req_valid &&
			    ru->req_seq == s->isn + ru->pos + 4) {
				int rc = hw_engine_flow_resync(ru->eng,
					ru->handle, s->isn + ru->pos, ru->rn);

				ru->req_valid = false;
				ru->confirms++;
				vlog(ru, "  core: resync confirm seq +%u rn "
				     "%llu -> %d\n", ru->pos,
				     (unsigned long long)ru->rn, rc);
			}
		}
		if (ru->rcv_nxt < ru->pos + ru->rec_len)
			return;
		core_record(ru);
	}
}

/* TCP's verdict on a segment (seq offset off, len bytes) */
static enum drop_why tcp_verdict(const struct run *ru, s32 off, u32 len,
				 u8 flags, u32 ack)
{
	if (!(flags & 0x10))
		return DROP_NO_ACK;
	if (seq_after(ack, RCV_SND_NXT) ||
	    seq_after(RCV_SND_NXT - PEER_MAX_WINDOW, ack))
		return DROP_BAD_ACK;
	if ((s64)off >= (s64)ru->rcv_nxt + RCV_WND)
		return DROP_OOW;	/* tcp_sequence(), tcp_data_queue() */
	if ((s64)off + len <= (s64)ru->rcv_nxt)
		return DROP_OLD;
	return DROP_NONE;
}

/* TCP takes the bytes it does not hold; each keeps its frame's mark */
static void tcp_take(struct run *ru, u32 off, u32 len, const u8 *d,
		     bool marked)
{
	const struct stream *s = &ru->x->s;
	u32 o = off > ru->rcv_nxt ? off : ru->rcv_nxt;
	u32 end = off + len < s->n ? off + len : s->n;
	const u8 *p;

	/* spans of bytes not held yet, found with memchr (hot loop) */
	while (o < end) {
		u32 to;

		p = memchr(ru->have + o, 0, end - o);
		if (!p)
			break;
		o = (u32)(p - ru->have);
		p = memchr(ru->have + o, 1, end - o);
		to = p ? (u32)(p - ru->have) : end;
		memset(ru->have + o, 1, to - o);
		memcpy(ru->sock + o, d + (o - off), to - o);
		memset(ru->mark + o, marked, to - o);
		o = to;
	}
	p = memchr(ru->have + ru->rcv_nxt, 0, s->n - ru->rcv_nxt);
	ru->rcv_nxt = p ? (u32)(p - ru->have) : s->n;
}

/*
 * Self-test of the invariants: one plaintext byte of a marked frame that
 * TCP will take is flipped, as a NIC with a wrong keystream would; the
 * run must then fail with WRONG (record trusted whole) or ERROR (mixed
 * record re-encrypted and verified).
 */
static void mutate_plaintext(struct run *ru, const struct ev *e, u8 *pl)
{
	const struct stream *s = &ru->x->s;

	for (u32 j = 0; j < e->len; j++) {
		u32 o = (u32)e->off + j;
		int ri = stream_rec_at(s, o);

		if (o < ru->rcv_nxt || ru->have[o] || ri < 0 ||
		    o < s->rec[ri].off + sver(s)->prefix ||
		    o >= s->rec[ri].off + s->rec[ri].len - TLS_TAG)
			continue;
		pl[j] ^= 0x01;
		ru->mutated = true;
		vlog(ru, "    self-test: plaintext byte at +%u flipped\n", o);
		return;
	}
}

static const struct frame_cfg flow_fc = {
	.family = 4,
	.saddr = { 192, 0, 2, 1 },
	.daddr = { 198, 51, 100, 7 },
	.sport = 443,
	.dport = 40001,
};

/* window scale of the receiver's advertisements: RCV_WND needs 17 bits */
#define RCV_WSCALE	1

/*
 * The receiver's ACK of everything TCP holds in order, through the NIC's
 * transmit side (hw_engine_tx): its window's edge is rcv_nxt + RCV_WND.
 */
static void host_ack(struct run *ru)
{
	struct frame_cfg rc = frame_cfg_reverse(&flow_fc);
	u32 fl;

	fl = frame_build(ru->frame, &rc, RCV_SND_NXT, 0x10, NULL, 0);
	hw_put_be32(ru->frame + 14 + 20 + 8, ru->x->s.isn + ru->rcv_nxt);
	hw_put_be16(ru->frame + 14 + 20 + 14, RCV_WND >> RCV_WSCALE);
	frame_fix_csum(ru->frame, fl);
	hw_engine_tx(ru->eng, ru->frame, fl);
}

/*
 * A rejected ACK for attack frame k: unsent data (beyond snd_nxt) or, in
 * half of them, one older than any window (behind snd_una - max_window),
 * from the seed and k alone.
 */
static u32 attack_ack(const struct exec *x, size_t k)
{
	u64 v = rng_next(&(struct rng){ x->seed + k + 1 });

	if (v >> 63)
		return RCV_SND_NXT - PEER_MAX_WINDOW - 1 -
		       (u32)(v % (1u << 30));
	return RCV_SND_NXT + 1 + (u32)(v % (1u << 30));
}

/* does the NIC's ACK test (engine.c, ack_span) reject this ACK? */
static bool nic_rejects_ack(u32 ack)
{
	return seq_after(ack, RCV_SND_NXT) ||
	       seq_after(RCV_SND_NXT - 2 * PEER_MAX_WINDOW - 2, ack);
}

/*
 * tls_dev_add as the driver makes it: key ep of the stream, the flow
 * starting at start_seq/start_rn (synced or not) with TCP holding the
 * stream up to stream_seq; the receiver's snd_nxt and window only when
 * the NIC sees its transmissions (ack_check).
 */
static void flow_install(struct run *ru, int ep, u32 start_seq, u64 start_rn,
			 bool synced, u32 stream_seq)
{
	const struct exec *x = ru->x;
	const struct epoch *e = &x->s.ep[ep];
	struct hw_flow_params fp;

	memset(&fp, 0, sizeof(fp));
	frame_tuple(&flow_fc, &fp.tuple);
	fp.version = x->s.tls13 ? HW_TLS_1_3 : HW_TLS_1_2;
	memcpy(fp.salt, e->salt, 4);
	memcpy(fp.iv, e->iv, 8);
	fp.start_seq = start_seq;
	fp.start_rn = start_rn;
	fp.start_synced = synced;
	fp.stream_seq = stream_seq;
	fp.stream_known = true;
	fp.max_ahead = x->max_ahead;
	fp.snd_nxt = RCV_SND_NXT;
	fp.snd_known = x->ack_check;
	fp.peer_wscale = PEER_WSCALE;
	fp.peer_wscale_known = true;
	fp.rcv_edge = stream_seq + RCV_WND;
	fp.rcv_wscale = RCV_WSCALE;
	fp.rcv_edge_known = x->ack_check;
	if (hw_crypto_key_new(e->key, e->klen, &fp.key) ||
	    hw_engine_flow_add(ru->eng, &fp, &ru->handle)) {
		fprintf(stderr, "flow install failed (key %d)\n", ep);
		abort();
	}
}

/*
 * The patched kernel's TLS 1.3 rekey on a device socket: tls_dev_del of
 * the old context, tls_dev_add with the next key from the record after
 * the KeyUpdate, number 0.  The driver's add (tls_offload.c) in small:
 * the old flow hands over where the next key's records it followed
 * without the key end, if it followed them from the key's start; the
 * walk over the data TCP holds goes on from there to the first record at
 * or after its end, where the new flow starts in sync (a header cut by
 * the end, or one that is not plausible: unsynced, anchored at the end).
 */
static void ku_install(struct run *ru)
{
	const struct exec *x = ru->x;
	const struct stream *s = &x->s;
	u32 start = s->isn + ru->pos, end = s->isn + ru->rcv_nxt;
	u32 walk = start;
	u64 walk_rn = 0;
	struct hw_key_reap reap = { .n = 0 };
	struct hw_flow_info fi;
	bool synced = true;

	if (!hw_engine_flow_info(ru->eng, ru->handle, &fi) &&
	    fi.nokey_known && fi.record_num >= fi.nokey_rn &&
	    fi.nokey_seq == start) {
		walk = fi.record_seq;
		walk_rn = fi.record_num - fi.nokey_rn;
		if (fi.record_pos >= 5 && fi.record_len) {
			walk += fi.record_len;
			walk_rn++;
		}
	}
	hw_engine_flow_del(ru->eng, ru->handle, &reap);
	hw_key_reap_free(&reap);
	while (seq_after(end, walk)) {
		const u8 *h = ru->sock + (walk - s->isn);

		if (end - walk < 5 || !hw_tls_hdr_plausible(HW_TLS_1_3, h)) {
			synced = false;
			break;
		}
		walk += 5 + hw_get_be16(h + 3);
		walk_rn++;
	}
	ru->ep++;
	flow_install(ru, ru->ep, synced ? walk : start, synced ? walk_rn : 0,
		     synced, end);
	sw_fini(&ru->sw);
	sw_init(&ru->sw, &s->ep[ru->ep]);
	ru->rn = 0;
	ru->req_valid = false;
	ru->ku_wait = -1;
	ru->rekeys++;
	vlog(ru, "  driver: key %d from +%u, flow starts %s at +%u rn %llu\n",
	     ru->ep, ru->pos, synced ? "in sync" : "unsynced",
	     (synced ? walk : start) - s->isn,
	     (unsigned long long)(synced ? walk_rn : 0));
}

static void run_frame(struct run *ru, size_t k)
{
	const struct exec *x = ru->x;
	const struct stream *s = &x->s;
	const struct ev *e = &x->ev[k];
	u32 hl = frame_hdr_len(&flow_fc), flen, ack = RCV_SND_NXT;
	const u8 *payload = e->genuine ? s->wire + e->off :
			    x->pool + e->pool;
	u8 flags = 0x18;	/* PSH|ACK */
	struct hw_rx_completion c;
	enum drop_why v;
	bool marked;

	/* the next key reaches the NIC between two frames */
	if (ru->ku_wait >= 0 && ru->ku_wait-- == 0) {
		ku_install(ru);
		core_advance(ru);
		if (core_dead(ru))
			return;
	}
	if (!e->genuine && e->drop == DROP_NO_ACK)
		flags = 0x08;
	if (!e->genuine && e->drop == DROP_BAD_ACK)
		ack = attack_ack(x, k);
	flen = frame_build(ru->frame, &flow_fc, s->isn + (u32)e->off, flags,
			   payload, e->len);
	if (ack != RCV_SND_NXT) {
		hw_put_be32(ru->frame + 14 + 20 + 8, ack);
		frame_fix_csum(ru->frame, flen);
	}
	hw_engine_rx(ru->eng, ru->frame, flen, ru->out, &c);
	marked = hw_rx_decrypted(&c);
	if (c.resync_req) {
		/* tls_offload_rx_resync_request(): the newest wins */
		ru->req_valid = true;
		ru->req_seq = c.resync_seq;
	}
	v = tcp_verdict(ru, e->off, e->len, flags, ack);
	if (ru->mutate && marked && e->genuine && !ru->mutated)
		mutate_plaintext(ru, e, ru->out + hl);
	vlog(ru, "#%zu %s%s off %d len %u%s%s -> NIC %s ev %#x; TCP %s\n",
	     k, e->genuine ? "genuine" : "ATTACK ",
	     e->genuine ? (e->first_tx ? "" : " (again)") :
	     kind_name[e->kind], e->off, e->len,
	     flags & 0x10 ? "" : " no-ACK",
	     ack != RCV_SND_NXT ? " bad-ACK" : "",
	     marked ? "MARKED" : "-", c.events, drop_name[v]);
	if (c.resync_req)
		vlog(ru, "    resync request for header at +%d\n",
		     (int)(c.resync_seq - 4 - s->isn));
	if (c.events & HW_EV_REARMED) {
		/* taken back to the old data's frontier: is it behind? */
		struct hw_flow_info fi;
		u32 sent = ru->snd_max;

		if (e->genuine && (u32)e->off + e->len > sent)
			sent = (u32)e->off + e->len;
		if (!hw_engine_flow_info(ru->eng, ru->handle, &fi) &&
		    (s32)(fi.expected_seq - s->isn - sent) > 0 &&
		    !ru->rearm_ahead) {
			ru->rearm_ahead = true;
			vlog(ru, "    engine rearmed ahead of the sender: "
			     "+%u, sender at +%u\n",
			     fi.expected_seq - s->isn, sent);
		}
	}
	if (ru->verbose) {
		struct hw_flow_info fi;

		if (!hw_engine_flow_info(ru->eng, ru->handle, &fi))
			vlog(ru, "    engine: %s, expects +%d, record at +%d "
			     "pos %u len %u%s\n", hw_flow_state_name(fi.state),
			     (int)(fi.expected_seq - s->isn),
			     (int)(fi.record_seq - s->isn), fi.record_pos,
			     fi.record_len, fi.reorder_pending ?
			     ", reorder walk pending" : "");
	}
	if (!e->genuine) {
		if (v == DROP_NONE || v != e->drop)
			run_fail(ru, F_HARNESS, (u32)e->off,
				 "attack frame #%zu (%s) got TCP verdict %s, "
				 "built for %s", k, kind_name[e->kind],
				 drop_name[v], drop_name[e->drop]);
		return;
	}
	if ((u32)e->off + e->len > ru->snd_max)
		ru->snd_max = (u32)e->off + e->len;
	if (v != DROP_NONE)
		return;
	tcp_take(ru, (u32)e->off, e->len, marked ? ru->out + hl : payload,
		 marked);
	if (x->ack_check)
		host_ack(ru);
	core_advance(ru);
}

/*
 * Records from the first one sent after the last disturbance to the first
 * NIC-decrypted one.  A disturbance is an attack frame or a genuine frame
 * that is not the sender's next new segment (a retransmission, a late or
 * duplicated frame, or one after a loss): natural faults after the last
 * attack frame may cost a resync of their own, which is not the attack's.
 * resume_from(): the index of that first record; resume_records(): the
 * count (-1: none NIC-decrypted to the stream's end), avail: the records
 * from it to the end.
 */
static int resume_from(const struct exec *x, const u8 *skip)
{
	u32 after = 0;

	for (size_t k = 0; k < x->nev; k++) {
		const struct ev *e = &x->ev[k];

		if (skip[k])
			continue;
		if (!e->genuine || (u32)e->off != e->snd_max)
			after = e->snd_max;
	}
	return rec_from(&x->s, after);
}

static int resume_records(const struct run *ru, int *avail)
{
	const struct stream *s = &ru->x->s;
	int ri = resume_from(ru->x, ru->x->skip), n = 0;

	*avail = s->nrec - ri;
	for (; ri < s->nrec; ri++, n++)
		if (ru->rec_dev[ri] == 2)
			return n;
	return -1;
}

static int resume_bound = RESUME_BOUND;

/*
 * What the engine was doing when the bound ran out (NO-RESUME), from its
 * flow at that moment:
 *  nokey: NOKEY, waiting for a key update none of these streams sends
 *         (its key ended at a ChangeCipherSpec it framed);
 *  ahead: the engine's position was one injected frames gave it, beyond
 *         what the sender had sent, and it did not take it back: at the
 *         bound it still expected such a byte, or a rearm
 *         (HW_EV_REARMED: old data only after a forward jump) took it
 *         "back" to such a position (seen: a far frame, then a far run
 *         within max_ahead of it, which counts as new data and confirms
 *         the jump; or a far run re-anchoring after an unconfirmed jump,
 *         whose rearm returns to the first jump's position); it waits
 *         until the stream gets there, if ever;
 *  other: anything else (SEARCH, TRACK, SHADOW at the stream's position).
 * -K names the signatures of open engine bugs: reported with their seeds,
 * not counted as failures.
 */
enum stuck { STUCK_OTHER, STUCK_NOKEY, STUCK_AHEAD, STUCK_N };

static const char *const stuck_name[STUCK_N] = { "other", "nokey", "ahead" };

static u32 resume_known;	/* -K: bit per enum stuck */

static void resume_fail(struct run *ru)
{
	const struct stream *s = &ru->x->s;
	const struct hw_flow_info *fi = &ru->at_bound;
	int exp = ru->at_bound_valid ? (int)(fi->expected_seq - s->isn) : 0;

	ru->stuck = STUCK_OTHER;
	if (ru->at_bound_valid && fi->state == HW_FS_NOKEY)
		ru->stuck = STUCK_NOKEY;
	else if (ru->rearm_ahead ||
		 (ru->at_bound_valid && exp > (int)ru->at_bound_snd))
		ru->stuck = STUCK_AHEAD;
	run_fail(ru, F_RESUME, ru->pos,
		 "no NIC-decrypted record within %d records after the last "
		 "disturbance (%d; -1 never); engine then %s expecting +%d, "
		 "sender at +%u: %s", resume_bound, ru->resume,
		 ru->at_bound_valid ? hw_flow_state_name(fi->state) : "?",
		 exp, ru->at_bound_snd, stuck_name[ru->stuck]);
}

static bool mutate_marked;	/* --selftest */

/*
 * A run's buffers, kept from one run to the next and grown as needed:
 * allocating them per run cost more system time than the run itself
 * under ASan (large blocks are mmapped).
 */
static struct {
	u8 *mem, *frame, *out, *sock, *mark, *have, *rec_dev, *recbuf, *pt;
	size_t n, nrec;
	size_t used, used_rec;	/* cleared for this run */
} bufs;

static void run_buffers(struct run *ru, const struct stream *s, size_t sz)
{
	if (!bufs.mem) {
		bufs.mem = malloc(sz);
		bufs.frame = malloc(MSS * 2 + 256);
		bufs.out = malloc(MSS * 2 + 256);
		bufs.recbuf = malloc(16384 + 64);
		bufs.pt = malloc(16384 + 64);
	}
	if (s->n > bufs.n) {
		bufs.n = s->n * 2;
		bufs.sock = realloc(bufs.sock, bufs.n);
		bufs.mark = realloc(bufs.mark, bufs.n);
		bufs.have = realloc(bufs.have, bufs.n);
	}
	if ((size_t)s->nrec > bufs.nrec) {
		bufs.nrec = (size_t)s->nrec * 2;
		bufs.rec_dev = realloc(bufs.rec_dev, bufs.nrec);
	}
	memset(bufs.mark, 0, s->n);
	memset(bufs.have, 0, s->n);
	memset(bufs.rec_dev, 0, (size_t)s->nrec);
	bufs.used = s->n;
	bufs.used_rec = (size_t)s->nrec;
	ru->mem = bufs.mem;
	ru->frame = bufs.frame;
	ru->out = bufs.out;
	ru->sock = bufs.sock;
	ru->mark = bufs.mark;
	ru->have = bufs.have;
	ru->rec_dev = bufs.rec_dev;
	ru->recbuf = bufs.recbuf;
	ru->pt = bufs.pt;
}

/* the stream grew during a run: more buffer, its new part clear */
static void run_buffers_grow(struct run *ru, const struct stream *s)
{
	size_t n0 = bufs.used, r0 = bufs.used_rec;

	if (s->n > bufs.n) {
		bufs.n = s->n * 2;
		bufs.sock = realloc(bufs.sock, bufs.n);
		bufs.mark = realloc(bufs.mark, bufs.n);
		bufs.have = realloc(bufs.have, bufs.n);
	}
	if ((size_t)s->nrec > bufs.nrec) {
		bufs.nrec = (size_t)s->nrec * 2;
		bufs.rec_dev = realloc(bufs.rec_dev, bufs.nrec);
	}
	if (!bufs.sock || !bufs.mark || !bufs.have || !bufs.rec_dev)
		abort();
	memset(bufs.mark + n0, 0, s->n - n0);
	memset(bufs.have + n0, 0, s->n - n0);
	memset(bufs.rec_dev + r0, 0, (size_t)s->nrec - r0);
	bufs.used = s->n;
	bufs.used_rec = (size_t)s->nrec;
	ru->sock = bufs.sock;
	ru->mark = bufs.mark;
	ru->have = bufs.have;
	ru->rec_dev = bufs.rec_dev;
}

static void run_buffers_free(void)
{
	free(bufs.mem);
	free(bufs.frame);
	free(bufs.out);
	free(bufs.sock);
	free(bufs.mark);
	free(bufs.have);
	free(bufs.rec_dev);
	free(bufs.recbuf);
	free(bufs.pt);
	memset(&bufs, 0, sizeof(bufs));
}

static void run_exec(struct exec *x, bool verbose, struct run *ru)
{
	const struct stream *s = &x->s;
	size_t sz = hw_engine_mem_size(4), k = 0;
	int avail;

	memset(ru, 0, sizeof(*ru));
	ru->mutate = mutate_marked;
	ru->x = x;
	ru->verbose = verbose;
	run_buffers(ru, s, sz);
	ru->eng = hw_engine_init(ru->mem, sz, 4);
	ru->rn = s->rn0;
	ru->ku_wait = -1;
	sw_init(&ru->sw, &s->ep[0]);

	flow_install(ru, 0, s->isn, s->rn0, true, s->isn);
	ru->bound_ri = resume_from(x, x->skip) + resume_bound;
	for (;;) {
		for (; k < x->nev && !core_dead(ru); k++)
			if (!x->skip[k])
				run_frame(ru, k);
		/* keys the application installs after the last frame */
		while (ru->ku_wait >= 0 && !core_dead(ru)) {
			ku_install(ru);
			core_advance(ru);
		}
		if (core_dead(ru) || ru->pos != s->n)
			break;
		/*
		 * Not NIC-decrypted since the last disturbance and fewer
		 * than bound + 1 records after it: the tail grows until
		 * the check can tell (no execution goes unmeasured).
		 */
		if (resume_records(ru, &avail) >= 0 || avail > resume_bound)
			break;
		tail_extend(x);
		run_buffers_grow(ru, s);
		vlog(ru, "  tail extended: %d records\n", s->nrec);
	}
	if (!core_dead(ru) && ru->pos != s->n)
		run_fail(ru, F_HARNESS, ru->pos,
			 "stream not fully delivered (rcv_nxt %u of %u)",
			 ru->rcv_nxt, s->n);
	ru->resume = -2;
	if (!core_dead(ru)) {
		ru->resume = resume_records(ru, &avail);
		if (ru->resume == -1 || ru->resume > resume_bound)
			resume_fail(ru);
	}
	hw_engine_stats(ru->eng, &ru->st);
	{
		struct hw_key_reap reap = { .n = 0 };

		hw_engine_flow_del(ru->eng, ru->handle, &reap);
		hw_key_reap_free(&reap);
	}
	hw_engine_fini(ru->eng);
	sw_fini(&ru->sw);
}

/* ------------------------------------------------------------------ */
/* residual class                                                     */
/* ------------------------------------------------------------------ */

/*
 * An attack frame F is a residual candidate when the NIC cannot tell it
 * from the genuine stream until the genuine copy arrives:
 *  (R1) F carries a byte p of some genuine record's header or explicit
 *       nonce ([B, B+13) for a record boundary B; TLS 1.3: the header,
 *       [B, B+5), its nonce is the record number) that differs from the
 *       sender's: F can steer framing or keystream;
 *  (R0) when F reaches the NIC, genuine frames have brought every byte
 *       before F's start: F is in order, no gap before it (a frame
 *       beyond a hole could be held as suspect until the hole fills);
 *  (R2) F reaches the NIC before any genuine frame carrying p;
 *  (R3) the first genuine frame after F that brings bytes beyond F's end
 *       starts exactly at F's end, and no genuine frame carrying p comes
 *       before it: the NIC sees F and the later data as one contiguous
 *       stream, with no gap and no overlap, exactly as if F were the
 *       sender's segment (the genuine one naturally lost or reordered
 *       behind later data).
 * or, wherever the NIC's stream position is (reorder recovery reads late
 * frames too):
 *  (RX) F is an exact copy: its sequence range is that of a genuine
 *       segment G sent later than F reaches the NIC, F differs from G in
 *       a prefix byte (R1, R2), and G itself arrives after genuine data
 *       beyond its end (the network delayed it): the NIC sees F where G
 *       belongs, cut exactly as the sender cut G, and has nothing else
 *       to go by until G arrives (docs/design.md, the residual case).
 * or, when the NIC has no view of the receiver's snd_nxt (ack_check
 * off), since TCP's ACK test is the only thing that tells F from G then:
 *  (RG) F fills a hole exactly: genuine frames have brought every byte
 *       before F's start and a frame starting at F's end, none of F's
 *       bytes, and F differs from the sender in a prefix byte (R1): the
 *       NIC sees what a retransmission of the lost segment looks like.
 * With the ACK test on, no frame is a candidate: every attack frame that
 * brings new data is one the ACK test rejects.
 * An execution is residual when its failure is ERROR (never WRONG), it
 * has candidates, and the same execution without the candidate frames
 * passes every invariant (checked by re-running it).
 */
/* end of the contiguous stream prefix genuine frames before k brought */
static s64 genuine_frontier(const struct exec *x, const u8 *skip, size_t k)
{
	u8 *seen = calloc(1, x->s.n + 1);
	s64 end = 0;

	for (size_t j = 0; j < k; j++)
		if (!skip[j] && x->ev[j].genuine)
			memset(seen + x->ev[j].off, 1, x->ev[j].len);
	while (end < x->s.n && seen[end])
		end++;
	free(seen);
	return end;
}

/* (RX): F is an exact copy of a genuine segment the network delayed */
static bool exact_copy_of_delayed(const struct exec *x, const u8 *skip,
				  size_t k)
{
	const struct stream *s = &x->s;
	const struct ev *f = &x->ev[k];
	const u8 *fp = x->pool + f->pool;
	s64 fend = (s64)f->off + f->len;
	bool differs = false;
	size_t j, g = 0;

	for (s64 o = f->off > 0 ? f->off : 0; o < fend && o < s->n; o++) {
		int ri = stream_rec_at(s, (u32)o);

		if (ri >= 0 && o - s->rec[ri].off < sver(s)->prefix &&
		    fp[o - f->off] != s->wire[o])
			differs = true;
	}
	if (!differs)
		return false;
	/* no genuine copy of F's bytes before F; the exact one after it */
	for (j = 0; j < x->nev; j++) {
		const struct ev *e = &x->ev[j];

		if (skip[j] || !e->genuine || j == k)
			continue;
		if (j < k && (s64)e->off < fend &&
		    (s64)f->off < (s64)e->off + e->len)
			return false;
		if (j > k && e->off == f->off && e->len == f->len) {
			g = j;
			break;
		}
	}
	if (!g)
		return false;
	/* G came after genuine data beyond its end */
	for (j = k + 1; j < g; j++) {
		const struct ev *e = &x->ev[j];

		if (!skip[j] && e->genuine && (s64)e->off >= fend)
			return true;
	}
	return false;
}

/* (RG): F fills a hole in the genuine stream exactly */
static bool fills_hole_exactly(const struct exec *x, const u8 *skip,
			       size_t k)
{
	const struct ev *f = &x->ev[k];
	s64 fend = (s64)f->off + f->len;
	bool next = false;

	if (genuine_frontier(x, skip, k) != f->off)
		return false;
	for (size_t j = 0; j < k; j++) {
		const struct ev *e = &x->ev[j];

		if (skip[j] || !e->genuine)
			continue;
		if ((s64)e->off < fend && (s64)f->off < (s64)e->off + e->len)
			return false;
		next |= e->off == fend;
	}
	return next;
}

static bool prefix_differs(const struct exec *x, size_t k)
{
	const struct stream *s = &x->s;
	const struct ev *f = &x->ev[k];
	const u8 *fp = x->pool + f->pool;
	s64 fend = (s64)f->off + f->len;

	for (s64 o = f->off > 0 ? f->off : 0; o < fend && o < s->n; o++) {
		int ri = stream_rec_at(s, (u32)o);

		if (ri >= 0 && o - s->rec[ri].off < sver(s)->prefix &&
		    fp[o - f->off] != s->wire[o])
			return true;
	}
	return false;
}

static bool residual_candidate(const struct exec *x, const u8 *skip,
			       size_t k)
{
	const struct stream *s = &x->s;
	const struct ev *f = &x->ev[k];
	const u8 *fp = x->pool + f->pool;
	s64 fend = (s64)f->off + f->len;

	/* a too-old ACK inside the NIC's bound passes its test too */
	if (x->ack_check && (f->drop != DROP_BAD_ACK ||
			     nic_rejects_ack(attack_ack(x, k))))
		return false;
	if (fills_hole_exactly(x, skip, k) && prefix_differs(x, k))
		return true;	/* RG */
	if (exact_copy_of_delayed(x, skip, k))
		return true;	/* RX */
	if (genuine_frontier(x, skip, k) < f->off)
		return false;	/* R0 */
	for (s64 o = f->off > 0 ? f->off : 0; o < fend && o < s->n; o++) {
		int ri = stream_rec_at(s, (u32)o);
		bool r2 = true;
		size_t j;

		if (ri < 0 || o - s->rec[ri].off >= sver(s)->prefix ||
		    fp[o - f->off] == s->wire[o])
			continue;
		/* R2: no genuine copy of p before F */
		for (j = 0; j < k && r2; j++) {
			const struct ev *g = &x->ev[j];

			r2 = skip[j] || !g->genuine || o < g->off ||
			     o >= (s64)g->off + g->len;
		}
		if (!r2)
			continue;
		/* R3: the next genuine data beyond F continues it exactly */
		for (j = k + 1; j < x->nev; j++) {
			const struct ev *g = &x->ev[j];
			s64 gend = (s64)g->off + g->len;

			if (skip[j] || !g->genuine)
				continue;
			if (g->off <= o && o < gend)
				break;	/* p's genuine copy came first */
			if (gend > fend) {
				if (g->off == fend)
					return true;
				break;
			}
		}
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* driver: many executions, classification, summary                   */
/* ------------------------------------------------------------------ */

#define CULPRIT_NATURAL	K_NKINDS
#define CULPRIT_COMBO	(K_NKINDS + 1)
#define NCULPRIT	(K_NKINDS + 2)

static const char *culprit_name(int c)
{
	return c == CULPRIT_NATURAL ? "natural-faults-only" :
	       c == CULPRIT_COMBO ? "combination" : kind_name[c];
}

#define RH_N	1024	/* resume histogram: records counted one by one */

/* one TLS version's share of a tally */
struct ver_tally {
	u64 execs, fails, wrong, error, resume, harness, residual;
	u64 resume_known;
	u64 records, nic_recs, ack_off;
};

struct tally {
	u64 count[F_NCLASS][NCULPRIT];
	u64 seeds[F_NCLASS][NCULPRIT][MAX_SHOW_SEEDS];
	u64 residual, residual_seeds[MAX_SHOW_SEEDS];
	u64 err_kind[E_NKINDS];
	u64 resume_hist[RH_N + 2];	/* 0..RH_N-1, RH_N: more, then
					 * never */
	u64 resume_known[STUCK_N];	/* NO-RESUME with a -K signature */
	u64 resume_known_seeds[STUCK_N][MAX_SHOW_SEEDS];
	u64 ext_execs, ext_chunks;	/* tails extended, chunks added */
	u64 sig_execs, sig_resumed;	/* with a bug's signature */
	u64 resume_fail_sig[STUCK_N];	/* failing NO-RESUME, by state */
	u64 resume_by_kind[K_NKINDS][2];	/* runs, sum of records */
	u64 execs, frames, attack_frames, records, nic_recs, mixed, sw;
	u64 kind_execs[K_NKINDS];
	struct ver_tally ver[2];	/* [0] TLS 1.2, [1] TLS 1.3 */
};

static void tally_seed(u64 *slots, u64 n, u64 seed)
{
	if (n <= MAX_SHOW_SEEDS)
		slots[n - 1] = seed;
}

/*
 * which attack action is enough on its own to fail the same way (class
 * fc), by re-running
 */
static int find_culprit(struct exec *x, enum fail_class fc)
{
	int culprit = CULPRIT_COMBO;
	struct run ru;

	for (size_t k = 0; k < x->nev; k++)
		x->skip[k] = !x->ev[k].genuine;
	run_exec(x, false, &ru);
	if (ru.fail == fc)
		return CULPRIT_NATURAL;
	for (int a = 0; a < x->nact && culprit == CULPRIT_COMBO; a++) {
		for (size_t k = 0; k < x->nev; k++)
			x->skip[k] = !x->ev[k].genuine &&
				     x->ev[k].action != a;
		run_exec(x, false, &ru);
		if (ru.fail == fc)
			culprit = x->act_kind[a];
	}
	/* several actions together, all of one kind: that kind */
	for (int a = 1; a < x->nact && culprit == CULPRIT_COMBO; a++)
		if (x->act_kind[a] != x->act_kind[0])
			return culprit;
	return culprit == CULPRIT_COMBO && x->nact ? x->act_kind[0] : culprit;
}

static bool check_residual(struct exec *x)
{
	u8 *skip = x->skip;
	bool any = false;
	struct run ru;

	memset(skip, 0, x->nev);
	for (size_t k = 0; k < x->nev; k++)
		if (!x->ev[k].genuine && residual_candidate(x, skip, k)) {
			skip[k] = 2;	/* marked; applied below */
			any = true;
		}
	if (!any)
		return false;
	for (size_t k = 0; k < x->nev; k++)
		skip[k] = skip[k] == 2;
	run_exec(x, false, &ru);
	/* the error is the candidates' (a slow resume is not at issue) */
	return ru.fail == F_NONE || ru.fail == F_RESUME;
}

/* a comma-separated list of names from names[0..n) as a bit mask */
static u32 parse_names(const char *list, const char *const *names, int n,
		       const char *what)
{
	u32 m = 0;
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int k;

		for (k = 0; k < n; k++)
			if (!strcmp(tok, names[k]))
				break;
		if (k == n) {
			fprintf(stderr, "unknown %s '%s'\n", what, tok);
			exit(2);
		}
		m |= 1u << k;
	}
	return m;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: adversary [-n EXECS] [-s FIRST_SEED] [-t SECONDS] "
		"[-b BOUND] [-K ahead,nokey,other]\n"
		"                 [-k KINDS | -x KINDS] [-q] "
		"[--strict-residual] [-V 12|13] [-U PCT]\n"
		"       adversary --selftest N [-V 12|13] [-U PCT]\n"
		"       adversary --seed N [-v] [--actions 0,2] "
		"[-k KINDS | -x KINDS] [-V 12|13] [-U PCT]\n"
		"-V: every execution TLS 1.2 or 1.3 (default: 1.3 in a "
		"quarter, by seed)\n"
		"-U: that percentage of TLS 1.3 records are KeyUpdates "
		"(the next key installed 0-%d frames later)\n"
		"-b: resume bound in records (default %d); -K: NO-RESUME "
		"signatures reported, not failing\n"
		"kinds:", KU_MAX_WAIT, RESUME_BOUND);
	for (int k = 0; k < K_NKINDS; k++)
		fprintf(stderr, " %s", kind_name[k]);
	fprintf(stderr, "\n");
	exit(2);
}

/*
 * A version with 100 executions or more and not one NIC-decrypted record:
 * the offload never engaged, so its WRONG check tested nothing (and the
 * resume check cannot tell: such runs are "unmeasured").  Counts as a
 * failure.
 */
static u64 offload_floor(const struct tally *t, bool print)
{
	u64 n = 0;

	for (int v = 0; v < 2; v++) {
		if (t->ver[v].execs < 100 || t->ver[v].nic_recs)
			continue;
		n++;
		if (print)
			printf("# FAIL %s: not one record NIC-decrypted in "
			       "%llu executions\n",
			       v ? tls_ver13.name : tls_ver12.name,
			       (unsigned long long)t->ver[v].execs);
	}
	return n;
}

/* the smallest count of records that q of the measured executions reach */
static int resume_quantile(const struct tally *t, u64 measured, double q)
{
	u64 need = (u64)(q * (double)measured + 0.999999), acc = 0;

	for (int i = 0; i <= RH_N; i++) {
		acc += t->resume_hist[i];
		if (acc >= need && acc)
			return i;
	}
	return RH_N;
}

/*
 * The resume distribution: each count up to 32, then in bins of 8 up to
 * 128 and of 64 beyond; quantiles and the largest count seen.
 */
static void print_resume(const struct tally *t)
{
	u64 measured = 0, never = t->resume_hist[RH_N + 1];
	int max = -1;

	for (int i = 0; i <= RH_N; i++)
		if (t->resume_hist[i]) {
			measured += t->resume_hist[i];
			max = i;
		}
	printf("# resume: records from the first one sent after the last "
	       "disturbance (attack frame or natural fault) to the first "
	       "NIC-decrypted one (bound %d; never: not within the bound):"
	       "\n#  ", resume_bound);
	for (int i = 0; i <= RH_N; ) {
		int w = i < 32 ? 1 : i < 128 ? 8 : 64, hi = i + w - 1;
		u64 n = 0;

		if (hi > RH_N)
			hi = RH_N;
		for (int j = i; j <= hi; j++)
			n += t->resume_hist[j];
		if (n && w == 1)
			printf(" %d:%llu", i, (unsigned long long)n);
		else if (n)
			printf(" %d-%d:%llu", i, hi, (unsigned long long)n);
		i = hi + 1;
	}
	printf(" never:%llu\n", (unsigned long long)never);
	if (measured)
		printf("#   p50 %d, p90 %d, p99 %d, p99.9 %d, p99.99 %d, max %d%s "
		       "of %llu executions; tail grown in %llu (%.2f%%) by "
		       "%.1f records on average, so none unmeasured\n",
		       resume_quantile(t, measured + never, 0.5),
		       resume_quantile(t, measured + never, 0.9),
		       resume_quantile(t, measured + never, 0.99),
		       resume_quantile(t, measured + never, 0.999),
		       resume_quantile(t, measured + never, 0.9999), max,
		       max == RH_N ? " or more" : "",
		       (unsigned long long)(measured + never),
		       (unsigned long long)t->ext_execs,
		       t->execs ? 100.0 * t->ext_execs / t->execs : 0,
		       t->ext_execs ? (double)t->ext_chunks * TAIL_CHUNK /
		       t->ext_execs : 0);
	if (t->sig_execs)
		printf("#   not in it: %llu executions with an engine bug's "
		       "signature (a rearm ahead of the sender, or NO-RESUME "
		       "ahead/nokey), %llu of them back within the bound\n",
		       (unsigned long long)t->sig_execs,
		       (unsigned long long)t->sig_resumed);
	for (int k = 0; k < STUCK_N; k++) {
		if (!t->resume_known[k])
			continue;
		printf("# NO-RESUME known (-K %s) %llu executions; seeds:",
		       stuck_name[k], (unsigned long long)t->resume_known[k]);
		for (u64 i = 0; i < t->resume_known[k] && i < MAX_SHOW_SEEDS;
		     i++)
			printf(" %llu", (unsigned long long)
			       t->resume_known_seeds[k][i]);
		printf("\n");
	}
}

static void print_summary(const struct tally *t, double secs, u32 kinds)
{
	u64 fails = 0;

	printf("# adversary: %llu executions in %.1f s (%.0f exec/s), "
	       "%llu frames (%llu attack), attack kinds:",
	       (unsigned long long)t->execs, secs,
	       secs > 0 ? t->execs / secs : 0,
	       (unsigned long long)t->frames,
	       (unsigned long long)t->attack_frames);
	for (int k = 0; k < K_NKINDS; k++)
		if (kinds >> k & 1)
			printf(" %s", kind_name[k]);
	printf("\n# records %llu: NIC-decrypted %.2f%%, mixed %.2f%%, "
	       "software %.2f%%\n", (unsigned long long)t->records,
	       t->records ? 100.0 * t->nic_recs / t->records : 0,
	       t->records ? 100.0 * t->mixed / t->records : 0,
	       t->records ? 100.0 * t->sw / t->records : 0);
	print_resume(t);
	printf("#   mean by last attack kind:");
	for (int k = 0; k < K_NKINDS; k++)
		if (t->resume_by_kind[k][0])
			printf(" %s %.2f", kind_name[k],
			       (double)t->resume_by_kind[k][1] /
			       t->resume_by_kind[k][0]);
	printf("\n");
	for (int c = F_WRONG; c < F_NCLASS; c++)
		for (int u = 0; u < NCULPRIT; u++) {
			u64 n = t->count[c][u];

			if (!n)
				continue;
			fails += n;
			printf("# FAIL %-11s culprit %-19s %8llu executions; "
			       "seeds:", class_name[c], culprit_name(u),
			       (unsigned long long)n);
			for (u64 i = 0; i < n && i < MAX_SHOW_SEEDS; i++)
				printf(" %llu", (unsigned long long)
				       t->seeds[c][u][i]);
			printf("\n");
		}
	if (t->resume_fail_sig[0] + t->resume_fail_sig[1] +
	    t->resume_fail_sig[2])
		printf("# NO-RESUME failures by the engine's state at the "
		       "bound: ahead %llu, nokey %llu, other %llu\n",
		       (unsigned long long)t->resume_fail_sig[STUCK_AHEAD],
		       (unsigned long long)t->resume_fail_sig[STUCK_NOKEY],
		       (unsigned long long)t->resume_fail_sig[STUCK_OTHER]);
	if (fails) {
		printf("# errors by kind:");
		for (int e = 1; e < E_NKINDS; e++)
			if (t->err_kind[e])
				printf(" %s %llu;", err_name[e],
				       (unsigned long long)t->err_kind[e]);
		printf("\n");
	}
	if (t->residual) {
		printf("# RESIDUAL (forged segment indistinguishable until the "
		       "genuine copy arrives) %llu executions; seeds:",
		       (unsigned long long)t->residual);
		for (u64 i = 0; i < t->residual && i < MAX_SHOW_SEEDS; i++)
			printf(" %llu",
			       (unsigned long long)t->residual_seeds[i]);
		printf("\n");
	}
	for (int v = 0; v < 2; v++) {
		const struct ver_tally *vt = &t->ver[v];

		printf("# %s: %llu executions (ACK test off in %llu), "
		       "failures %llu (wrong bytes %llu, errors %llu, "
		       "no resume %llu, harness %llu), no resume known %llu, "
		       "residual %llu; "
		       "records %llu, NIC-decrypted %.2f%%\n",
		       v ? tls_ver13.name : tls_ver12.name,
		       (unsigned long long)vt->execs,
		       (unsigned long long)vt->ack_off,
		       (unsigned long long)vt->fails,
		       (unsigned long long)vt->wrong,
		       (unsigned long long)vt->error,
		       (unsigned long long)vt->resume,
		       (unsigned long long)vt->harness,
		       (unsigned long long)vt->resume_known,
		       (unsigned long long)vt->residual,
		       (unsigned long long)vt->records,
		       vt->records ? 100.0 * vt->nic_recs / vt->records : 0);
	}
	fails += offload_floor(t, true);
	printf("# failures %llu (%.4f%%), residual %llu; replay one: "
	       "adversary --seed N -v\n", (unsigned long long)fails,
	       t->execs ? 100.0 * fails / t->execs : 0,
	       (unsigned long long)t->residual);
}

/*
 * --selftest N: N executions without attacks, each with one plaintext byte
 * of a marked frame flipped; every such run must fail WRONG or ERROR, and
 * some must be WRONG (all-marked records are trusted without a tag).
 */
static int selftest(u64 n, u64 first)
{
	u64 mutated = 0, wrong = 0, error = 0, missed = 0;
	u64 m13 = 0, w13 = 0, e13 = 0;
	struct exec x = { 0 };

	mutate_marked = true;
	for (u64 i = 0; i < n; i++) {
		struct run ru;

		exec_build(&x, first + i, 0);
		run_exec(&x, false, &ru);
		if (ru.mutated) {
			mutated++;
			wrong += ru.fail == F_WRONG;
			error += ru.fail == F_ERROR;
			m13 += x.tls13;
			w13 += x.tls13 && ru.fail == F_WRONG;
			e13 += x.tls13 && ru.fail == F_ERROR;
			if (ru.fail != F_WRONG && ru.fail != F_ERROR) {
				if (!missed)
					printf("# self-test: seed %llu: "
					       "flipped byte not caught\n",
					       (unsigned long long)(first + i));
				missed++;
			}
		}
		exec_free(&x);
	}
	mutate_marked = false;
	run_buffers_free();
	free(x.ev);
	free(x.skip);
	free(x.pool);
	printf("# self-test: %llu executions, %llu with a flipped marked "
	       "byte: %llu WRONG, %llu ERROR, %llu missed (TLS 1.3: %llu, "
	       "%llu WRONG, %llu ERROR)\n",
	       (unsigned long long)n, (unsigned long long)mutated,
	       (unsigned long long)wrong, (unsigned long long)error,
	       (unsigned long long)missed, (unsigned long long)m13,
	       (unsigned long long)w13, (unsigned long long)e13);
	/* both versions' trusted records must be caught (unless forced) */
	return missed || !wrong || mutated < n / 2 ||
	       (force_version != 12 && n >= 100 && !w13) ? 1 : 0;
}

struct opts {
	u64 n, first;
	bool single, verbose, quiet, strict_residual;
	double tmax;
	u32 kinds;
	int jobs;
	u32 keep_actions;	/* --seed replay: actions kept (bit mask) */
};

/* executions first .. first + n - 1 into t */
static void run_range(const struct opts *o, u64 first, u64 n, struct tally *t)
{
	struct exec x = { 0 };
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (u64 i = 0; i < n; i++) {
		u64 seed = first + i;
		struct run ru;
		int culprit;
		struct ver_tally *vt;

		if (o->tmax > 0 && !(i & 63)) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			if ((t1.tv_sec - t0.tv_sec) +
			    (t1.tv_nsec - t0.tv_nsec) / 1e9 > o->tmax)
				break;
		}
		exec_build(&x, seed, o->kinds);
		for (size_t k = 0; k < x.nev; k++)
			x.skip[k] = x.ev[k].action >= 0 &&
				  !(o->keep_actions >> x.ev[k].action & 1);
		if (o->single) {
			printf("# seed %llu: %s, %d records (%d quiet tail "
			       "from +%u), %u bytes, rn0 %llu, key %u, seg mode "
			       "%d, loss %.2f reorder %.2f dup %.2f, "
			       "max_ahead %u, ACK test %s, actions:",
			       (unsigned long long)seed, sver(&x.s)->name,
			       x.s.nrec,
			       TAIL_RECORDS, x.tail_off, x.s.n,
			       (unsigned long long)x.s.rn0, x.s.ep[0].klen,
			       x.seg_mode, x.loss, x.reorder, x.dup,
			       x.max_ahead, x.ack_check ? "on" : "off");
			for (int a = 0; a < x.nact; a++)
				printf(" %s", kind_name[x.act_kind[a]]);
			printf("\n");
		}
		run_exec(&x, o->verbose, &ru);
		vt = &t->ver[x.tls13];
		vt->execs++;
		vt->records += (u64)ru.rec_i;
		vt->nic_recs += (u64)ru.nic_recs;
		vt->ack_off += !x.ack_check;
		t->execs++;
		t->frames += x.nev;
		for (size_t k = 0; k < x.nev; k++)
			t->attack_frames += !x.ev[k].genuine;
		for (int a = 0; a < x.nact; a++)
			t->kind_execs[x.act_kind[a]]++;
		t->records += (u64)ru.rec_i;
		t->nic_recs += (u64)ru.nic_recs;
		t->mixed += (u64)ru.mixed_recs;
		t->sw += (u64)ru.sw_recs;
		t->ext_execs += x.ext_chunks > 0;
		t->ext_chunks += (u64)x.ext_chunks;
		/*
		 * The distribution is the engine's own: executions with a
		 * NO-RESUME signature of an open engine bug (ahead, nokey;
		 * named by -K or not) are counted apart.
		 */
		if (ru.resume >= -1 && (ru.rearm_ahead ||
		    (ru.fail == F_RESUME && ru.stuck != STUCK_OTHER))) {
			t->sig_execs++;
			t->sig_resumed += ru.fail == F_NONE;
		} else if (ru.resume >= -1) {
			t->resume_hist[ru.resume < 0 ? RH_N + 1 :
				       ru.resume >= RH_N ? RH_N : ru.resume]++;
			if (x.nact && ru.resume >= 0) {
				int lk = x.act_kind[x.nact - 1];

				t->resume_by_kind[lk][0]++;
				t->resume_by_kind[lk][1] += (u64)ru.resume;
			}
		}
		if (ru.fail != F_NONE) {
			enum fail_class fc = ru.fail;
			enum core_err ek = ru.err;
			char why[200];

			memcpy(why, ru.why, sizeof(why));
			if (fc == F_HARNESS) {
				vt->fails++;
				vt->harness++;
				printf("# HARNESS seed %llu: %s\n",
				       (unsigned long long)seed, why);
				t->count[fc][CULPRIT_COMBO]++;
				tally_seed(t->seeds[fc][CULPRIT_COMBO],
					   t->count[fc][CULPRIT_COMBO], seed);
			} else if (fc == F_RESUME &&
				   (resume_known >> ru.stuck & 1)) {
				vt->resume_known++;
				t->resume_known[ru.stuck]++;
				tally_seed(t->resume_known_seeds[ru.stuck],
					   t->resume_known[ru.stuck], seed);
				if (o->single || !o->quiet)
					printf("# seed %llu: NO-RESUME, known "
					       "(-K %s): %s\n",
					       (unsigned long long)seed,
					       stuck_name[ru.stuck], why);
			} else if (fc == F_ERROR && check_residual(&x)) {
				vt->residual++;
				t->residual++;
				tally_seed(t->residual_seeds, t->residual,
					   seed);
				if (o->single)
					printf("# seed %llu: RESIDUAL (%s)\n",
					       (unsigned long long)seed, why);
			} else {
				culprit = find_culprit(&x, fc);
				if (fc == F_RESUME)
					t->resume_fail_sig[ru.stuck]++;
				vt->fails++;
				vt->wrong += fc == F_WRONG;
				vt->error += fc == F_ERROR;
				vt->resume += fc == F_RESUME;
				t->count[fc][culprit]++;
				tally_seed(t->seeds[fc][culprit],
					   t->count[fc][culprit], seed);
				if (fc == F_ERROR)
					t->err_kind[ek]++;
				if (o->single || !o->quiet)
					printf("# seed %llu: %s (culprit %s): "
					       "%s\n", (unsigned long long)seed,
					       class_name[fc],
					       culprit_name(culprit), why);
			}
		} else if (o->single) {
			printf("# seed %llu: pass (resume %d records, NIC "
			       "records %d mixed %d sw %d, confirms %llu, "
			       "sync_lost %llu)\n", (unsigned long long)seed,
			       ru.resume, ru.nic_recs, ru.mixed_recs,
			       ru.sw_recs, (unsigned long long)ru.confirms,
			       (unsigned long long)ru.st.sync_lost);
		}
		exec_free(&x);
	}
	fflush(stdout);
	free(x.ev);
	free(x.skip);
	free(x.pool);
	run_buffers_free();
}

static void merge_seeds(u64 *dst, u64 dn, const u64 *src, u64 sn)
{
	for (u64 i = 0; i < sn && i < MAX_SHOW_SEEDS; i++)
		if (dn + i < MAX_SHOW_SEEDS)
			dst[dn + i] = src[i];
}

static void tally_merge(struct tally *d, const struct tally *s)
{
	for (int c = 0; c < F_NCLASS; c++)
		for (int u = 0; u < NCULPRIT; u++) {
			merge_seeds(d->seeds[c][u], d->count[c][u],
				    s->seeds[c][u], s->count[c][u]);
			d->count[c][u] += s->count[c][u];
		}
	merge_seeds(d->residual_seeds, d->residual, s->residual_seeds,
		    s->residual);
	d->residual += s->residual;
	for (int i = 0; i < E_NKINDS; i++)
		d->err_kind[i] += s->err_kind[i];
	for (int i = 0; i < RH_N + 2; i++)
		d->resume_hist[i] += s->resume_hist[i];
	for (int k = 0; k < STUCK_N; k++) {
		merge_seeds(d->resume_known_seeds[k], d->resume_known[k],
			    s->resume_known_seeds[k], s->resume_known[k]);
		d->resume_known[k] += s->resume_known[k];
	}
	d->ext_execs += s->ext_execs;
	d->sig_execs += s->sig_execs;
	for (int k = 0; k < STUCK_N; k++)
		d->resume_fail_sig[k] += s->resume_fail_sig[k];
	d->sig_resumed += s->sig_resumed;
	d->ext_chunks += s->ext_chunks;
	for (int k = 0; k < K_NKINDS; k++) {
		d->resume_by_kind[k][0] += s->resume_by_kind[k][0];
		d->resume_by_kind[k][1] += s->resume_by_kind[k][1];
		d->kind_execs[k] += s->kind_execs[k];
	}
	for (int v = 0; v < 2; v++) {
		d->ver[v].execs += s->ver[v].execs;
		d->ver[v].fails += s->ver[v].fails;
		d->ver[v].wrong += s->ver[v].wrong;
		d->ver[v].error += s->ver[v].error;
		d->ver[v].resume += s->ver[v].resume;
		d->ver[v].resume_known += s->ver[v].resume_known;
		d->ver[v].harness += s->ver[v].harness;
		d->ver[v].residual += s->ver[v].residual;
		d->ver[v].records += s->ver[v].records;
		d->ver[v].nic_recs += s->ver[v].nic_recs;
		d->ver[v].ack_off += s->ver[v].ack_off;
	}
	d->execs += s->execs;
	d->frames += s->frames;
	d->attack_frames += s->attack_frames;
	d->records += s->records;
	d->nic_recs += s->nic_recs;
	d->mixed += s->mixed;
	d->sw += s->sw;
}

/* -j: contiguous seed ranges in child processes, tallies over pipes */
static void run_parallel(const struct opts *o, struct tally *t)
{
	int fds[64];
	pid_t pids[64];
	int jobs = o->jobs;

	for (int j = 0; j < jobs; j++) {
		u64 lo = o->n * (u64)j / (u64)jobs;
		u64 hi = o->n * (u64)(j + 1) / (u64)jobs;
		int p[2];

		if (pipe(p)) {
			perror("pipe");
			exit(2);
		}
		fflush(stdout);
		pids[j] = fork();
		if (pids[j] < 0) {
			perror("fork");
			exit(2);
		}
		if (!pids[j]) {
			struct tally *mine = calloc(1, sizeof(*mine));
			const u8 *b = (const u8 *)mine;
			size_t left = sizeof(*mine);

			close(p[0]);
			run_range(o, o->first + lo, hi - lo, mine);
			while (left) {
				ssize_t w = write(p[1], b, left);

				if (w <= 0)
					_exit(3);
				b += w;
				left -= (size_t)w;
			}
			_exit(0);
		}
		close(p[1]);
		fds[j] = p[0];
	}
	for (int j = 0; j < jobs; j++) {
		struct tally *part = calloc(1, sizeof(*part));
		u8 *b = (u8 *)part;
		size_t left = sizeof(*part);
		int st;

		while (left) {
			ssize_t r = read(fds[j], b, left);

			if (r <= 0) {
				fprintf(stderr, "shard %d died\n", j);
				exit(2);
			}
			b += r;
			left -= (size_t)r;
		}
		close(fds[j]);
		waitpid(pids[j], &st, 0);
		tally_merge(t, part);
		free(part);
	}
}

int main(int argc, char **argv)
{
	struct opts o = { .n = 1000, .first = 1, .jobs = 1,
			  .kinds = (1u << K_NKINDS) - 1,
			  .keep_actions = ~0u };
	struct tally *t = calloc(1, sizeof(*t));
	struct timespec t0, t1;
	u64 fails = 0, selftest_n = 0;
	double secs;
	bool bad;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-v")) {
			o.verbose = true;
		} else if (!strcmp(a, "-q")) {
			o.quiet = true;
		} else if (!strcmp(a, "--strict-residual")) {
			o.strict_residual = true;
		} else if (!v) {
			usage();
		} else if (!strcmp(a, "-n")) {
			o.n = strtoull(v, NULL, 0);
			i++;
		} else if (!strcmp(a, "-s")) {
			o.first = strtoull(v, NULL, 0);
			i++;
		} else if (!strcmp(a, "-t")) {
			o.tmax = atof(v);
			i++;
		} else if (!strcmp(a, "-K")) {
			resume_known = parse_names(v, stuck_name, STUCK_N, "NO-RESUME signature");
			i++;
		} else if (!strcmp(a, "-b")) {
			resume_bound = atoi(v);
			i++;
		} else if (!strcmp(a, "-j")) {
			o.jobs = atoi(v);
			if (o.jobs < 1 || o.jobs > 64)
				usage();
			i++;
		} else if (!strcmp(a, "-k")) {
			o.kinds = parse_names(v, kind_name, K_NKINDS, "attack kind");
			i++;
		} else if (!strcmp(a, "-x")) {
			o.kinds &= ~parse_names(v, kind_name, K_NKINDS, "attack kind");
			i++;
		} else if (!strcmp(a, "--actions")) {
			/* replay with only these attack actions (0-based) */
			o.keep_actions = 0;
			for (const char *c = v; *c; c++)
				if (*c >= '0' && *c <= '9')
					o.keep_actions |= 1u << (*c - '0');
			i++;
		} else if (!strcmp(a, "-V")) {
			force_version = atoi(v);
			if (force_version != 12 && force_version != 13)
				usage();
			i++;
		} else if (!strcmp(a, "-U")) {
			key_update_pct = (unsigned int)atoi(v);
			if (key_update_pct > 100)
				usage();
			i++;
		} else if (!strcmp(a, "--selftest")) {
			selftest_n = strtoull(v, NULL, 0);
			i++;
		} else if (!strcmp(a, "--seed")) {
			o.first = strtoull(v, NULL, 0);
			o.n = 1;
			o.single = true;
			i++;
		} else {
			usage();
		}
	}

	if (selftest_n) {
		free(t);
		return selftest(selftest_n, 1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (o.jobs > 1 && !o.single)
		run_parallel(&o, t);
	else
		run_range(&o, o.first, o.n, t);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	print_summary(t, secs, o.kinds);
	for (int c = F_WRONG; c < F_NCLASS; c++)
		for (int u = 0; u < NCULPRIT; u++)
			fails += t->count[c][u];
	fails += offload_floor(t, false);
	bad = fails || (o.strict_residual && t->residual);
	free(t);
	return bad ? 1 : 0;
}
