// SPDX-License-Identifier: GPL-2.0
/*
 * Innova hardware model: TLS 1.2 AES-GCM RX engine.  This file holds the
 * flow table, the keys, the record tracker with its state machine, resync
 * and the frame path; the streaming GCM of a record is in gcm_stream.c and
 * reorder recovery in reorder.c (what they share: engine_priv.h).  Pure C,
 * builds unchanged in the kernel module and on the host (see
 * include/innova/hw_port.h).
 *
 * ---------------------------------------------------------------------------
 * Flow states (enum hw_flow_state) and transitions
 * (an overview for newcomers, with the driver side: docs/design.md)
 * ---------------------------------------------------------------------------
 *  SEARCH  No record boundary known.  Every new in-order byte is scanned for
 *          a plausible header (type 0x14..0x18, 03 03, 24 <= L <= 2^14+24),
 *          also across frame boundaries (4 carried bytes).
 *          -> TRACK   candidate found; a resync request for its
 *                     header_start+4 goes out with THIS frame.
 *          -> SHADOW  a remembered resync hint (seq ahead of the stream,
 *                     e.g. CORE_NEXT_HINT) is reached.
 *          -> SYNC/SHADOW  reorder recovery (reorder.c).
 *  TRACK   Following record lengths from a candidate header (record
 *          numbers unknown).  Every followed header goes into a ring
 *          (seq, chain index); requests are re-issued with exponential
 *          back-off in chain index (0, 1, 3, 7, ...) so a lagging strparser
 *          can still match one.
 *          -> SHADOW  resync confirmation for a ring seq (record number =
 *                     rn + records followed since), or hint reached.
 *          -> SEARCH  a followed header is implausible, or a gap may hold
 *                     a header.
 *          -> SYNC/SHADOW  reorder recovery (reorder.c).
 *  SHADOW  Boundaries and record numbers known, key not yet verified against
 *          this stream (after install, every resync, every key update).  The
 *          next WHOLE record is authenticated without being decrypted
 *          (delivered untouched).
 *          -> SYNC    its tag matches.
 *          -> TRACK   tag mismatch under a key already verified (the next
 *                     boundary becomes the candidate).
 *          -> NOKEY   tag mismatch under a never-verified key from a key
 *                     update (wrong key): KEY_REFRESH_NEEDED event.
 *  SYNC    Decrypting in place (cut-through), checking every tag.
 *          -> TRACK   tag mismatch (auth_fail; the frame is not marked).
 *          -> SEARCH  gap that may hold a header, or an invalid header.
 *          -> SHADOW  key switch to a not yet verified key (record N).
 *          -> NOKEY   record after a ChangeCipherSpec with no new key.
 *  NOKEY   Boundaries and numbers known, no usable key for the current
 *          record (after CCS without key update, or a key that failed
 *          verification).  Lengths are still followed, records pass
 *          untouched.
 *          -> SHADOW  key update arrives (late: counted in key_late).
 *
 * Per record, the mode is decided when its first byte is processed:
 *  DEC     decrypt + GHASH + tag check (SYNC, and the frame is still
 *          markable: every byte of it so far belongs to DEC records)
 *  VERIFY  GHASH + tag check only (shadow record, or a record starting in a
 *          frame that cannot be marked: left wholly encrypted)
 *  FOLLOW  length only (TRACK, NOKEY, records damaged by a hole)
 *  DECNA   the rest of a DEC record after a hole (key and number verified,
 *          nonce known): decrypted without tag check.  Such a record is
 *          already mixed (frames before the hole went up decrypted, the
 *          retransmission fills the hole untouched), so the kernel
 *          re-encrypts and authenticates it in software anyway; marking
 *          its tail frame lets the next record decrypt instead of being
 *          passed encrypted (frame uniformity).
 *
 * A frame is marked (crypto_done + crypto_success) iff all its payload bytes
 * were decrypted into the output (DEC/DECNA records, or the tail of a VERIFY
 * record whose tag completes in this frame, see emit_output()) and no tag
 * in it failed.  A record starting in a frame that cannot be marked is
 * VERIFY (passed wholly encrypted, tag still checked).  Old data is
 * untouched and changes nothing; partly old data is untouched and its new
 * bytes advance the state with the frame unmarkable.  A gap inside a
 * record whose length is known keeps sync (the record becomes FOLLOW); any
 * other gap loses it.
 *
 * A gap that loses sync while record numbers are known also starts a walk
 * over the late data that may fill it, to regain the numbers without a
 * resync round trip: reorder recovery, described in reorder.c.
 * ---------------------------------------------------------------------------
 */
#include "engine_priv.h"

/*
 * After the stream jumped forward, this many frames in a row that bring
 * nothing new mean the jump was not stream data (a stray or injected
 * segment): the position is taken back to the old data's frontier.  A real
 * gap is followed by new data within a few frames (the rest of the
 * sender's flight); the retransmissions that fill a hole inside one record
 * (which keeps sync) are at most 12 frames of a 16 KiB record.
 */
#define HW_REARM_OLD_FRAMES	16

/*
 * Frames beyond max_ahead are not stream data, unless they keep coming,
 * contiguous, this many in a row: then TCP accepted data the NIC never
 * saw (IPv4 fragments, extension headers, a failover) and the stream is
 * there now.  An injector sending such a run only moves the flow to
 * SEARCH; the rearm watch takes it back once old data follows.
 */
#define HW_FAR_REANCHOR_FRAMES	8

static size_t align8(size_t x)
{
	return (x + 7) & ~(size_t)7;
}

/* ------------------------------------------------------------------ */
/* engine memory and flow table                                       */
/* ------------------------------------------------------------------ */

static u32 buckets_for(u32 capacity)
{
	u32 n = 16;

	while (n < capacity * 2)
		n <<= 1;
	return n;
}

size_t hw_engine_mem_size(u32 capacity)
{
	if (!capacity || capacity > HW_ENGINE_MAX_FLOWS)
		return 0;
	return align8(sizeof(struct hw_engine)) +
	       align8((size_t)capacity * sizeof(struct hw_flow)) +
	       (size_t)buckets_for(capacity) * sizeof(u32);
}

struct hw_engine *hw_engine_init(void *mem, size_t size, u32 capacity)
{
	struct hw_engine *eng = mem;
	size_t need = hw_engine_mem_size(capacity);
	u8 *p = mem;
	u32 i;

	if (!mem || !need || size < need)
		return NULL;
	memset(mem, 0, need);
	eng->capacity = capacity;
	eng->nbuckets = buckets_for(capacity);
	eng->flows = (struct hw_flow *)(p + align8(sizeof(*eng)));
	eng->buckets = (u32 *)(p + align8(sizeof(*eng)) +
			       align8((size_t)capacity * sizeof(struct hw_flow)));
	for (i = 0; i < capacity; i++) {
		eng->flows[i].gen = 1;
		eng->flows[i].hnext = i + 2 <= capacity ? i + 2 : 0;
	}
	eng->free_head = 1;
	eng->reorder_recovery = true;
	eng->ack_check = true;
	eng->window_check = true;
	return eng;
}

/* one 32-bit word into the hash: multiply, then fold the high bits down */
static inline u32 hash_word(u32 h, u32 w)
{
	h = (h ^ w) * 0x9e3779b1u;
	return h ^ (h >> 15);
}

/*
 * Word at a time (a per-byte hash cost ~90 instructions per IPv4 frame),
 * with a final avalanche because the table index is the low bits and
 * flows often differ only in a port.
 */
static u32 tuple_hash(const struct hw_flow_tuple *t)
{
	u32 h = 0x811c9dc5u, i, nw = t->family == 6 ? 4 : 1;

	for (i = 0; i < nw; i++) {
		h = hash_word(h, hw_get_be32(t->saddr + 4 * i));
		h = hash_word(h, hw_get_be32(t->daddr + 4 * i));
	}
	h = hash_word(h, (u32)t->sport << 16 | t->dport);
	h = hash_word(h, (u32)t->family << 16 | t->vlan);
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	return h ^ (h >> 13);
}

/* The driver's tuple as the frame parser fills it: IPv4 leaves 12 zeros */
static struct hw_flow_tuple tuple_norm(const struct hw_flow_tuple *in)
{
	struct hw_flow_tuple t = *in;

	if (t.family == 4) {
		memset(t.saddr + 4, 0, 12);
		memset(t.daddr + 4, 0, 12);
	}
	return t;
}

static bool tuple_eq(const struct hw_flow_tuple *a,
		     const struct hw_flow_tuple *b)
{
	return a->family == b->family && a->sport == b->sport &&
	       a->dport == b->dport && a->vlan == b->vlan &&
	       !memcmp(a->saddr, b->saddr, sizeof(a->saddr)) &&
	       !memcmp(a->daddr, b->daddr, sizeof(a->daddr));
}

/*
 * The flow of the previous frame is tried first (a NIC's flow cache): a
 * burst of one flow skips the hash, a miss costs one port compare.
 */
static struct hw_flow *flow_lookup(struct hw_engine *eng,
				   const struct hw_flow_tuple *t)
{
	u32 i = eng->last_flow;

	if (i && tuple_eq(&eng->flows[i - 1].t, t))
		return &eng->flows[i - 1];
	i = eng->buckets[tuple_hash(t) & (eng->nbuckets - 1)];
	while (i) {
		struct hw_flow *f = &eng->flows[i - 1];

		if (tuple_eq(&f->t, t)) {
			eng->last_flow = i;
			return f;
		}
		i = f->hnext;
	}
	return NULL;
}

static u32 flow_handle(const struct hw_engine *eng, const struct hw_flow *f)
{
	return (u32)f->gen << 16 | (u32)(f - eng->flows + 1);
}

static struct hw_flow *flow_by_handle(const struct hw_engine *eng, u32 h)
{
	u32 i = h & 0xffff;
	struct hw_flow *f;

	if (!i || i > eng->capacity)
		return NULL;
	f = &eng->flows[i - 1];
	if (!f->used || f->gen != (u16)(h >> 16))
		return NULL;
	return f;
}

static void reap_add(struct hw_key_reap *reap, struct hw_crypto_key **k)
{
	if (!*k)
		return;
	if (reap && reap->n < HW_KEY_REAP_MAX)
		reap->keys[reap->n++] = *k;
	else
		hw_crypto_key_free(*k);	/* no reap given: process context */
	*k = NULL;
}

void hw_key_reap_free(struct hw_key_reap *reap)
{
	unsigned int i;

	for (i = 0; i < reap->n; i++) {
		hw_crypto_key_free(reap->keys[i]);
		reap->keys[i] = NULL;
	}
	reap->n = 0;
}

/* ------------------------------------------------------------------ */
/* chain bookkeeping                                                  */
/* ------------------------------------------------------------------ */

static void ring_clear(struct hw_chain *c)
{
	c->ring_n = 0;
	c->ring_head = 0;
	c->req_n = 0;
	c->req_head = 0;
}

/* Start a new chain whose current record begins at seq (not yet seen). */
void hw_chain_reset(struct hw_flow *f, u32 seq)
{
	ring_clear(&f->chain);
	f->rec.seq = seq;
	f->rec.pos = 0;
	f->rec.len = 0;
	f->rec.idx = 0;
	f->rn_off = 0;
	f->rn_known = false;
	f->nokey_known = false;
	f->rec.mode = HW_RM_FOLLOW;
	f->rec.hole = false;
	f->rec.unmarked = false;
	f->rec.crypto_err = false;
	f->rec.fail = false;
	f->rec.anchored = false;
	f->rec.seal = false;
	f->rec.pfx_n = 0;
	f->rec.key = NULL;
	f->chain.next_req_idx = 0;
	/* framing abandoned: its prefixes no longer steer anything */
	memset(f->pfx, 0, sizeof(f->pfx));
	f->pfx_settled = false;
	f->keys.end_idx_valid = false;
}

/* why: HW_EV_LOST_*, reported when this really loses sync */
static void lose_sync_search(struct hw_rx_ctx *cx, struct hw_flow *f, u32 why)
{
	if (f->state != HW_FS_SEARCH && f->state != HW_FS_TRACK) {
		HW_STAT_INC(cx->eng, f, sync_lost);
		cx->events |= why;
	} else if (f->state == HW_FS_TRACK) {
		cx->events |= HW_EV_CHAIN_DROPPED;
	}
	hw_set_state(cx, f, HW_FS_SEARCH);
	hw_chain_reset(f, f->exp_seq);
	f->ncarry = 0;
}

/* ------------------------------------------------------------------ */
/* keys                                                               */
/* ------------------------------------------------------------------ */

/*
 * Key for the record about to start (number rn, chain index idx); commits a
 * pending switch.  NULL if no usable key.
 */
struct hw_key_slot *hw_select_key(struct hw_rx_ctx *cx, struct hw_flow *f,
				  u64 rn)
{
	struct hw_flow_keys *keys = &f->keys;
	bool ended = rn >= keys->end_rn;

	/*
	 * Switch; the old key is parked in 'retired' until the next command
	 * hands it back.  Every key update empties 'retired' before filling
	 * 'nxt', so it is always free here; never free in this path.
	 */
	if (keys->nxt.k && !keys->retired &&
	    (rn >= keys->nxt.from_rn || ended)) {
		keys->retired = keys->cur.k;
		keys->cur = keys->nxt;
		memset(&keys->nxt, 0, sizeof(keys->nxt));
		if (keys->cur.from_rn > rn)
			keys->cur.from_rn = rn;
		keys->end_rn = HW_NO_END;
		cx->events |= HW_EV_KEY_SWITCHED;
		ended = false;
		if (!keys->cur.verified && f->state == HW_FS_SYNC)
			hw_set_state(cx, f, HW_FS_SHADOW);
	}
	if (ended || !keys->cur.k || keys->cur.bad)
		return NULL;
	return &keys->cur;
}

/* ------------------------------------------------------------------ */
/* resync                                                             */
/* ------------------------------------------------------------------ */

/*
 * The record with chain index idx has number rn.  Called from the resync
 * command (ring hit) or when a hint is reached at a record boundary.
 */
static int apply_sync(struct hw_rx_ctx *cx, struct hw_flow *f, u64 idx, u64 rn)
{
	u64 off = rn - idx;

	f->ro.valid = false;	/* numbers from the kernel win */
	if (f->rn_known && off == f->rn_off) {
		/* agrees with what we follow: nothing to do */
		HW_STAT_INC(cx->eng, f, resync_ok);
		return HW_RESYNC_APPLIED;
	}
	if (f->rn_known && f->state == HW_FS_SYNC) {
		/* contradicts a verified state: ignore */
		HW_STAT_INC(cx->eng, f, resync_skip);
		return HW_RESYNC_SKIPPED;
	}
	f->rn_off = off;
	f->rn_known = true;
	if (f->keys.end_idx_valid) {
		f->keys.end_rn = f->keys.end_idx + off;
		f->keys.end_idx_valid = false;
	}
	if (f->rec.pos) {
		/* current record partly seen without crypto: follow it */
		f->rec.mode = HW_RM_FOLLOW;
		f->rec.key = NULL;
	}
	hw_set_state(cx, f, HW_FS_SHADOW);
	HW_STAT_INC(cx->eng, f, resync_ok);
	return HW_RESYNC_APPLIED;
}

/*
 * The record starting at seq (not yet seen) has number rn: a new chain
 * there, its first record authenticated in SHADOW.  Install in sync, or a
 * hint reached away from a followed header.
 */
static void start_at_record(struct hw_rx_ctx *cx, struct hw_flow *f, u32 seq,
			    u64 rn)
{
	hw_chain_reset(f, seq);
	f->rn_known = true;
	f->rn_off = rn;
	hw_set_state(cx, f, HW_FS_SHADOW);
}

/* hint reached: exp_seq == hint.seq */
static int hint_reached(struct hw_rx_ctx *cx, struct hw_flow *f)
{
	f->hint.valid = false;
	f->ro.valid = false;
	if (f->state != HW_FS_SEARCH && f->rec.pos == 0 &&
	    f->rec.seq == f->hint.seq)
		return apply_sync(cx, f, f->rec.idx, f->hint.rn);
	if (f->state == HW_FS_SYNC) {
		HW_STAT_INC(cx->eng, f, resync_skip);
		return HW_RESYNC_SKIPPED;
	}
	start_at_record(cx, f, f->hint.seq, f->hint.rn);
	HW_STAT_INC(cx->eng, f, resync_ok);
	return HW_RESYNC_APPLIED;
}

int hw_engine_flow_resync(struct hw_engine *eng, u32 handle, u32 header_seq,
			  u64 rn)
{
	struct hw_flow *f = flow_by_handle(eng, handle);
	struct hw_rx_ctx cx = { .eng = eng };
	u64 idx;

	if (!f)
		return -ENOENT;
	if (f->state != HW_FS_SEARCH &&
	    (hw_ring_find(f->chain.ring, f->chain.ring_n, header_seq, &idx) ||
	     hw_ring_find(f->chain.req, f->chain.req_n, header_seq, &idx)))
		return apply_sync(&cx, f, idx, rn);
	if (!f->exp_valid || !hw_seq_before(header_seq, f->exp_seq)) {
		f->hint.valid = true;
		f->hint.seq = header_seq;
		f->hint.rn = rn;
		/* exactly at the stream position: take it now */
		if (f->exp_valid && header_seq == f->exp_seq)
			return hint_reached(&cx, f);
		HW_STAT_INC(eng, f, resync_hint);
		return HW_RESYNC_HINT;
	}
	HW_STAT_INC(eng, f, resync_skip);
	return HW_RESYNC_SKIPPED;
}

/* ------------------------------------------------------------------ */
/* record walking                                                     */
/* ------------------------------------------------------------------ */

const struct hw_tls_fmt hw_tls_fmts[HW_TLS_NVERSIONS] = {
	[HW_TLS_1_2] = {
		.prefix = HW_TLS_PREFIX, .aad_len = 13, .explicit_nonce = true,
		.len_min = 8 + HW_TLS_TAG,
		.len_max = HW_TLS_MAX_PLAIN + 8 + HW_TLS_TAG,
	},
	[HW_TLS_1_3] = {
		.prefix = HW_TLS_HDR, .aad_len = HW_TLS_HDR, .appdata_outer = true,
		.len_min = HW_TLS_TAG,
		.len_max = HW_TLS_MAX_PLAIN + 1 + HW_TLS_TAG,
	},
};

/* a boundary guess: parsable, and a content type the version sends */
bool hw_tls_hdr_plausible(enum hw_tls_version v, const u8 h[5])
{
	const struct hw_tls_fmt *fmt = &hw_tls_fmts[v];

	if (fmt->appdata_outer ? h[0] != HW_TLS_CT_APPDATA :
				 h[0] < 0x14 || h[0] > 0x18)
		return false;
	return hw_tls_hdr_parsable(fmt, h);
}

static void maybe_request(struct hw_rx_ctx *cx, struct hw_flow *f)
{
	if (f->rec.idx != f->chain.next_req_idx)
		return;
	f->chain.next_req_idx = f->rec.idx * 2 + 1;
	cx->req = true;
	cx->req_seq = f->rec.seq + 4;
	hw_ring_push(f->chain.req, &f->chain.req_n, &f->chain.req_head,
		     HW_REQ_N, f->rec.seq, f->rec.idx);
}

static void record_begin(struct hw_rx_ctx *cx, struct hw_flow *f)
{
	struct hw_key_slot *ks;

	hw_ring_push(f->chain.ring, &f->chain.ring_n, &f->chain.ring_head,
		     HW_RING_N, f->rec.seq, f->rec.idx);
	if (f->lat_phase == HW_LAT_LOST) {
		f->lat_phase = HW_LAT_COUNTING;	/* the first intact header */
		f->lat_recs = 0;
	} else if (f->lat_phase == HW_LAT_COUNTING && f->lat_recs < 0xffff) {
		f->lat_recs++;
	}
	f->rec.mode = HW_RM_FOLLOW;
	f->rec.key = NULL;
	f->rec.unmarked = false;
	f->rec.inner_valid = false;
	f->rec.first_n = 0;
	if (f->state == HW_FS_TRACK || !f->rn_known)
		return;
	ks = hw_select_key(cx, f, f->rec.idx + f->rn_off);
	if (!ks) {
		if (!f->nokey_known) {
			f->nokey_known = true;
			f->nokey_seq = f->rec.seq;
			f->nokey_rn = f->rec.idx + f->rn_off;
		}
		hw_set_state(cx, f, HW_FS_NOKEY);
		return;
	}
	f->nokey_known = false;
	if (f->state == HW_FS_NOKEY)
		hw_set_state(cx, f, HW_FS_SHADOW);
	f->rec.key = ks->k;
	if (f->state == HW_FS_SYNC && cx->markable)
		f->rec.mode = HW_RM_DEC;
	else
		f->rec.mode = HW_RM_VERIFY;
}

/* header bytes complete (rec.pos == 5); false = sync lost, go SEARCH */
static bool record_header(struct hw_rx_ctx *cx, struct hw_flow *f)
{
	/* TRACK still guesses boundaries; numbered states know them */
	if (f->state == HW_FS_TRACK ?
	    !hw_tls_hdr_plausible(f->version, f->rec.hdr) :
	    !hw_tls_hdr_parsable(HW_FMT(f), f->rec.hdr))
		return false;
	f->rec.len = HW_TLS_HDR + hw_get_be16(f->rec.hdr + 3);
	if (f->state == HW_FS_TRACK)
		maybe_request(cx, f);
	return true;
}

/*
 * The current record ends: keep its prefix for comparison with later
 * copies.  A verified tag settles every framing decision before it: the
 * record's number and position were right, whatever an earlier copy of
 * an earlier prefix said.
 */
static void pfx_push(struct hw_flow *f, bool verified)
{
	struct hw_pfx *p = &f->pfx[f->pfx_head];

	if (verified) {
		f->pfx_settled = true;
		f->pfx_settled_end = f->rec.seq + f->rec.len;
	}
	p->seq = f->rec.seq;
	p->n = f->rec.pfx_n;
	memcpy(p->b, f->rec.hdr, sizeof(p->b));
	f->pfx_head = (u8)((f->pfx_head + 1) % HW_PFX_N);
}

/* do the bytes [seq, seq + n) contradict pfx[0, pn) at pseq? */
static bool pfx_differs(u32 pseq, const u8 *pfx, u32 pn, u32 seq,
			const u8 *d, u32 n)
{
	u32 lo, hi;

	if (!pn)
		return false;
	lo = hw_seq_after(seq, pseq) ? seq : pseq;
	hi = hw_seq_before(seq + n, pseq + pn) ? seq + n : pseq + pn;
	if (!hw_seq_before(lo, hi))
		return false;
	return memcmp(pfx + (lo - pseq), d + (lo - seq), hi - lo) != 0;
}

/* TLS 1.3: n plaintext bytes at plaintext offset off were decrypted */
static void inner_scan(struct hw_flow *f, u32 off, const u8 *pt, u32 n)
{
	u32 i;

	if (off == f->rec.first_n)
		for (i = 0; i < n && f->rec.first_n < 4; i++)
			f->rec.first[f->rec.first_n++] = pt[i];
	for (i = n; i-- > 0;) {
		if (pt[i]) {
			f->rec.inner_valid = true;
			f->rec.inner_type = pt[i];
			f->rec.inner_off = off + i;
			return;
		}
	}
}

/*
 * TLS 1.3, a record decrypted in SYNC ends: the outer type is always 23,
 * so a KeyUpdate (the last record under the current key) shows only in
 * the plaintext.  A KeyUpdate message alone (type 24, length 1) ends the
 * key's range as a ChangeCipherSpec does in 1.2; a NewSessionTicket alone
 * changes nothing; any other handshake
 * record, or one whose type the engine could not read, sends the flow to
 * SHADOW: the next record's tag is checked before anything is marked.
 */
static void inner_end(struct hw_rx_ctx *cx, struct hw_flow *f)
{
	static const u8 key_update[4] = { 24, 0, 0, 1 };

	if (f->rec.inner_valid && f->rec.inner_type != 0x16)
		return;
	if (f->rec.inner_valid && f->rec.inner_off == 5 &&
	    f->rec.first_n == 4 && !memcmp(f->rec.first, key_update, 4)) {
		u64 e = f->rec.idx + f->rn_off + 1;

		HW_STAT_INC(cx->eng, f, tls13_key_update);
		if (e < f->keys.end_rn)
			f->keys.end_rn = e;
		return;
	}
	/* NewSessionTickets alone: no key change */
	if (f->rec.inner_valid && f->rec.first_n == 4 && f->rec.first[0] == 4 &&
	    4 + ((u32)f->rec.first[1] << 16 | (u32)f->rec.first[2] << 8 |
		 f->rec.first[3]) == f->rec.inner_off)
		return;
	HW_STAT_INC(cx->eng, f, tls13_inner_recheck);
	hw_set_state(cx, f, HW_FS_SHADOW);
}

/*
 * Old bytes [seq, seq + n): another copy of stream bytes the engine has
 * already taken.  If they contradict the prefix of a record framed since
 * the last verified tag, the NIC may have framed on bytes TCP will not
 * deliver (an injected segment TCP dropped, seen before the real one):
 * the framing goes, and nothing is marked until a tag verifies again.
 * A copy contradicting a settled prefix is itself the bad one: ignored.
 * Returns true if sync was dropped.
 */
static bool pfx_check(struct hw_rx_ctx *cx, struct hw_flow *f, u32 seq,
		      const u8 *d, u32 n)
{
	bool conflict = false;
	u8 i;

	if (f->state == HW_FS_SEARCH)
		return false;
	if (pfx_differs(f->rec.seq, f->rec.hdr, f->rec.pfx_n, seq, d, n))
		conflict = true;
	for (i = 0; i < HW_PFX_N && !conflict; i++) {
		const struct hw_pfx *p = &f->pfx[i];

		if (!pfx_differs(p->seq, p->b, p->n, seq, d, n))
			continue;
		if (!f->pfx_settled || !hw_seq_before(p->seq, f->pfx_settled_end)) {
			conflict = true;
			break;
		}
		HW_STAT_INC(cx->eng, f, copy_mismatch);
	}
	if (!conflict)
		return false;
	HW_STAT_INC(cx->eng, f, hdr_conflict);
	cx->markable = false;
	hw_ro_cancel(f);
	lose_sync_search(cx, f, HW_EV_LOST_CONFLICT);
	return true;
}

static void record_end(struct hw_rx_ctx *cx, struct hw_flow *f)
{
	struct hw_engine *eng = cx->eng;
	bool was_ccs = f->rec.hdr[0] == HW_TLS_CT_CCS;
	u8 mode = f->rec.mode;
	bool verified = false;
	bool ok = true;

	if (mode == HW_RM_DECNA) {
		HW_STAT_INC(eng, f, unauth_records);
		hw_gcm_drop_keystream(f);
	} else if (mode != HW_RM_FOLLOW) {
		ok = hw_gcm_check(f);
		if (unlikely(f->rec.crypto_err)) {
			/* no verdict on the tag */
			hw_record_crypto_fail(cx, f);
			ok = true;
		} else if (ok) {
			verified = true;
			f->keys.cur.verified = true;
			f->auth_fail_run = 0;
			/*
			 * Decrypted for the kernel if every byte went up in a
			 * marked frame: counted with this frame (frame_done()).
			 * A shadow or passed record can be one too, when it
			 * lies wholly in the frame its tag completes in.
			 */
			if (!f->rec.unmarked) {
				if (mode == HW_RM_DEC)
					cx->dec_done++;
				else
					cx->ver_done++;
				if (HW_FMT(f)->appdata_outer)
					cx->dec13_done++;
			} else if (mode == HW_RM_DEC) {
				HW_STAT_INC(eng, f, unmarked_records);
			}
			if (mode == HW_RM_DEC) {
				if (f->lat_phase == HW_LAT_COUNTING)
					eng->resync_hist[hw_min_u32(f->lat_recs,
								    HW_RESYNC_HIST - 1)]++;
				f->lat_phase = HW_LAT_IDLE;
			} else if (f->state == HW_FS_SHADOW) {
				HW_STAT_INC(eng, f, shadow_ok);
				f->far.armed = false;	/* the stream is here */
				hw_set_state(cx, f, HW_FS_SYNC);
				cx->events |= HW_EV_SYNCED;
			} else {
				HW_STAT_INC(eng, f, enc_records);
			}
		} else {
			HW_STAT_INC(eng, f, auth_fail);
			f->auth_fail_run++;
			cx->tag_fail = true;
			if (f->state == HW_FS_SHADOW)
				HW_STAT_INC(eng, f, shadow_fail);
		}
	} else {
		HW_STAT_INC(eng, f, follow_records);
		if (f->state == HW_FS_NOKEY)
			HW_STAT_INC(eng, f, nokey_records);
	}

	if (HW_FMT(f)->appdata_outer && f->state == HW_FS_SYNC && ok &&
	    mode != HW_RM_FOLLOW && !f->rec.fail)
		inner_end(cx, f);
	/*
	 * A ChangeCipherSpec is the last record under the current key, once
	 * its tag says it is one: a header the NIC only followed may be
	 * forged (a frame TCP drops), and acting on it would leave the flow
	 * waiting in NOKEY for a key that never comes.
	 */
	if (was_ccs && verified && !HW_FMT(f)->appdata_outer) {
		if (f->rn_known) {
			u64 e = f->rec.idx + f->rn_off + 1;

			if (e < f->keys.end_rn)
				f->keys.end_rn = e;
		} else {
			f->keys.end_idx_valid = true;
			f->keys.end_idx = f->rec.idx + 1;
		}
	}

	pfx_push(f, verified);
	cx->tag_ok = verified;
	/* the stream really is here: a jump before this record was real */
	if (verified)
		f->jump.pending = false;
	f->rec.seq += f->rec.len;
	f->rec.idx++;
	f->rec.pos = 0;
	f->rec.len = 0;
	f->rec.key = NULL;
	f->rec.mode = HW_RM_FOLLOW;
	f->rec.hole = false;
	f->rec.unmarked = false;
	f->rec.anchored = false;
	f->rec.seal = false;
	f->rec.pfx_n = 0;

	if (!ok && !f->keys.cur.verified && f->keys.cur.from_update) {
		/* wrong key from a key update: ask for a new one */
		f->keys.cur.bad = true;
		HW_STAT_INC(eng, f, key_refresh);
		cx->events |= HW_EV_KEY_REFRESH_NEEDED;
		hw_set_state(cx, f, HW_FS_NOKEY);
	} else if (!ok || f->rec.fail) {
		/*
		 * tag mismatch or backend error: stop decrypting; the next
		 * boundary is a candidate
		 */
		HW_STAT_INC(eng, f, sync_lost);
		cx->events |= f->rec.fail ? HW_EV_LOST_CRYPTO : HW_EV_LOST_TAG;
		hw_set_state(cx, f, HW_FS_TRACK);
		hw_chain_reset(f, f->rec.seq);
	}
}

/*
 * A frame [seq, end) begins exactly where the prefix frame ended.  Its
 * start only counts if that frame came in order: one that came ahead of a
 * gap may be an injected copy of a segment the network delayed.
 */
static void pfx_seal(struct hw_flow *f, u32 seq)
{
	if (seq == f->rec.pfx_end && f->rec.seal)
		f->rec.anchored = true;
}

/*
 * The current record's prefix is complete in this frame.  A frame that
 * came ahead of a gap (or overlapping old data) may be an injected copy of
 * a segment the network delayed: unless a tag verified before the prefix
 * in this frame, such a record is only verified, not decrypted, so no
 * later frame is marked on its header and nonce.
 */
static void pfx_complete(struct hw_rx_ctx *cx, struct hw_flow *f)
{
	f->rec.anchored = cx->tag_ok;
	f->rec.seal = cx->in_order;
	f->rec.pfx_end = cx->frame_end;
	if (!cx->in_order && !cx->tag_ok && f->rec.mode == HW_RM_DEC) {
		f->rec.mode = HW_RM_VERIFY;
		HW_STAT_INC(cx->eng, f, unanchored);
	}
}

/* SEARCH: scan n bytes; returns bytes consumed */
static u32 search_step(struct hw_rx_ctx *cx, struct hw_flow *f, u32 seq,
		       const u8 *d, u32 n)
{
	u8 h[HW_TLS_HDR];
	int nc = f->ncarry;
	int i, j;

	cx->markable = false;
	for (i = -nc; i + 4 < (int)n; i++) {
		u8 b1 = i + 1 < 0 ? f->carry[nc + i + 1] : d[i + 1];
		u8 b2 = i + 2 < 0 ? f->carry[nc + i + 2] : d[i + 2];
		u8 b0;

		/* cheap pre-filter; hw_tls_hdr_plausible() below decides */
		if (b1 != 3 || b2 != 3)
			continue;
		b0 = i < 0 ? f->carry[nc + i] : d[i];
		if (b0 < 0x14 || b0 > 0x18)
			continue;	/* 23 too, for TLS 1.3 */
		for (j = 0; j < HW_TLS_HDR; j++)
			h[j] = i + j < 0 ? f->carry[nc + i + j] : d[i + j];
		if (!hw_tls_hdr_plausible(f->version, h))
			continue;
		/* candidate header at seq + i, its last byte in this frame */
		hw_set_state(cx, f, HW_FS_TRACK);
		hw_chain_reset(f, seq + (u32)i);
		f->ncarry = 0;
		record_begin(cx, f);
		memcpy(f->rec.hdr, h, HW_TLS_HDR);
		f->rec.pos = HW_TLS_HDR;
		f->rec.pfx_n = HW_TLS_HDR;
		f->rec.len = HW_TLS_HDR + hw_get_be16(h + 3);
		maybe_request(cx, f);
		return (u32)(i + HW_TLS_HDR);
	}
	/* keep the last (up to) 4 stream bytes */
	if (n >= 4) {
		memcpy(f->carry, d + n - 4, 4);
		f->ncarry = 4;
	} else {
		u8 tmp[8];
		u32 tot = (u32)nc + n;

		memcpy(tmp, f->carry, nc);
		memcpy(tmp + nc, d, n);
		if (tot > 4) {
			memcpy(f->carry, tmp + tot - 4, 4);
			f->ncarry = 4;
		} else {
			memcpy(f->carry, tmp, tot);
			f->ncarry = (u8)tot;
		}
	}
	return n;
}

/*
 * Does the current record's output go into the frame?  DEC/DECNA always.
 * A VERIFY record (shadow, or passed encrypted) does too when its tag
 * completes inside this frame: the frame is marked only if that tag then
 * matches, so nothing unverified is ever marked.  Without this, a record
 * passed encrypted would leave its tail frame unmarkable, so the next
 * record would start in an unmarkable frame too, and so on forever (a
 * cascade that only ends when a record happens to start on a frame
 * boundary).  The price is that the verified record goes up "mixed" (its
 * last frame decrypted), once per (re)sync.
 */
static bool emit_output(const struct hw_flow *f, u32 frame_rem)
{
	if (hw_rm_decrypts(f->rec.mode))
		return true;
	if (f->rec.mode != HW_RM_VERIFY)
		return false;
	/*
	 * Length unknown yet: the header must complete with bytes to spare
	 * (L >= 24), so the precise check below runs again at pos 5.
	 */
	if (f->rec.pos < HW_TLS_HDR)
		return HW_TLS_HDR - f->rec.pos < frame_rem;
	return f->rec.len - f->rec.pos <= frame_rem;
}

/* one phase of the current record; returns bytes consumed (> 0) */
static u32 record_step(struct hw_rx_ctx *cx, struct hw_flow *f, const u8 *d,
		       u32 n, u32 frame_rem)
{
	bool emit, plain;
	u32 m;

	if (f->rec.pos == 0)
		record_begin(cx, f);
	emit = cx->markable && emit_output(f, frame_rem);
	if (!emit) {
		cx->markable = false;
		f->rec.unmarked = true;
	}

	if (f->rec.pos < HW_PFX(f)) {
		m = hw_min_u32(n, HW_PFX(f) - f->rec.pos);
		if (f->rec.pos < HW_TLS_HDR)
			m = hw_min_u32(m, HW_TLS_HDR - f->rec.pos);
		memcpy(f->rec.hdr + f->rec.pos, d, m);
		if (emit)
			memcpy(cx->out, d, m);
		if (f->rec.pfx_n == f->rec.pos) {
			f->rec.pfx_n = (u8)(f->rec.pos + m);
			if (f->rec.pfx_n == HW_PFX(f))
				pfx_complete(cx, f);
		}
		f->rec.pos += m;
		if (f->rec.pos == HW_TLS_HDR && !record_header(cx, f)) {
			/* rescan the bytes after the bad header's first */
			cx->markable = false;
			lose_sync_search(cx, f, HW_EV_LOST_BAD_HEADER);
			memcpy(f->carry, f->rec.hdr + 1, 4);
			f->ncarry = 4;
			return m;
		}
		if (f->rec.pos == HW_PFX(f) && f->rec.mode != HW_RM_FOLLOW)
			hw_gcm_init(cx, f, f->keys.cur.iv);
		return m;
	}
	if (f->rec.pos < f->rec.len - HW_TLS_TAG) {
		u32 off = f->rec.pos - HW_PFX(f);

		m = hw_min_u32(n, f->rec.len - HW_TLS_TAG - f->rec.pos);
		/*
		 * TLS 1.3 decrypts whatever it has a key for, marked or not:
		 * the plaintext says where a key ends (inner_end()); out may
		 * hold anything when the frame is not marked
		 */
		plain = emit || (HW_FMT(f)->appdata_outer &&
				 f->rec.mode != HW_RM_FOLLOW);
		if (plain && f->rec.mode == HW_RM_DEC) {
			hw_gcm_decrypt_ghash(cx, f, off, d, cx->out, m);
		} else {
			if (plain)
				hw_gcm_decrypt(cx, f, off, d, cx->out, m);
			if (f->rec.mode == HW_RM_DEC ||
			    f->rec.mode == HW_RM_VERIFY)
				hw_gcm_ghash(f, d, m);
		}
		if (HW_FMT(f)->appdata_outer) {
			if (plain)
				inner_scan(f, off, cx->out, m);
			else
				f->rec.inner_valid = false;
		}
		if (unlikely(f->rec.crypto_err))
			hw_record_crypto_fail(cx, f);
		f->rec.pos += m;
		return m;
	}
	m = hw_min_u32(n, f->rec.len - f->rec.pos);
	memcpy(f->gcm.tag + (f->rec.pos - (f->rec.len - HW_TLS_TAG)), d, m);
	if (emit)
		memcpy(cx->out, d, m);
	f->rec.pos += m;
	if (f->rec.pos == f->rec.len)
		record_end(cx, f);
	return m;
}

/* in-order new bytes [seq, seq + n) */
static void stream_bytes(struct hw_rx_ctx *cx, struct hw_flow *f, u32 seq,
			 const u8 *d, u32 n)
{
	if (f->ro.valid)
		hw_ro_post(f, seq, d, n);
	while (n) {
		u32 lim = n, m;

		if (f->hint.valid) {
			if (hw_seq_after(seq, f->hint.seq)) {
				f->hint.valid = false;	/* passed: stale */
				HW_STAT_INC(cx->eng, f, resync_skip);
			} else if (seq == f->hint.seq) {
				hint_reached(cx, f);
			}
			if (f->hint.valid && hw_seq_before(seq, f->hint.seq) &&
			    hw_seq_before(f->hint.seq, seq + n))
				lim = f->hint.seq - seq;
		}
		if (f->state == HW_FS_SEARCH)
			m = search_step(cx, f, seq, d, lim);
		else
			m = record_step(cx, f, d, lim, n);
		seq += m;
		d += m;
		cx->out += m;
		n -= m;
		f->exp_seq = seq;
	}
}

/* a gap [exp_seq, seq) in the stream */
static void stream_gap(struct hw_rx_ctx *cx, struct hw_flow *f, u32 seq)
{
	u32 gap = seq - f->exp_seq;

	/*
	 * Unconfirmed until a record after it verifies (record_end()); old
	 * frames in a row take it back (rearm_watch()).  A jump on top
	 * of an unconfirmed one (or of a re-anchor) keeps the frontier from
	 * before the first: the old data that takes it back goes there.
	 */
	if (!f->jump.pending && !f->far.armed)
		f->jump.old_hi = f->exp_seq;
	f->jump.pending = true;
	f->jump.old_run = 0;

	if (f->hint.valid && !hw_seq_before(f->hint.seq, f->exp_seq) &&
	    hw_seq_before(f->hint.seq, seq)) {
		f->hint.valid = false;
		HW_STAT_INC(cx->eng, f, resync_skip);
	}
	if (f->ro.valid)
		hw_ro_add_gap(f, seq);
	if (f->state == HW_FS_SEARCH) {
		f->ncarry = 0;
		f->exp_seq = seq;
		return;
	}
	if (f->rec.pos >= HW_TLS_HDR && gap <= f->rec.len - f->rec.pos) {
		/* no header in the gap: keep following, record damaged */
		HW_STAT_INC(cx->eng, f, holes);
		f->rec.hole = true;
		f->rec.inner_valid = false;
		if (hw_rm_decrypts(f->rec.mode) &&
		    f->rec.pos >= HW_PFX(f) && f->rec.anchored) {
			f->rec.mode = HW_RM_DECNA;
		} else {
			/*
			 * An unanchored prefix may be an injected one: the
			 * rest is not decrypted without the tag.
			 */
			if (hw_rm_decrypts(f->rec.mode))
				HW_STAT_INC(cx->eng, f, unanchored);
			f->rec.mode = HW_RM_FOLLOW;
			f->rec.key = NULL;
			/*
			 * TLS 1.3: its length also counts the records after
			 * it, and the count is in their keystream: verify
			 * the next one before marking (seed 50328681: a
			 * forged header covering two records, the first of
			 * them lost).
			 */
			if (!HW_FMT(f)->explicit_nonce &&
			    f->state == HW_FS_SYNC)
				hw_set_state(cx, f, HW_FS_SHADOW);
		}
		f->rec.pos += gap;
		f->exp_seq = seq;
		if (f->rec.pos == f->rec.len)
			record_end(cx, f);
		return;
	}
	if (cx->eng->reorder_recovery)
		hw_ro_start(f, seq);
	f->exp_seq = seq;
	lose_sync_search(cx, f, HW_EV_LOST_GAP);
}

/*
 * Wholly old frame while a forward jump is unconfirmed (no record verified
 * since it).  HW_REARM_OLD_FRAMES of them in a row: the stream is really at the
 * old data's frontier, so go back there and look for a record boundary
 * (resync) instead of waiting for the stream to pass the bogus position.
 * The frontier only grows by old data that continues it: a stray frame
 * between it and the bogus position must not move it there.
 */
static void rearm_watch(struct hw_rx_ctx *cx, struct hw_flow *f, u32 seq,
			u32 end)
{
	if (!hw_seq_after(seq, f->jump.old_hi) &&
	    hw_seq_after(end, f->jump.old_hi))
		f->jump.old_hi = end;
	if (++f->jump.old_run < HW_REARM_OLD_FRAMES)
		return;
	f->jump.pending = false;
	f->jump.old_run = 0;
	f->far.armed = false;
	HW_STAT_INC(cx->eng, f, rearmed);
	cx->events |= HW_EV_REARMED;
	hw_ro_cancel(f);
	f->exp_seq = f->jump.old_hi;
	lose_sync_search(cx, f, HW_EV_REARMED);
}

/*
 * A frame beyond max_ahead: true once HW_FAR_REANCHOR_FRAMES of them came
 * in a row, each starting where the previous one ended.
 */
static bool far_watch(struct hw_flow *f, u32 seq, u32 end)
{
	if (!f->far.run || seq != f->far.next) {
		f->far.run = 0;
		/* an unconfirmed position is not where old data goes back to */
		f->far.from = f->jump.pending || f->far.armed ?
			      f->jump.old_hi : f->exp_seq;
	}
	f->far.next = end;
	if (++f->far.run < HW_FAR_REANCHOR_FRAMES)
		return false;
	f->far.run = 0;
	return true;
}

/* ------------------------------------------------------------------ */
/* frame parsing                                                      */
/* ------------------------------------------------------------------ */

/*
 * One's complement sums come from the platform (hw_csum_partial(), see
 * hw_port.h): the kernel's csum_partial() in the module, a vectorised one
 * on the host.  Partial sums of even-length pieces add up.
 */
static inline u64 sum16_add(u64 sum, const u8 *p, u32 len)
{
	return sum + hw_csum_partial(p, len);
}

/* native-endian 32-bit load, no alignment assumption */
static inline u32 load32_ne(const u8 *p)
{
	u32 v;

	memcpy(&v, p, 4);
	return v;
}

static u16 sum16_fold(u64 sum)
{
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (u16)sum;
}

struct hw_parsed_frame {
	struct hw_flow_tuple t;
	u32 l4, l4len, seq, ack;
	u16 win;
	u8 flags;
};

/* parse Ethernet/IPv4|IPv6/TCP and validate checksums; 0 = not TCP */
static int parse_frame(const u8 *fr, u32 len, struct hw_parsed_frame *p,
		       bool *csum_ok)
{
	u32 off = 14, doff;
	u16 et;
	u8 ph[4];
	u64 sum;

	*csum_ok = false;
	if (len < 14)
		return 0;
	memset(&p->t, 0, sizeof(p->t));
	et = hw_get_be16(fr + 12);
	if (et == 0x8100) {
		if (len < 18)
			return 0;
		u16 vid = hw_get_be16(fr + 14) & 0xfff;

		/*
		 * VID 0 is a priority tag: the stack delivers the frame as
		 * untagged, so it belongs to the untagged flow.
		 */
		p->t.vlan = vid ? (u16)(HW_VLAN_TAGGED | vid) : 0;
		et = hw_get_be16(fr + 16);
		off = 18;
	}
	if (et == 0x0800) {
		const u8 *ip = fr + off;
		u32 ihl, tot;

		if (len < off + 20 || (ip[0] >> 4) != 4)
			return 0;
		ihl = (ip[0] & 15u) * 4;
		tot = hw_get_be16(ip + 2);
		if (ihl < 20 || tot < ihl || off + tot > len)
			return 0;
		if ((hw_get_be16(ip + 6) & 0x3fff) || ip[9] != 6)
			return 0;
		/* the usual 20-byte header: five words, no call */
		if (ihl == 20)
			sum = (u64)load32_ne(ip) + load32_ne(ip + 4) +
			      load32_ne(ip + 8) + load32_ne(ip + 12) +
			      load32_ne(ip + 16);
		else
			sum = sum16_add(0, ip, ihl);
		if (sum16_fold(sum) != 0xffff)
			return 0;
		p->t.family = 4;
		memcpy(p->t.saddr, ip + 12, 4);
		memcpy(p->t.daddr, ip + 16, 4);
		p->l4 = off + ihl;
		p->l4len = tot - ihl;
		/* pseudo header addresses, as two native 32-bit words */
		sum = (u64)load32_ne(ip + 12) + load32_ne(ip + 16);
	} else if (et == 0x86dd) {
		const u8 *ip = fr + off;
		u32 pl;

		if (len < off + 40 || (ip[0] >> 4) != 6 || ip[6] != 6)
			return 0;
		pl = hw_get_be16(ip + 4);
		if (off + 40 + pl > len)
			return 0;
		p->t.family = 6;
		memcpy(p->t.saddr, ip + 8, 16);
		memcpy(p->t.daddr, ip + 24, 16);
		p->l4 = off + 40;
		p->l4len = pl;
		sum = sum16_add(0, ip + 8, 32);
	} else {
		return 0;
	}
	if (p->l4len < 20)
		return 0;
	doff = (fr[p->l4 + 12] >> 4) * 4u;
	if (doff < 20 || doff > p->l4len)
		return 0;
	p->t.sport = hw_get_be16(fr + p->l4);
	p->t.dport = hw_get_be16(fr + p->l4 + 2);
	p->seq = hw_get_be32(fr + p->l4 + 4);
	p->ack = hw_get_be32(fr + p->l4 + 8);
	p->win = hw_get_be16(fr + p->l4 + 14);
	p->flags = fr[p->l4 + 13];
	/* pseudo header: addresses (above), protocol, TCP length */
	ph[0] = 0;
	ph[1] = 6;
	hw_put_be16(ph + 2, (u16)p->l4len);
	sum += load32_ne(ph);
	sum = sum16_add(sum, fr + p->l4, p->l4len);
	*csum_ok = sum16_fold(sum) == 0xffff;
	/* payload: [l4 + doff, l4 + l4len) */
	return (int)doff;
}

/*
 * Data of a connection without a flow passes untouched, but the driver
 * installing its flow needs to know how far it went: a frame past the
 * NIC may still be on its way to the socket (GRO, the stack) when the
 * driver reads the socket's data at install. A SYN starts the slot over
 * (a new connection on the same tuple numbers its bytes anew).
 */
static void untracked_note(struct hw_engine *eng,
			   const struct hw_parsed_frame *p, u32 plen)
{
	struct hw_untracked *u;
	u32 end = p->seq + plen;
	bool syn = p->flags & 0x02;

	/*
	 * Bare ACKs (most frames without a flow), RST, or no ACK: TCP takes
	 * no data from them; checked before the hash
	 */
	if (!syn && (!plen || (p->flags & 0x04) || !(p->flags & 0x10)))
		return;
	u = &eng->untracked[tuple_hash(&p->t) & (HW_UNTRACKED_SLOTS - 1)];
	if (syn) {
		u->t = p->t;
		u->used = false;
		return;
	}
	if (!u->used || !tuple_eq(&u->t, &p->t)) {
		u->t = p->t;
		u->end = end;
		u->used = true;
	} else if (hw_seq_after(end, u->end)) {
		u->end = end;
	}
}

bool hw_engine_untracked_end(const struct hw_engine *eng,
			     const struct hw_flow_tuple *tuple, u32 *end)
{
	struct hw_flow_tuple t = tuple_norm(tuple);
	const struct hw_untracked *u;

	u = &eng->untracked[tuple_hash(&t) & (HW_UNTRACKED_SLOTS - 1)];
	if (!u->used || !tuple_eq(&u->t, &t))
		return false;
	*end = u->end;
	return true;
}

/*
 * The records decrypted in this frame count as decrypted only if it goes
 * up marked: the kernel decrypts in software a record any frame of which
 * came up unmarked (an unmarked frame may still end a record the engine
 * decrypted, when it also carries bytes it could not decrypt). A verified
 * record wholly in a marked frame reaches the host decrypted too; in an
 * unmarked one it is what it was, a record passed encrypted.
 */
static void frame_done(struct hw_rx_ctx *cx, struct hw_flow *f, bool marked)
{
	if (marked) {
		HW_STAT_ADD(cx->eng, f, decrypted_records,
			    cx->dec_done + cx->ver_done);
		HW_STAT_ADD(cx->eng, f, tls13_decrypted_records, cx->dec13_done);
		return;
	}
	HW_STAT_ADD(cx->eng, f, unmarked_records, cx->dec_done);
	if (f->rec.pos)
		f->rec.unmarked = true;
}

int hw_engine_rx(struct hw_engine *eng, const u8 *frame, u32 len, u8 *out,
		 struct hw_rx_completion *c)
{
	struct hw_rx_ctx cx = { .eng = eng, .markable = true };
	struct hw_parsed_frame p;
	struct hw_flow *f;
	u32 poff, plen, seq, end;
	bool csum_ok;
	int doff;

	memset(c, 0, sizeof(*c));
	eng->st.rx_frames++;
	doff = parse_frame(frame, len, &p, &csum_ok);
	if (!doff)
		return 0;
	c->is_tcp = true;
	poff = p.l4 + (u32)doff;
	plen = p.l4len - (u32)doff;
	c->tcp_seq = p.seq;
	c->payload_off = poff;
	c->payload_len = plen;
	c->csum_ok = csum_ok;
	f = flow_lookup(eng, &p.t);
	if (!csum_ok) {
		eng->st.bad_csum++;
		if (f)
			f->st[HW_STAT_IDX(bad_csum)]++;
		return 0;
	}
	if (!f) {
		untracked_note(eng, &p, plen);
		return 0;
	}
	c->is_tls_flow = true;
	c->flow = flow_handle(eng, f);
	HW_STAT_INC(eng, f, tls_frames);
	/* SYN/RST: not stream data we follow */
	if (!plen || (p.flags & 0x06))
		return 0;
	/* an established connection drops data without ACK (RFC 9293 3.10.7.4) */
	if (!(p.flags & 0x10)) {
		HW_STAT_INC(eng, f, no_ack_frames);
		return 0;
	}
	/*
	 * ... and data acknowledging bytes the host never sent, or bytes so
	 * old no window could still hold them (RFC 5961 5.2).  A genuine peer
	 * can only acknowledge what this port transmitted, so the NIC's view
	 * of snd_nxt is never behind it.
	 */
	if (eng->ack_check && f->snd_known &&
	    (hw_seq_after(p.ack, f->snd_nxt) ||
	     (f->ack_span && hw_seq_before(p.ack, f->snd_nxt - f->ack_span)))) {
		HW_STAT_INC(eng, f, bad_ack_frames);
		return 0;
	}
	/*
	 * ... and data starting at or beyond the window's right edge
	 * (RFC 9293 3.10.7.4; tcp_sequence(), tcp_data_queue()): no peer
	 * was told of an edge the NIC did not carry out.
	 */
	if (eng->window_check && f->edge_known &&
	    !hw_seq_before(p.seq, f->rcv_edge)) {
		HW_STAT_INC(eng, f, out_of_window_frames);
		return 0;
	}

	seq = p.seq;
	end = seq + plen;
	cx.out = out + poff;
	if (!f->exp_valid) {
		f->exp_valid = true;
		f->exp_seq = seq;
		if (f->state != HW_FS_SEARCH)
			hw_chain_reset(f, seq);
	}
	if (hw_seq_after(seq, f->exp_seq) &&
	    seq - f->exp_seq > f->jump.max_ahead) {
		/* beyond any receive window: not stream data */
		HW_STAT_INC(eng, f, far_frames);
		if (!far_watch(f, seq, end))
			return 0;
		/* TCP took data the NIC never saw: follow the stream there */
		HW_STAT_INC(eng, f, far_reanchor);
		cx.events |= HW_EV_REANCHORED;
		hw_ro_cancel(f);
		f->hint.valid = false;
		f->exp_seq = seq;
		lose_sync_search(&cx, f, HW_EV_REANCHORED);
		/* the old frontier wins back if old data follows (rearm) */
		f->far.armed = true;
		f->jump.old_run = 0;
		f->jump.old_hi = f->far.from;
	}
	if (!f->rec.anchored && f->rec.pfx_n == HW_PFX(f))
		pfx_seal(f, seq);
	if (!hw_seq_after(end, f->exp_seq)) {
		/* old data: never marked, but it may close a gap's chain */
		HW_STAT_INC(eng, f, old_frames);
		pfx_check(&cx, f, seq, frame + poff, plen);
		if (f->ro.valid) {
			hw_ro_feed(f, seq, frame + poff, plen, false);
			hw_ro_try(&cx, f);
		}
		if (f->jump.pending || f->far.armed)
			rearm_watch(&cx, f, seq, end);
		c->events = cx.events;
		return 0;
	}
	cx.frame_end = end;
	cx.in_order = seq == f->exp_seq;
	/*
	 * New data: old frames are no longer in a row.  It does not confirm
	 * a jump (an injector can send a contiguous run after its first
	 * frame); a record verified beyond it does (record_end()).
	 */
	f->far.run = 0;
	f->jump.old_run = 0;
	if (hw_seq_before(seq, f->exp_seq)) {
		u32 skip = f->exp_seq - seq;

		HW_STAT_INC(eng, f, overlap_frames);
		if (!pfx_check(&cx, f, seq, frame + poff, skip) && f->ro.valid) {
			hw_ro_feed(f, seq, frame + poff, skip, false);
			hw_ro_try(&cx, f);
		}
		/*
		 * Two copies of part of the record disagree in their cut: if
		 * its prefix may be injected, verify before marking again.
		 */
		if (f->rec.mode == HW_RM_DEC && !f->rec.anchored) {
			f->rec.mode = HW_RM_VERIFY;
			HW_STAT_INC(eng, f, unanchored);
		}
		cx.markable = false;
		cx.out += skip;
		stream_bytes(&cx, f, f->exp_seq, frame + poff + skip,
			     plen - skip);
	} else {
		if (hw_seq_after(seq, f->exp_seq))
			stream_gap(&cx, f, seq);
		stream_bytes(&cx, f, seq, frame + poff, plen);
	}

	if (f->ro.valid && f->exp_seq - f->ro.seq > HW_RO_MAX_SPAN)
		hw_ro_cancel(f);
	c->events = cx.events;
	if (cx.req) {
		c->resync_req = true;
		c->resync_seq = cx.req_seq;
		HW_STAT_INC(eng, f, resync_req);
	}
	c->crypto_done = cx.markable;
	c->crypto_success = cx.markable && !cx.tag_fail;
	c->auth_fail = cx.tag_fail;
	frame_done(&cx, f, hw_rx_decrypted(c));
	if (hw_rx_decrypted(c)) {
		memcpy(out, frame, poff);
		memcpy(out + poff + plen, frame + poff + plen,
		       len - poff - plen);
		HW_STAT_INC(eng, f, decrypted_frames);
		HW_STAT_ADD(eng, f, decrypted_bytes, plen);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* commands                                                           */
/* ------------------------------------------------------------------ */

void hw_engine_tx(struct hw_engine *eng, const u8 *frame, u32 len)
{
	struct hw_parsed_frame p;
	struct hw_flow_tuple r;
	struct hw_flow *f;
	bool csum_ok;
	u32 end;
	int doff;

	doff = parse_frame(frame, len, &p, &csum_ok);
	if (!doff)
		return;
	/* the reverse direction's tuple is the received frames' one */
	r = p.t;
	memcpy(r.saddr, p.t.daddr, sizeof(r.saddr));
	memcpy(r.daddr, p.t.saddr, sizeof(r.daddr));
	r.sport = p.t.dport;
	r.dport = p.t.sport;
	f = flow_lookup(eng, &r);
	if (!f)
		return;
	/* SYN and FIN take one sequence number each */
	end = p.seq + (p.l4len - (u32)doff) + !!(p.flags & 0x02) +
	      !!(p.flags & 0x01);
	if (!f->snd_known || hw_seq_after(end, f->snd_nxt)) {
		f->snd_known = true;
		f->snd_nxt = end;
	}
	/* the window it advertises (never shrunk: the edge only grows) */
	if (f->edge_known && (p.flags & 0x12) == 0x10) {
		end = p.ack + ((u32)p.win << f->wscale);
		if (hw_seq_after(end, f->rcv_edge))
			f->rcv_edge = end;
	}
}

void hw_engine_set_ack_check(struct hw_engine *eng, bool on)
{
	eng->ack_check = on;
}

bool hw_engine_ack_check(const struct hw_engine *eng)
{
	return eng->ack_check;
}

void hw_engine_set_window_check(struct hw_engine *eng, bool on)
{
	eng->window_check = on;
}

bool hw_engine_window_check(const struct hw_engine *eng)
{
	return eng->window_check;
}

static bool tuple_valid(const struct hw_flow_tuple *t)
{
	return (t->family == 4 || t->family == 6) &&
	       (!t->vlan || (t->vlan & ~0xfffu) == HW_VLAN_TAGGED);
}

int hw_engine_flow_add(struct hw_engine *eng, const struct hw_flow_params *p,
		       u32 *handle)
{
	struct hw_flow *f;
	struct hw_flow_tuple t;
	u32 i, b;
	u16 gen;

	if (!p->key || !tuple_valid(&p->tuple) ||
	    p->version >= HW_TLS_NVERSIONS) {
		eng->st.add_fail++;
		return -EINVAL;
	}
	t = tuple_norm(&p->tuple);
	if (flow_lookup(eng, &t)) {
		eng->st.add_fail++;
		return -EEXIST;
	}
	if (!eng->free_head) {
		eng->st.add_fail++;
		return -ENOSPC;
	}
	i = eng->free_head - 1;
	f = &eng->flows[i];
	eng->free_head = f->hnext;
	gen = f->gen;
	memset(f, 0, sizeof(*f));
	f->gen = gen;
	f->used = true;
	f->t = t;
	f->jump.max_ahead = p->max_ahead ?: HW_FLOW_MAX_AHEAD_DEFAULT;
	f->snd_known = p->snd_known;
	f->snd_nxt = p->snd_nxt;
	/* two largest windows in flight and acknowledged, a FIN and a probe */
	if (p->peer_wscale_known && p->peer_wscale <= 13)
		f->ack_span = 2 * (0xffffu << p->peer_wscale) + 2;
	f->edge_known = p->rcv_edge_known && p->rcv_wscale <= 14;
	f->rcv_edge = p->rcv_edge;
	f->wscale = p->rcv_wscale;
	f->keys.cur.k = p->key;
	f->keys.cur.from_rn = p->start_rn;
	f->version = p->version;
	memcpy(f->keys.cur.iv, p->salt, 4);
	memcpy(f->keys.cur.iv + 4, p->iv, 8);
	f->keys.end_rn = HW_NO_END;
	if (p->start_synced && (!p->stream_known ||
				p->stream_seq == p->start_seq)) {
		f->exp_valid = true;
		f->exp_seq = p->start_seq;
		start_at_record(NULL, f, p->start_seq, p->start_rn);
	} else {
		f->state = HW_FS_SEARCH;
		/*
		 * Anchored where the socket's stream goes on, never at the
		 * first frame that happens to come (it may be a stray one).
		 */
		f->exp_valid = p->stream_known;
		f->exp_seq = p->stream_seq;
		if (p->start_synced &&
		    hw_seq_after(p->start_seq, p->stream_seq) &&
		    p->start_seq - p->stream_seq <= f->jump.max_ahead) {
			/* a record straddles the anchor: sync at the next */
			f->hint.valid = true;
			f->hint.seq = p->start_seq;
			f->hint.rn = p->start_rn;
		}
	}
	b = tuple_hash(&t) & (eng->nbuckets - 1);
	f->hnext = eng->buckets[b];
	eng->buckets[b] = i + 1;
	eng->nflows++;
	eng->st.flows_added++;
	f->st[HW_STAT_IDX(flows_added)] = 1;
	*handle = flow_handle(eng, f);
	return 0;
}

int hw_engine_flow_del(struct hw_engine *eng, u32 handle,
		       struct hw_key_reap *reap)
{
	struct hw_flow *f = flow_by_handle(eng, handle);
	u32 i, *pp;
	u16 gen;

	if (!f)
		return -ENOENT;
	i = (u32)(f - eng->flows) + 1;
	pp = &eng->buckets[tuple_hash(&f->t) & (eng->nbuckets - 1)];
	while (*pp && *pp != i)
		pp = &eng->flows[*pp - 1].hnext;
	if (*pp)
		*pp = f->hnext;
	if (eng->last_flow == i)
		eng->last_flow = 0;
	reap_add(reap, &f->keys.cur.k);
	reap_add(reap, &f->keys.nxt.k);
	reap_add(reap, &f->keys.retired);
	gen = f->gen;
	hw_memzero_explicit(f, sizeof(*f));
	f->gen = (u16)(gen + 1) ? (u16)(gen + 1) : 1;
	f->hnext = eng->free_head;
	eng->free_head = i;
	eng->nflows--;
	eng->st.flows_deleted++;
	return 0;
}

int hw_engine_flow_key_update(struct hw_engine *eng, u32 handle,
			      struct hw_crypto_key *key,
			      const u8 iv[HW_TLS_IV_LEN], u64 rn,
			      struct hw_key_reap *reap)
{
	struct hw_flow *f = flow_by_handle(eng, handle);
	struct hw_key_slot ns;
	bool late = false;

	if (!f)
		return -ENOENT;
	if (!key)
		return -EINVAL;
	memset(&ns, 0, sizeof(ns));
	ns.k = key;
	ns.from_rn = rn;
	ns.from_update = true;
	memcpy(ns.iv, iv, HW_TLS_IV_LEN);

	if (f->rn_known && f->state != HW_FS_SEARCH) {
		u64 cur = f->rec.idx + f->rn_off;

		late = f->rec.pos ? cur >= rn : cur > rn;
	}
	reap_add(reap, &f->keys.retired);
	if (f->keys.nxt.k == f->rec.key && f->rec.key)
		f->rec.mode = HW_RM_FOLLOW;
	reap_add(reap, &f->keys.nxt.k);
	memset(&f->keys.nxt, 0, sizeof(f->keys.nxt));
	if (late || f->keys.cur.bad) {
		/*
		 * late: records >= rn already passed; bad: the current key
		 * failed verification.  Either way the new key takes over
		 * now and is verified first.
		 */
		if (f->keys.cur.k == f->rec.key && f->rec.key) {
			f->rec.mode = HW_RM_FOLLOW;
			f->rec.key = NULL;
		}
		reap_add(reap, &f->keys.cur.k);
		f->keys.cur = ns;
		f->keys.end_rn = HW_NO_END;
		if (late) {
			if (f->state != HW_FS_TRACK)
				f->state = HW_FS_SHADOW;
			HW_STAT_INC(eng, f, key_late);
		} else if (f->state == HW_FS_NOKEY) {
			f->state = HW_FS_SHADOW;
		}
	} else {
		f->keys.nxt = ns;
	}
	HW_STAT_INC(eng, f, key_updates);
	return 0;
}

void hw_engine_fini(struct hw_engine *eng)
{
	u32 i;

	for (i = 0; i < eng->capacity; i++) {
		struct hw_flow *f = &eng->flows[i];

		if (f->used)
			hw_engine_flow_del(eng, flow_handle(eng, f), NULL);
	}
}

/* ------------------------------------------------------------------ */
/* observability                                                      */
/* ------------------------------------------------------------------ */

const char *hw_flow_state_name(enum hw_flow_state s)
{
	switch (s) {
	case HW_FS_SEARCH:
		return "search";
	case HW_FS_TRACK:
		return "track";
	case HW_FS_SHADOW:
		return "shadow";
	case HW_FS_SYNC:
		return "sync";
	case HW_FS_NOKEY:
		return "nokey";
	}
	return "?";
}

int hw_engine_flow_info(const struct hw_engine *eng, u32 handle,
			struct hw_flow_info *info)
{
	const struct hw_flow *f = flow_by_handle(eng, handle);
	size_t i;

	if (!f)
		return -ENOENT;
	memset(info, 0, sizeof(*info));
	info->tuple = f->t;
	info->state = f->state;
	info->expected_seq = f->exp_seq;
	info->record_seq = f->rec.seq;
	info->record_num_known = f->rn_known && f->state != HW_FS_SEARCH;
	info->record_num = info->record_num_known ? f->rec.idx + f->rn_off : 0;
	info->record_pos = f->rec.pos;
	info->record_len = f->rec.len;
	info->key_pending = !!f->keys.nxt.k;
	info->key_switch_rn = f->keys.nxt.k ? f->keys.nxt.from_rn : 0;
	for (i = 0; i < HW_STATS_N; i++)
		((u64 *)&info->stats)[i] = f->st[i];
	info->reorder_pending = f->ro.valid;
	info->auth_fail_run = f->auth_fail_run;
	/* only while it still follows the records from there */
	info->nokey_known = f->nokey_known && f->state == HW_FS_NOKEY &&
			    info->record_num_known;
	if (info->nokey_known) {
		info->nokey_seq = f->nokey_seq;
		info->nokey_rn = f->nokey_rn;
	}
	return 0;
}

void hw_engine_stats(const struct hw_engine *eng, struct hw_stats *st)
{
	*st = eng->st;
}

void hw_engine_resync_hist(const struct hw_engine *eng,
			   u32 hist[HW_RESYNC_HIST])
{
	memcpy(hist, eng->resync_hist, sizeof(eng->resync_hist));
}

void hw_engine_resync_hist_reset(struct hw_engine *eng)
{
	memset(eng->resync_hist, 0, sizeof(eng->resync_hist));
}

u32 hw_engine_flow_count(const struct hw_engine *eng)
{
	return eng->nflows;
}

u32 hw_engine_flow_next(const struct hw_engine *eng, u32 prev)
{
	u32 i = prev & 0xffff;

	for (; i < eng->capacity; i++) {
		if (eng->flows[i].used)
			return flow_handle(eng, &eng->flows[i]);
	}
	return 0;
}
