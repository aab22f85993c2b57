// SPDX-License-Identifier: GPL-2.0
/*
 * Innova hardware model: TLS 1.2 AES-GCM RX engine (record tracker, resync
 * state machine, streaming GCM).  Pure C, builds unchanged in the kernel
 * module and on the host (see include/innova/hw_port.h).
 *
 * ---------------------------------------------------------------------------
 * Flow states (enum hw_flow_state) and transitions
 * ---------------------------------------------------------------------------
 *  SEARCH  No record boundary known.  Every new in-order byte is scanned for
 *          a plausible header (type 0x14..0x18, 03 03, 24 <= L <= 2^14+24),
 *          also across frame boundaries (4 carried bytes).
 *          -> TRACK   candidate found; a resync request for its
 *                     header_start+4 goes out with THIS frame.
 *          -> SHADOW  a remembered resync hint (seq ahead of the stream,
 *                     e.g. CORE_NEXT_HINT) is reached.
 *          -> SYNC/SHADOW  reorder recovery (below).
 *  TRACK   Following record lengths from a candidate header (record
 *          numbers unknown).  Every followed header goes into a ring
 *          (seq, chain index); requests are re-issued with exponential
 *          back-off in chain index (0, 1, 3, 7, ...) so a lagging strparser
 *          can still match one.
 *          -> SHADOW  resync confirmation for a ring seq (record number =
 *                     rn + records followed since), or hint reached.
 *          -> SEARCH  a followed header is implausible, or a gap may hold
 *                     a header.
 *          -> SYNC/SHADOW  reorder recovery (below).
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
 * VERIFY (passed wholly encrypted, tag still checked).  Old data is untouched and
 * changes nothing; partly old data is untouched and its new bytes advance
 * the state with the frame unmarkable.  A gap inside a record whose length
 * is known keeps sync (the record becomes FOLLOW); any other gap loses it.
 *
 * Reorder recovery ("reorder-good", tls-offload.rst).  When a gap loses
 * sync while record numbers are known (SYNC, SHADOW, NOKEY), the engine
 * remembers the current record (header seq, header bytes seen, number),
 * whether it was SYNC, and the gap, plus the first RO_POST in-order bytes
 * after it (a header may straddle the gap's end).  Stream scan, candidate
 * following and resync requests go on exactly as before.  Old data (the
 * late frame, a retransmit, its duplicates, pieces of it in any order) is
 * still never marked and changes no stream state, but is READ: the walk
 * takes the true header(s) from it and steps from record to record
 * (several headers per late frame, several late frames per gap, up to
 * RO_GAPS gaps in a row, CCS records noted for the key epoch) while the
 * next header lies before the stream position.  It ends
 *  - caught up: the walk reaches the record containing exp_seq; that
 *    record becomes the current one (candidates followed since lay inside
 *    it, so they were false and the chain restarts there);
 *  - connected: the walk reaches a header the engine followed (ring): its
 *    chain index now has a number;
 *  - given up: the next header lies in bytes that passed unread (neither
 *    a gap nor kept) or the walk got too long (RO_MAX_SPAN): the resync
 *    path simply continues; nothing was changed.
 * On success the numbers are set without a kernel round trip
 * (reorder_recovered, HW_EV_REORDER_RECOVERED).  A kernel confirmation
 * for an earlier request then agrees (resync_ok) or names a seq no longer
 * known (resync_skip); a kernel-supplied number (confirmation, hint)
 * arriving first cancels the walk.  No shadow record: the SHADOW rule above asks
 * for one when numbers come from outside; here the boundaries are the
 * ones the kernel's strparser parses from the same bytes, counted from a
 * boundary whose number and key were verified (SYNC before the gap), and
 * the GCM nonce comes from the record itself, so plaintext only depends
 * on key and boundary.  Every record decrypted afterwards still has its
 * tag checked.  If the flow was not SYNC before the gap, or the key in
 * use has not been verified, it resumes in SHADOW instead.  The record
 * in progress when sync returns already went up partly untouched: in
 * SYNC, with its prefix (nonce) known and no hole in it, its rest is
 * DECNA (mixed anyway, like after a hole) so the next record starts in a
 * markable frame; else it is followed.  State: fixed size per flow.
 * ---------------------------------------------------------------------------
 */
#include <innova/hw_engine.h>

#define TLS_HDR		5
#define TLS_PREFIX	13	/* header + explicit nonce */
#define TLS_TAG		16
#define TLS_L_MIN	24
#define TLS_L_MAX	(HW_TLS_MAX_PLAIN + 24)
#define TLS_CT_CCS	0x14

#define RING_N		16
#define REQ_N		4
#define NO_END		(~(u64)0)

#define RO_GAPS		4		/* gaps remembered while recovering */
#define RO_POST		(TLS_PREFIX - 1)	/* bytes kept after a gap */
#define RO_MAX_SPAN	0x100000u	/* give up 1 MiB behind the stream */

/*
 * After the stream jumped forward, this many frames in a row that bring
 * nothing new mean the jump was not stream data (a stray or injected
 * segment): the position is taken back to the old data's frontier.  A real
 * gap is followed by new data within a few frames (the rest of the
 * sender's flight); the retransmissions that fill a hole inside one record
 * (which keeps sync) are at most 12 frames of a 16 KiB record.
 */
#define REARM_OLD_FRAMES	16

enum rec_mode {
	RM_FOLLOW = 0,	/* length only */
	RM_VERIFY,	/* GHASH + tag check, delivered untouched */
	RM_DEC,		/* decrypt + GHASH + tag check */
	RM_DECNA,	/* after a hole in a DEC record: decrypt, no tag check */
};

static inline bool rm_decrypts(u8 m)
{
	return m == RM_DEC || m == RM_DECNA;
}

struct key_slot {
	struct hw_crypto_key *k;
	u64 from_rn;
	u8 salt[4];
	bool verified;		/* a tag under this key matched this stream */
	bool bad;		/* failed its first verification */
	bool from_update;	/* came from a key update command */
};

struct ring_ent {
	u32 seq;
	u64 idx;
};

/* a gap in the stream seen while recovering, with the bytes right after it */
struct ro_gap {
	u32 start;
	u32 end;
	u8 post[RO_POST];
	u8 npost;
};

struct hw_flow {
	u16 gen;
	bool used;
	u32 hnext;		/* hash chain / free list: index + 1, 0 = end */
	struct hw_flow_tuple t;
	enum hw_flow_state state;

	bool exp_valid;
	u32 exp_seq;

	/* current record (TRACK/SHADOW/SYNC/NOKEY) */
	u32 rec_seq;
	u32 rpos;
	u32 rlen;		/* 5 + L once rpos >= 5 */
	u64 idx;		/* chain index; rn = idx + rn_off */
	u64 rn_off;
	bool rn_known;
	u8 rmode;
	bool rhole;		/* a hole skipped bytes of this record */
	bool crypto_err;	/* a backend call failed (this record) */
	bool rfail;		/* record poisoned by a backend error */
	u8 hdr[TLS_PREFIX];
	struct hw_crypto_key *rkey;

	/* streaming GCM of the current record */
	u8 ghash[16];
	u8 gbuf[16];
	u8 gfill;
	bool ks_valid;
	u32 ks_blk;
	u8 ks[16];
	u8 ctr[16];
	u8 ekj0[16];
	u8 tag[16];

	/* SEARCH: last stream bytes before exp_seq */
	u8 carry[4];
	u8 ncarry;

	/* followed headers and issued requests (chain index space) */
	struct ring_ent ring[RING_N];
	u8 ring_n;
	u8 ring_head;
	struct ring_ent req[REQ_N];
	u8 req_n;
	u8 req_head;
	u64 next_req_idx;

	/*
	 * Reorder recovery: the true record chain, walked from the last known
	 * boundary across the gap(s) with late data (see the top comment).
	 */
	bool ro_valid;
	bool ro_sync;		/* was SYNC when the gap hit */
	u8 ro_pn;		/* prefix bytes of the walked record known */
	u8 ro_ngap;
	u8 ro_pre[TLS_PREFIX];
	u32 ro_seq;		/* walked record: header seq */
	u64 ro_rn;		/* and its record number */
	u64 ro_end_rn;		/* a walked CCS ends the key here */
	struct ro_gap ro_gap[RO_GAPS];

	/* forward jumps: bound, and taking back one that was not data */
	u32 max_ahead;
	bool jump_pending;	/* no new data since the last forward gap */
	u8 old_run;		/* wholly old frames since then */
	u32 old_hi;		/* highest end of that old data */

	/* resync hint for a seq ahead of the stream */
	bool hint_valid;
	u32 hint_seq;
	u64 hint_rn;

	/* keys */
	struct key_slot cur;
	struct key_slot nxt;
	struct hw_crypto_key *retired;
	u64 end_rn;		/* cur unusable from this record number */
	bool end_idx_valid;	/* CCS seen while numbers unknown */
	u64 end_idx;

	struct hw_stats st;
};

struct hw_engine {
	u32 capacity;
	u32 nbuckets;		/* power of two */
	u32 nflows;
	u32 free_head;		/* index + 1 */
	struct hw_flow *flows;
	u32 *buckets;		/* index + 1 */
	bool reorder_recovery;	/* read late frames to regain sync */
	u32 crypto_fail_next;	/* injected backend failures pending */
	struct hw_stats st;
};

/* per-frame scratch */
struct rx_ctx {
	struct hw_engine *eng;
	u8 *out;		/* output pointer for the current byte */
	bool markable;
	bool tag_fail;
	bool req;
	u32 req_seq;
	u32 events;
};

/* Count in the flow and engine-wide at once (fld: a struct hw_stats field). */
static inline void hw_stat_add(struct hw_stats *eng_st, struct hw_stats *flow_st,
			       size_t off, u64 v)
{
	*(u64 *)((u8 *)eng_st + off) += v;
	*(u64 *)((u8 *)flow_st + off) += v;
}

#define STAT_ADD(e, f, fld, v) \
	hw_stat_add(&(e)->st, &(f)->st, offsetof(struct hw_stats, fld), v)
#define STAT_INC(e, f, fld)	STAT_ADD(e, f, fld, 1)

static inline bool seq_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

static inline bool seq_after(u32 a, u32 b)
{
	return seq_before(b, a);
}

static inline u32 min_u32(u32 a, u32 b)
{
	return a < b ? a : b;
}

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
	return eng;
}

static inline u32 fnv_bytes(u32 h, const u8 *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static u32 tuple_hash(const struct hw_flow_tuple *t)
{
	/* FNV-1a over the fields that matter */
	u32 h = 2166136261u;

	if (t->family == 6) {
		h = fnv_bytes(h, t->saddr, 16);
		h = fnv_bytes(h, t->daddr, 16);
	} else {
		/* constant length: unrolled */
		h = fnv_bytes(h, t->saddr, 4);
		h = fnv_bytes(h, t->daddr, 4);
	}
	h = (h ^ (t->sport >> 8)) * 16777619u;
	h = (h ^ (t->sport & 0xff)) * 16777619u;
	h = (h ^ (t->dport >> 8)) * 16777619u;
	h = (h ^ (t->dport & 0xff)) * 16777619u;
	h = (h ^ t->family) * 16777619u;
	h = (h ^ (t->vlan >> 8)) * 16777619u;
	h = (h ^ (t->vlan & 0xff)) * 16777619u;
	return h ^ (h >> 16);
}

static bool tuple_eq(const struct hw_flow_tuple *a,
		     const struct hw_flow_tuple *b)
{
	return a->family == b->family && a->sport == b->sport &&
	       a->dport == b->dport && a->vlan == b->vlan &&
	       !memcmp(a->saddr, b->saddr, sizeof(a->saddr)) &&
	       !memcmp(a->daddr, b->daddr, sizeof(a->daddr));
}

static struct hw_flow *flow_lookup(struct hw_engine *eng,
				   const struct hw_flow_tuple *t)
{
	u32 i = eng->buckets[tuple_hash(t) & (eng->nbuckets - 1)];

	while (i) {
		struct hw_flow *f = &eng->flows[i - 1];

		if (tuple_eq(&f->t, t))
			return f;
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

static void ring_clear(struct hw_flow *f)
{
	f->ring_n = 0;
	f->ring_head = 0;
	f->req_n = 0;
	f->req_head = 0;
}

static void ring_push(struct ring_ent *r, u8 *n, u8 *head, u8 cap, u32 seq,
		      u64 idx)
{
	r[*head].seq = seq;
	r[*head].idx = idx;
	*head = (u8)((*head + 1) % cap);
	if (*n < cap)
		(*n)++;
}

static bool ring_find(const struct ring_ent *r, u8 n, u32 seq, u64 *idx)
{
	u8 i;

	for (i = 0; i < n; i++) {
		if (r[i].seq == seq) {
			*idx = r[i].idx;
			return true;
		}
	}
	return false;
}

static void set_state(struct rx_ctx *cx, struct hw_flow *f,
		      enum hw_flow_state s)
{
	if (f->state == HW_FS_SYNC && s != HW_FS_SYNC) {
		if (cx)
			cx->events |= HW_EV_SYNC_LOST;
	}
	f->state = s;
}

/* Start a new chain whose current record begins at seq (not yet seen). */
static void chain_reset(struct hw_flow *f, u32 seq)
{
	ring_clear(f);
	f->rec_seq = seq;
	f->rpos = 0;
	f->rlen = 0;
	f->idx = 0;
	f->rn_off = 0;
	f->rn_known = false;
	f->rmode = RM_FOLLOW;
	f->rhole = false;
	f->crypto_err = false;
	f->rfail = false;
	f->rkey = NULL;
	f->next_req_idx = 0;
	f->end_idx_valid = false;
}

/* why: HW_EV_LOST_*, reported when this really loses sync */
static void lose_sync_search(struct rx_ctx *cx, struct hw_flow *f, u32 why)
{
	if (f->state != HW_FS_SEARCH && f->state != HW_FS_TRACK) {
		STAT_INC(cx->eng, f, sync_lost);
		cx->events |= why;
	}
	set_state(cx, f, HW_FS_SEARCH);
	chain_reset(f, f->exp_seq);
	f->ncarry = 0;
}

/* ------------------------------------------------------------------ */
/* keys                                                               */
/* ------------------------------------------------------------------ */

/*
 * Key for the record about to start (number rn, chain index idx); commits a
 * pending switch.  NULL if no usable key.
 */
static struct key_slot *select_key(struct rx_ctx *cx, struct hw_flow *f,
				   u64 rn)
{
	bool ended = rn >= f->end_rn;

	/*
	 * Switch; the old key is parked in 'retired' until the next command
	 * hands it back.  Every key update empties 'retired' before filling
	 * 'nxt', so it is always free here; never free in this path.
	 */
	if (f->nxt.k && !f->retired && (rn >= f->nxt.from_rn || ended)) {
		f->retired = f->cur.k;
		f->cur = f->nxt;
		memset(&f->nxt, 0, sizeof(f->nxt));
		if (f->cur.from_rn > rn)
			f->cur.from_rn = rn;
		f->end_rn = NO_END;
		cx->events |= HW_EV_KEY_SWITCHED;
		ended = false;
		if (!f->cur.verified && f->state == HW_FS_SYNC)
			set_state(cx, f, HW_FS_SHADOW);
	}
	if (ended || !f->cur.k || f->cur.bad)
		return NULL;
	return &f->cur;
}

/* ------------------------------------------------------------------ */
/* crypto backend calls                                               */
/* ------------------------------------------------------------------ */

/*
 * Every backend call goes through these: an error (real, or injected for
 * the whole-block CTR call that can allocate in a real backend) sets
 * f->crypto_err, and the record step that made the call poisons the record
 * before the frame can be marked (crypto_fail()).
 */
static inline void crypto_status(struct hw_flow *f, int err)
{
	if (unlikely(err))
		f->crypto_err = true;
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
	crypto_status(f, hw_crypto_aes_block(f->rkey, in, out));
}

static void ghash_blocks(struct hw_flow *f, const u8 *in, u32 nblocks)
{
	crypto_status(f, hw_crypto_ghash(f->rkey, f->ghash, in, nblocks));
}

static void ctr_xor(struct rx_ctx *cx, struct hw_flow *f, const u8 ctr[16],
		    const u8 *in, u8 *out, u32 len)
{
	crypto_status(f, crypto_injected_fail(cx->eng) ?:
			 hw_crypto_ctr_xor(f->rkey, ctr, in, out, len));
}

static void ctr_xor_ghash(struct rx_ctx *cx, struct hw_flow *f,
			  const u8 ctr[16], const u8 *in, u8 *out, u32 nblocks)
{
	crypto_status(f, crypto_injected_fail(cx->eng) ?:
			 hw_crypto_ctr_xor_ghash(f->rkey, ctr, in, out, nblocks,
						 f->ghash));
}

/*
 * A backend call for the current record failed: its output (and maybe its
 * GHASH) is garbage.  Nothing of this frame is marked, the rest of the
 * record is only followed, and at its end the flow stops decrypting until
 * a resync (record_end()).
 */
static void crypto_fail(struct rx_ctx *cx, struct hw_flow *f)
{
	f->crypto_err = false;
	cx->markable = false;
	cx->events |= HW_EV_CRYPTO_ERR;
	if (f->rfail)
		return;
	f->rfail = true;
	f->rmode = RM_FOLLOW;
	f->rkey = NULL;
	STAT_INC(cx->eng, f, crypto_err);
}

/* ------------------------------------------------------------------ */
/* streaming GCM                                                      */
/* ------------------------------------------------------------------ */

/* J0, E_K(J0) and the AAD block of the current record */
static void gcm_init(struct rx_ctx *cx, struct hw_flow *f, const u8 salt[4])
{
	u8 blk[16];
	u32 clen = f->rlen - TLS_PREFIX - TLS_TAG;

	memcpy(f->ctr, salt, 4);
	memcpy(f->ctr + 4, f->hdr + TLS_HDR, 8);
	hw_put_be32(f->ctr + 12, 1);
	aes_block(f, f->ctr, f->ekj0);

	/* AAD: rec_seq(8) | type | 03 03 | plaintext length, zero padded */
	memset(blk, 0, sizeof(blk));
	hw_put_be64(blk, f->idx + f->rn_off);
	blk[8] = f->hdr[0];
	blk[9] = f->hdr[1];
	blk[10] = f->hdr[2];
	hw_put_be16(blk + 11, (u16)clen);
	memset(f->ghash, 0, sizeof(f->ghash));
	ghash_blocks(f, blk, 1);
	f->gfill = 0;
	f->ks_valid = false;
	if (unlikely(f->crypto_err))
		crypto_fail(cx, f);
}

static void gcm_ghash(struct hw_flow *f, const u8 *in, u32 n)
{
	u32 nb;

	if (f->gfill) {
		u32 m = min_u32(16u - f->gfill, n);

		memcpy(f->gbuf + f->gfill, in, m);
		f->gfill += (u8)m;
		in += m;
		n -= m;
		if (f->gfill < 16)
			return;
		ghash_blocks(f, f->gbuf, 1);
		f->gfill = 0;
	}
	nb = n / 16;
	if (nb) {
		ghash_blocks(f, in, nb);
		in += nb * 16;
		n -= nb * 16;
	}
	if (n) {
		memcpy(f->gbuf, in, n);
		f->gfill = (u8)n;
	}
}

static void ks_block(struct hw_flow *f, u32 blk)
{
	u8 c[16];

	if (f->ks_valid && f->ks_blk == blk)
		return;
	memcpy(c, f->ctr, 12);
	hw_put_be32(c + 12, 2 + blk);
	aes_block(f, c, f->ks);
	hw_memzero_explicit(c, sizeof(c));
	f->ks_blk = blk;
	f->ks_valid = true;
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
static void gcm_decrypt(struct rx_ctx *cx, struct hw_flow *f, u32 off,
			const u8 *in, u8 *out, u32 n)
{
	u32 whole;

	if (off & 15) {
		u32 o = off & 15;
		u32 m = min_u32(16 - o, n);

		ks_block(f, off / 16);
		xor_ks(out, in, f->ks + o, m);
		off += m;
		in += m;
		out += m;
		n -= m;
	}
	whole = n & ~15u;
	if (whole) {
		u8 c[16];

		memcpy(c, f->ctr, 12);
		hw_put_be32(c + 12, 2 + off / 16);
		ctr_xor(cx, f, c, in, out, whole);
		off += whole;
		in += whole;
		out += whole;
		n -= whole;
	}
	if (n) {
		ks_block(f, off / 16);
		xor_ks(out, in, f->ks, n);
	}
}

/*
 * decrypt + GHASH ciphertext bytes [off, off + n) of a DEC record: the
 * unaligned head and tail go the byte-wise way, whole blocks in between
 * through the backend's one-pass call.  GHASH has consumed exactly off
 * bytes, so at a block-aligned off its carry buffer is empty.
 */
static void gcm_decrypt_ghash(struct rx_ctx *cx, struct hw_flow *f, u32 off,
			      const u8 *in, u8 *out, u32 n)
{
	u32 head = min_u32((16 - (off & 15)) & 15, n), whole;
	u8 c[16];

	if (head) {
		gcm_decrypt(cx, f, off, in, out, head);
		gcm_ghash(f, in, head);
		off += head;
		in += head;
		out += head;
		n -= head;
	}
	whole = n & ~15u;
	if (whole && !f->gfill) {
		memcpy(c, f->ctr, 12);
		hw_put_be32(c + 12, 2 + off / 16);
		ctr_xor_ghash(cx, f, c, in, out, whole / 16);
		off += whole;
		in += whole;
		out += whole;
		n -= whole;
	}
	if (n) {
		gcm_decrypt(cx, f, off, in, out, n);
		gcm_ghash(f, in, n);
	}
}

static bool gcm_check(struct hw_flow *f)
{
	u8 blk[16];
	u32 clen = f->rlen - TLS_PREFIX - TLS_TAG;
	u8 diff = 0;
	int i;

	if (f->gfill) {
		memset(f->gbuf + f->gfill, 0, 16u - f->gfill);
		ghash_blocks(f, f->gbuf, 1);
		f->gfill = 0;
	}
	hw_put_be64(blk, (u64)TLS_PREFIX * 8);
	hw_put_be64(blk + 8, (u64)clen * 8);
	ghash_blocks(f, blk, 1);
	for (i = 0; i < 16; i++)
		diff |= (u8)(f->ghash[i] ^ f->ekj0[i] ^ f->tag[i]);
	hw_memzero_explicit(f->ks, sizeof(f->ks));
	f->ks_valid = false;
	return diff == 0;
}

/* ------------------------------------------------------------------ */
/* resync                                                             */
/* ------------------------------------------------------------------ */

/*
 * The record with chain index idx has number rn.  Called from the resync
 * command (ring hit) or when a hint is reached at a record boundary.
 */
static int apply_sync(struct rx_ctx *cx, struct hw_flow *f, u64 idx, u64 rn)
{
	u64 off = rn - idx;

	f->ro_valid = false;	/* numbers from the kernel win */
	if (f->rn_known && off == f->rn_off) {
		/* agrees with what we follow: nothing to do */
		STAT_INC(cx->eng, f, resync_ok);
		return HW_RESYNC_APPLIED;
	}
	if (f->rn_known && f->state == HW_FS_SYNC) {
		/* contradicts a verified state: ignore */
		STAT_INC(cx->eng, f, resync_skip);
		return HW_RESYNC_SKIPPED;
	}
	f->rn_off = off;
	f->rn_known = true;
	if (f->end_idx_valid) {
		f->end_rn = f->end_idx + off;
		f->end_idx_valid = false;
	}
	if (f->rpos) {
		/* current record partly seen without crypto: follow it */
		f->rmode = RM_FOLLOW;
		f->rkey = NULL;
	}
	set_state(cx, f, HW_FS_SHADOW);
	STAT_INC(cx->eng, f, resync_ok);
	return HW_RESYNC_APPLIED;
}

/* hint reached: exp_seq == hint_seq */
static int hint_reached(struct rx_ctx *cx, struct hw_flow *f)
{
	f->hint_valid = false;
	f->ro_valid = false;
	if (f->state != HW_FS_SEARCH && f->rpos == 0 &&
	    f->rec_seq == f->hint_seq)
		return apply_sync(cx, f, f->idx, f->hint_rn);
	if (f->state == HW_FS_SYNC) {
		STAT_INC(cx->eng, f, resync_skip);
		return HW_RESYNC_SKIPPED;
	}
	chain_reset(f, f->hint_seq);
	f->rn_known = true;
	f->rn_off = f->hint_rn;
	set_state(cx, f, HW_FS_SHADOW);
	STAT_INC(cx->eng, f, resync_ok);
	return HW_RESYNC_APPLIED;
}

int hw_engine_flow_resync(struct hw_engine *eng, u32 handle, u32 header_seq,
			  u64 rn)
{
	struct hw_flow *f = flow_by_handle(eng, handle);
	struct rx_ctx cx = { .eng = eng };
	u64 idx;

	if (!f)
		return -ENOENT;
	if (f->state != HW_FS_SEARCH &&
	    (ring_find(f->ring, f->ring_n, header_seq, &idx) ||
	     ring_find(f->req, f->req_n, header_seq, &idx)))
		return apply_sync(&cx, f, idx, rn);
	if (!f->exp_valid || !seq_before(header_seq, f->exp_seq)) {
		f->hint_valid = true;
		f->hint_seq = header_seq;
		f->hint_rn = rn;
		/* exactly at the stream position: take it now */
		if (f->exp_valid && header_seq == f->exp_seq)
			return hint_reached(&cx, f);
		STAT_INC(eng, f, resync_hint);
		return HW_RESYNC_HINT;
	}
	STAT_INC(eng, f, resync_skip);
	return HW_RESYNC_SKIPPED;
}

/* ------------------------------------------------------------------ */
/* record walking                                                     */
/* ------------------------------------------------------------------ */

bool hw_tls_hdr_plausible(const u8 h[5])
{
	u16 l = hw_get_be16(h + 3);

	return h[0] >= 0x14 && h[0] <= 0x18 && h[1] == 3 && h[2] == 3 &&
	       l >= TLS_L_MIN && l <= TLS_L_MAX;
}

static void maybe_request(struct rx_ctx *cx, struct hw_flow *f)
{
	if (f->idx != f->next_req_idx)
		return;
	f->next_req_idx = f->idx * 2 + 1;
	cx->req = true;
	cx->req_seq = f->rec_seq + 4;
	ring_push(f->req, &f->req_n, &f->req_head, REQ_N, f->rec_seq, f->idx);
}

static void record_begin(struct rx_ctx *cx, struct hw_flow *f)
{
	struct key_slot *ks;

	ring_push(f->ring, &f->ring_n, &f->ring_head, RING_N, f->rec_seq,
		  f->idx);
	f->rmode = RM_FOLLOW;
	f->rkey = NULL;
	if (f->state == HW_FS_TRACK || !f->rn_known)
		return;
	ks = select_key(cx, f, f->idx + f->rn_off);
	if (!ks) {
		set_state(cx, f, HW_FS_NOKEY);
		return;
	}
	if (f->state == HW_FS_NOKEY)
		set_state(cx, f, HW_FS_SHADOW);
	f->rkey = ks->k;
	if (f->state == HW_FS_SYNC && cx->markable)
		f->rmode = RM_DEC;
	else
		f->rmode = RM_VERIFY;
}

/* header bytes complete (rpos == 5); false = sync lost, go SEARCH */
static bool record_header(struct rx_ctx *cx, struct hw_flow *f)
{
	u16 l = hw_get_be16(f->hdr + 3);

	if (f->state == HW_FS_TRACK) {
		if (!hw_tls_hdr_plausible(f->hdr))
			return false;
	} else if (f->hdr[1] != 3 || f->hdr[2] != 3 || l < TLS_L_MIN ||
		   l > TLS_L_MAX) {
		return false;
	}
	f->rlen = TLS_HDR + l;
	if (f->state == HW_FS_TRACK)
		maybe_request(cx, f);
	return true;
}

static void record_end(struct rx_ctx *cx, struct hw_flow *f)
{
	struct hw_engine *eng = cx->eng;
	bool was_ccs = f->hdr[0] == TLS_CT_CCS;
	u8 mode = f->rmode;
	bool ok = true;

	if (mode == RM_DECNA) {
		STAT_INC(eng, f, unauth_records);
		hw_memzero_explicit(f->ks, sizeof(f->ks));
		f->ks_valid = false;
	} else if (mode != RM_FOLLOW) {
		ok = gcm_check(f);
		if (unlikely(f->crypto_err)) {
			crypto_fail(cx, f);	/* no verdict on the tag */
			ok = true;
		} else if (ok) {
			f->cur.verified = true;
			if (mode == RM_DEC) {
				STAT_INC(eng, f, decrypted_records);
			} else if (f->state == HW_FS_SHADOW) {
				STAT_INC(eng, f, shadow_ok);
				set_state(cx, f, HW_FS_SYNC);
				cx->events |= HW_EV_SYNCED;
			} else {
				STAT_INC(eng, f, enc_records);
			}
		} else {
			STAT_INC(eng, f, auth_fail);
			cx->tag_fail = true;
			if (f->state == HW_FS_SHADOW)
				STAT_INC(eng, f, shadow_fail);
		}
	} else {
		STAT_INC(eng, f, follow_records);
		if (f->state == HW_FS_NOKEY)
			STAT_INC(eng, f, nokey_records);
	}

	/* a ChangeCipherSpec is the last record under the current key */
	if (was_ccs) {
		if (f->rn_known) {
			u64 e = f->idx + f->rn_off + 1;

			if (e < f->end_rn)
				f->end_rn = e;
		} else {
			f->end_idx_valid = true;
			f->end_idx = f->idx + 1;
		}
	}

	f->rec_seq += f->rlen;
	f->idx++;
	f->rpos = 0;
	f->rlen = 0;
	f->rkey = NULL;
	f->rmode = RM_FOLLOW;
	f->rhole = false;

	if (!ok && !f->cur.verified && f->cur.from_update) {
		/* wrong key from a key update: ask for a new one */
		f->cur.bad = true;
		STAT_INC(eng, f, key_refresh);
		cx->events |= HW_EV_KEY_REFRESH_NEEDED;
		set_state(cx, f, HW_FS_NOKEY);
	} else if (!ok || f->rfail) {
		/*
		 * tag mismatch or backend error: stop decrypting; the next
		 * boundary is a candidate
		 */
		STAT_INC(eng, f, sync_lost);
		cx->events |= f->rfail ? HW_EV_LOST_CRYPTO : HW_EV_LOST_TAG;
		set_state(cx, f, HW_FS_TRACK);
		chain_reset(f, f->rec_seq);
	}
}

/* SEARCH: scan n bytes; returns bytes consumed */
static u32 search_step(struct rx_ctx *cx, struct hw_flow *f, u32 seq,
		       const u8 *d, u32 n)
{
	u8 h[TLS_HDR];
	int nc = f->ncarry;
	int i, j;

	cx->markable = false;
	for (i = -nc; i + 4 < (int)n; i++) {
		u8 b1 = i + 1 < 0 ? f->carry[nc + i + 1] : d[i + 1];
		u8 b2 = i + 2 < 0 ? f->carry[nc + i + 2] : d[i + 2];
		u8 b0;

		if (b1 != 3 || b2 != 3)
			continue;
		b0 = i < 0 ? f->carry[nc + i] : d[i];
		if (b0 < 0x14 || b0 > 0x18)
			continue;
		for (j = 0; j < TLS_HDR; j++)
			h[j] = i + j < 0 ? f->carry[nc + i + j] : d[i + j];
		if (!hw_tls_hdr_plausible(h))
			continue;
		/* candidate header at seq + i, its last byte in this frame */
		set_state(cx, f, HW_FS_TRACK);
		chain_reset(f, seq + (u32)i);
		f->ncarry = 0;
		record_begin(cx, f);
		memcpy(f->hdr, h, TLS_HDR);
		f->rpos = TLS_HDR;
		f->rlen = TLS_HDR + hw_get_be16(h + 3);
		maybe_request(cx, f);
		return (u32)(i + TLS_HDR);
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
	if (rm_decrypts(f->rmode))
		return true;
	if (f->rmode != RM_VERIFY)
		return false;
	/*
	 * Length unknown yet: the header must complete with bytes to spare
	 * (L >= 24), so the precise check below runs again at rpos 5.
	 */
	if (f->rpos < TLS_HDR)
		return TLS_HDR - f->rpos < frame_rem;
	return f->rlen - f->rpos <= frame_rem;
}

/* one phase of the current record; returns bytes consumed (> 0) */
static u32 record_step(struct rx_ctx *cx, struct hw_flow *f, const u8 *d,
		       u32 n, u32 frame_rem)
{
	bool emit;
	u32 m;

	if (f->rpos == 0)
		record_begin(cx, f);
	emit = cx->markable && emit_output(f, frame_rem);
	if (!emit)
		cx->markable = false;

	if (f->rpos < TLS_PREFIX) {
		m = min_u32(n, TLS_PREFIX - f->rpos);
		if (f->rpos < TLS_HDR)
			m = min_u32(m, TLS_HDR - f->rpos);
		memcpy(f->hdr + f->rpos, d, m);
		if (emit)
			memcpy(cx->out, d, m);
		f->rpos += m;
		if (f->rpos == TLS_HDR && !record_header(cx, f)) {
			/* rescan the bytes after the bad header's first */
			cx->markable = false;
			lose_sync_search(cx, f, HW_EV_LOST_BAD_HEADER);
			memcpy(f->carry, f->hdr + 1, 4);
			f->ncarry = 4;
			return m;
		}
		if (f->rpos == TLS_PREFIX && f->rmode != RM_FOLLOW)
			gcm_init(cx, f, f->cur.salt);
		return m;
	}
	if (f->rpos < f->rlen - TLS_TAG) {
		u32 off = f->rpos - TLS_PREFIX;

		m = min_u32(n, f->rlen - TLS_TAG - f->rpos);
		if (emit && f->rmode == RM_DEC) {
			gcm_decrypt_ghash(cx, f, off, d, cx->out, m);
		} else {
			if (emit)
				gcm_decrypt(cx, f, off, d, cx->out, m);
			if (f->rmode == RM_DEC || f->rmode == RM_VERIFY)
				gcm_ghash(f, d, m);
		}
		if (unlikely(f->crypto_err))
			crypto_fail(cx, f);
		f->rpos += m;
		return m;
	}
	m = min_u32(n, f->rlen - f->rpos);
	memcpy(f->tag + (f->rpos - (f->rlen - TLS_TAG)), d, m);
	if (emit)
		memcpy(cx->out, d, m);
	f->rpos += m;
	if (f->rpos == f->rlen)
		record_end(cx, f);
	return m;
}

/* ------------------------------------------------------------------ */
/* reorder recovery                                                   */
/* ------------------------------------------------------------------ */

static void ro_cancel(struct hw_flow *f)
{
	f->ro_valid = false;
	f->ro_ngap = 0;
}

void hw_engine_set_reorder_recovery(struct hw_engine *eng, bool on)
{
	u32 i;

	eng->reorder_recovery = on;
	if (on)
		return;
	for (i = 0; i < eng->capacity; i++)	/* walks in progress end */
		ro_cancel(&eng->flows[i]);
}

bool hw_engine_reorder_recovery(const struct hw_engine *eng)
{
	return eng->reorder_recovery;
}

/* a header of a record the kernel will parse (same rule as in sync) */
static bool ro_hdr_ok(const u8 *h)
{
	u16 l = hw_get_be16(h + 3);

	return h[1] == 3 && h[2] == 3 && l >= TLS_L_MIN && l <= TLS_L_MAX;
}

/*
 * Sync is lost at the gap [exp_seq, seq) with record numbers known: start
 * walking the true chain from the current record.  Its header bytes seen
 * so far are valid (a hole needs a complete header first).
 */
static void ro_start(struct hw_flow *f, u32 seq)
{
	struct ro_gap *g = &f->ro_gap[0];

	if (!f->rn_known || f->state == HW_FS_SEARCH ||
	    f->state == HW_FS_TRACK)
		return;		/* numbers unknown: keep any walk going */
	f->ro_valid = true;
	f->ro_sync = f->state == HW_FS_SYNC;
	f->ro_seq = f->rec_seq;
	f->ro_pn = (u8)min_u32(f->rpos, TLS_HDR);
	memcpy(f->ro_pre, f->hdr, f->ro_pn);
	f->ro_rn = f->idx + f->rn_off;
	f->ro_end_rn = NO_END;
	f->ro_ngap = 1;
	g->start = f->exp_seq;
	g->end = seq;
	g->npost = 0;
}

/* another gap while recovering (engine in SEARCH/TRACK) */
static void ro_add_gap(struct hw_flow *f, u32 seq)
{
	struct ro_gap *g;

	if (f->ro_ngap >= RO_GAPS || f->state == HW_FS_SYNC ||
	    f->state == HW_FS_SHADOW || f->state == HW_FS_NOKEY ||
	    seq - f->ro_seq > RO_MAX_SPAN) {
		ro_cancel(f);
		return;
	}
	g = &f->ro_gap[f->ro_ngap++];
	g->start = f->exp_seq;
	g->end = seq;
	g->npost = 0;
}

/* keep the first in-order bytes after the last gap */
static void ro_post(struct hw_flow *f, u32 seq, const u8 *d, u32 n)
{
	struct ro_gap *g = &f->ro_gap[f->ro_ngap - 1];
	u32 m;

	if (g->npost >= RO_POST || seq != g->end + g->npost)
		return;
	m = min_u32(n, RO_POST - g->npost);
	memcpy(g->post + g->npost, d, m);
	g->npost += (u8)m;
}

/* walked record complete and ended at or before exp_seq: next record */
static void ro_advance(struct hw_flow *f)
{
	while (f->ro_valid && f->ro_pn >= TLS_HDR) {
		u32 nx = f->ro_seq + TLS_HDR + hw_get_be16(f->ro_pre + 3);

		if (seq_after(nx, f->exp_seq))
			return;
		if (f->ro_pre[0] == TLS_CT_CCS && f->ro_rn + 1 < f->ro_end_rn)
			f->ro_end_rn = f->ro_rn + 1;
		f->ro_seq = nx;
		f->ro_pn = 0;
		f->ro_rn++;
	}
}

/* stream bytes [seq, seq + n) (late data or kept bytes) for the walk */
static void ro_feed(struct hw_flow *f, u32 seq, const u8 *d, u32 n)
{
	for (;;) {
		u32 o, m;

		ro_advance(f);
		if (!f->ro_valid || f->ro_pn >= TLS_PREFIX)
			return;
		o = f->ro_seq + f->ro_pn - seq;
		if (o >= n)
			return;
		m = min_u32(n - o, (u32)TLS_PREFIX - f->ro_pn);
		memcpy(f->ro_pre + f->ro_pn, d + o, m);
		if (f->ro_pn < TLS_HDR && f->ro_pn + m >= TLS_HDR &&
		    !ro_hdr_ok(f->ro_pre)) {
			ro_cancel(f);	/* the kernel will fail it too */
			return;
		}
		f->ro_pn += (u8)m;
	}
}

/*
 * Numbers known again; the current record (rpos > 0) was seen without
 * crypto.  In SYNC, with its prefix known and no hole in it, the rest is
 * decrypted without tag check (DECNA: it is mixed anyway, as its first
 * part went up untouched) so that the next record starts in a markable
 * frame; otherwise it is followed.
 */
static void ro_resume(struct rx_ctx *cx, struct hw_flow *f, bool prefix_ok)
{
	bool sync = f->ro_sync && f->cur.verified;
	struct key_slot *ks;

	if (f->ro_end_rn < f->end_rn)
		f->end_rn = f->ro_end_rn;
	ro_cancel(f);
	set_state(cx, f, sync ? HW_FS_SYNC : HW_FS_SHADOW);
	STAT_INC(cx->eng, f, reorder_recovered);
	cx->events |= HW_EV_REORDER_RECOVERED | (sync ? HW_EV_SYNCED : 0);
	f->rmode = RM_FOLLOW;
	f->rkey = NULL;
	if (!f->rpos || !sync || !prefix_ok || f->rhole)
		return;
	ks = select_key(cx, f, f->idx + f->rn_off);
	if (!ks || !ks->verified || f->state != HW_FS_SYNC)
		return;
	f->rkey = ks->k;
	f->rmode = RM_DECNA;
	if (f->rpos >= TLS_PREFIX)
		gcm_init(cx, f, ks->salt);
}

/* the walk reached a header the engine followed (chain index idx) */
static void ro_connect(struct rx_ctx *cx, struct hw_flow *f, u64 idx)
{
	f->rn_off = f->ro_rn - idx;
	f->rn_known = true;
	if (f->end_idx_valid) {
		u64 e = f->end_idx + f->rn_off;

		if (e < f->end_rn)
			f->end_rn = e;
		f->end_idx_valid = false;
	}
	ro_resume(cx, f, true);
}

/*
 * The walk caught up with the stream: the record containing exp_seq is
 * the walked one.  Whatever candidate the engine followed since the gap
 * lies inside a record, i.e. was false: restart the chain here.
 */
static void ro_catch_up(struct rx_ctx *cx, struct hw_flow *f)
{
	u32 rpos = f->exp_seq - f->ro_seq;

	chain_reset(f, f->ro_seq);
	f->rpos = rpos;
	if (f->ro_pn >= TLS_HDR)
		f->rlen = TLS_HDR + hw_get_be16(f->ro_pre + 3);
	memcpy(f->hdr, f->ro_pre, f->ro_pn);
	f->rn_off = f->ro_rn;
	f->rn_known = true;
	f->ncarry = 0;
	if (rpos)
		ring_push(f->ring, &f->ring_n, &f->ring_head, RING_N,
			  f->rec_seq, 0);
	ro_resume(cx, f, f->ro_pn >= min_u32(rpos, TLS_PREFIX));
}

static bool ro_in_gap(const struct hw_flow *f, u32 p)
{
	u8 i;

	for (i = 0; i < f->ro_ngap; i++) {
		if (p - f->ro_gap[i].start < f->ro_gap[i].end -
		    f->ro_gap[i].start)
			return true;
	}
	return false;
}

/* after late data was fed: resume, keep waiting, or give up */
static void ro_try(struct rx_ctx *cx, struct hw_flow *f)
{
	bool again;
	u64 idx;
	u8 i;

	if (!f->ro_valid)
		return;
	if ((f->state != HW_FS_SEARCH && f->state != HW_FS_TRACK) ||
	    f->exp_seq - f->ro_seq > RO_MAX_SPAN) {
		ro_cancel(f);
		return;
	}
	do {
		u32 p, pn0 = f->ro_pn, s0 = f->ro_seq;

		again = false;
		ro_advance(f);
		if (!f->ro_valid)
			return;
		if (f->ro_pn >= TLS_HDR ||
		    f->ro_seq + f->ro_pn == f->exp_seq) {
			ro_catch_up(cx, f);
			return;
		}
		if (ring_find(f->ring, f->ring_n, f->ro_seq, &idx)) {
			ro_connect(cx, f, idx);
			return;
		}
		/* header bytes kept right after a gap */
		p = f->ro_seq + f->ro_pn;
		for (i = 0; i < f->ro_ngap; i++) {
			struct ro_gap *g = &f->ro_gap[i];

			if (p - g->end < g->npost) {
				ro_feed(f, g->end, g->post, g->npost);
				again = f->ro_valid && (f->ro_pn != pn0 ||
							f->ro_seq != s0);
				break;
			}
		}
	} while (again);
	if (f->ro_valid && !ro_in_gap(f, f->ro_seq + f->ro_pn))
		ro_cancel(f);	/* passed unseen: the resync path goes on */
}

/* in-order new bytes [seq, seq + n) */
static void stream_bytes(struct rx_ctx *cx, struct hw_flow *f, u32 seq,
			 const u8 *d, u32 n)
{
	if (f->ro_valid)
		ro_post(f, seq, d, n);
	while (n) {
		u32 lim = n, m;

		if (f->hint_valid) {
			if (seq_after(seq, f->hint_seq)) {
				f->hint_valid = false;	/* passed: stale */
				STAT_INC(cx->eng, f, resync_skip);
			} else if (seq == f->hint_seq) {
				hint_reached(cx, f);
			}
			if (f->hint_valid && seq_before(seq, f->hint_seq) &&
			    seq_before(f->hint_seq, seq + n))
				lim = f->hint_seq - seq;
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
static void stream_gap(struct rx_ctx *cx, struct hw_flow *f, u32 seq)
{
	u32 gap = seq - f->exp_seq;

	/* unconfirmed until new data follows (rearm_watch()) */
	f->jump_pending = true;
	f->old_run = 0;
	f->old_hi = f->exp_seq;

	if (f->hint_valid && !seq_before(f->hint_seq, f->exp_seq) &&
	    seq_before(f->hint_seq, seq)) {
		f->hint_valid = false;
		STAT_INC(cx->eng, f, resync_skip);
	}
	if (f->ro_valid)
		ro_add_gap(f, seq);
	if (f->state == HW_FS_SEARCH) {
		f->ncarry = 0;
		f->exp_seq = seq;
		return;
	}
	if (f->rpos >= TLS_HDR && gap <= f->rlen - f->rpos) {
		/* no header in the gap: keep following, record damaged */
		STAT_INC(cx->eng, f, holes);
		f->rhole = true;
		if (rm_decrypts(f->rmode) && f->rpos >= TLS_PREFIX) {
			f->rmode = RM_DECNA;
		} else {
			f->rmode = RM_FOLLOW;
			f->rkey = NULL;
		}
		f->rpos += gap;
		f->exp_seq = seq;
		if (f->rpos == f->rlen)
			record_end(cx, f);
		return;
	}
	if (cx->eng->reorder_recovery)
		ro_start(f, seq);
	f->exp_seq = seq;
	lose_sync_search(cx, f, HW_EV_LOST_GAP);
}

/*
 * Wholly old frame while a forward jump is unconfirmed (no new data since
 * it).  REARM_OLD_FRAMES of them in a row: the stream is really at the
 * old data's frontier, so go back there and look for a record boundary
 * (resync) instead of waiting for the stream to pass the bogus position.
 */
static void rearm_watch(struct rx_ctx *cx, struct hw_flow *f, u32 end)
{
	if (seq_after(end, f->old_hi))
		f->old_hi = end;
	if (++f->old_run < REARM_OLD_FRAMES)
		return;
	f->jump_pending = false;
	f->old_run = 0;
	STAT_INC(cx->eng, f, rearmed);
	cx->events |= HW_EV_REARMED;
	ro_cancel(f);
	f->exp_seq = f->old_hi;
	lose_sync_search(cx, f, HW_EV_REARMED);
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

struct parsed {
	struct hw_flow_tuple t;
	u32 l4, l4len, seq;
	u8 flags;
};

/* parse Ethernet/IPv4|IPv6/TCP and validate checksums; 0 = not TCP */
static int parse_frame(const u8 *fr, u32 len, struct parsed *p, bool *csum_ok)
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
		p->t.vlan = (u16)(HW_VLAN_TAGGED | (hw_get_be16(fr + 14) & 0xfff));
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
		if (sum16_fold(sum16_add(0, ip, ihl)) != 0xffff)
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

int hw_engine_rx(struct hw_engine *eng, const u8 *frame, u32 len, u8 *out,
		 struct hw_rx_completion *c)
{
	struct rx_ctx cx = { .eng = eng, .markable = true };
	struct parsed p;
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
			f->st.bad_csum++;
		return 0;
	}
	if (!f)
		return 0;
	c->is_tls_flow = true;
	c->flow = flow_handle(eng, f);
	STAT_INC(eng, f, tls_frames);
	/* SYN/RST: not stream data we follow */
	if (!plen || (p.flags & 0x06))
		return 0;

	seq = p.seq;
	end = seq + plen;
	cx.out = out + poff;
	if (!f->exp_valid) {
		f->exp_valid = true;
		f->exp_seq = seq;
		if (f->state != HW_FS_SEARCH)
			chain_reset(f, seq);
	}
	if (seq_after(seq, f->exp_seq) && seq - f->exp_seq > f->max_ahead) {
		/* beyond any receive window: not stream data */
		STAT_INC(eng, f, far_frames);
		return 0;
	}
	if (!seq_after(end, f->exp_seq)) {
		/* old data: never marked, but it may close a gap's chain */
		STAT_INC(eng, f, old_frames);
		if (f->ro_valid) {
			ro_feed(f, seq, frame + poff, plen);
			ro_try(&cx, f);
		}
		if (f->jump_pending)
			rearm_watch(&cx, f, end);
		c->events = cx.events;
		return 0;
	}
	f->jump_pending = false;	/* new data: whatever jumped was real */
	if (seq_before(seq, f->exp_seq)) {
		u32 skip = f->exp_seq - seq;

		STAT_INC(eng, f, overlap_frames);
		if (f->ro_valid) {
			ro_feed(f, seq, frame + poff, skip);
			ro_try(&cx, f);
		}
		cx.markable = false;
		cx.out += skip;
		stream_bytes(&cx, f, f->exp_seq, frame + poff + skip,
			     plen - skip);
	} else {
		if (seq_after(seq, f->exp_seq))
			stream_gap(&cx, f, seq);
		stream_bytes(&cx, f, seq, frame + poff, plen);
	}

	if (f->ro_valid && f->exp_seq - f->ro_seq > RO_MAX_SPAN)
		ro_cancel(f);
	c->events = cx.events;
	if (cx.req) {
		c->resync_req = true;
		c->resync_seq = cx.req_seq;
		STAT_INC(eng, f, resync_req);
	}
	c->crypto_done = cx.markable;
	c->crypto_success = cx.markable && !cx.tag_fail;
	c->auth_fail = cx.tag_fail;
	if (hw_rx_decrypted(c)) {
		memcpy(out, frame, poff);
		memcpy(out + poff + plen, frame + poff + plen,
		       len - poff - plen);
		STAT_INC(eng, f, decrypted_frames);
		STAT_ADD(eng, f, decrypted_bytes, plen);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* commands                                                           */
/* ------------------------------------------------------------------ */

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

	if (!p->key || !tuple_valid(&p->tuple)) {
		eng->st.add_fail++;
		return -EINVAL;
	}
	t = p->tuple;
	if (t.family == 4) {
		memset(t.saddr + 4, 0, 12);
		memset(t.daddr + 4, 0, 12);
	}
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
	f->max_ahead = p->max_ahead ? p->max_ahead : HW_FLOW_MAX_AHEAD_DEFAULT;
	f->cur.k = p->key;
	f->cur.from_rn = p->start_rn;
	memcpy(f->cur.salt, p->salt, 4);
	f->end_rn = NO_END;
	if (p->start_synced) {
		f->exp_valid = true;
		f->exp_seq = p->start_seq;
		chain_reset(f, p->start_seq);
		f->rn_known = true;
		f->rn_off = p->start_rn;
		f->state = HW_FS_SHADOW;
	} else {
		f->state = HW_FS_SEARCH;
	}
	b = tuple_hash(&t) & (eng->nbuckets - 1);
	f->hnext = eng->buckets[b];
	eng->buckets[b] = i + 1;
	eng->nflows++;
	eng->st.flows_added++;
	f->st.flows_added = 1;
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
	reap_add(reap, &f->cur.k);
	reap_add(reap, &f->nxt.k);
	reap_add(reap, &f->retired);
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
			      struct hw_crypto_key *key, const u8 salt[4],
			      u64 rn, struct hw_key_reap *reap)
{
	struct hw_flow *f = flow_by_handle(eng, handle);
	struct key_slot ns;
	bool late = false;

	if (!f)
		return -ENOENT;
	if (!key)
		return -EINVAL;
	memset(&ns, 0, sizeof(ns));
	ns.k = key;
	ns.from_rn = rn;
	ns.from_update = true;
	memcpy(ns.salt, salt, 4);

	if (f->rn_known && f->state != HW_FS_SEARCH) {
		u64 cur = f->idx + f->rn_off;

		late = f->rpos ? cur >= rn : cur > rn;
	}
	reap_add(reap, &f->retired);
	if (f->nxt.k == f->rkey && f->rkey)
		f->rmode = RM_FOLLOW;
	reap_add(reap, &f->nxt.k);
	memset(&f->nxt, 0, sizeof(f->nxt));
	if (late) {
		/* records >= rn already passed: take over now, re-verify */
		if (f->cur.k == f->rkey && f->rkey) {
			f->rmode = RM_FOLLOW;
			f->rkey = NULL;
		}
		reap_add(reap, &f->cur.k);
		f->cur = ns;
		f->end_rn = NO_END;
		if (f->state != HW_FS_TRACK)
			f->state = HW_FS_SHADOW;
		STAT_INC(eng, f, key_late);
	} else if (f->cur.bad) {
		/* replacing a key that failed verification */
		if (f->cur.k == f->rkey && f->rkey) {
			f->rmode = RM_FOLLOW;
			f->rkey = NULL;
		}
		reap_add(reap, &f->cur.k);
		f->cur = ns;
		f->end_rn = NO_END;
		if (f->state == HW_FS_NOKEY)
			f->state = HW_FS_SHADOW;
	} else {
		f->nxt = ns;
	}
	STAT_INC(eng, f, key_updates);
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

	if (!f)
		return -ENOENT;
	memset(info, 0, sizeof(*info));
	info->tuple = f->t;
	info->state = f->state;
	info->expected_seq = f->exp_seq;
	info->record_seq = f->rec_seq;
	info->record_num_known = f->rn_known && f->state != HW_FS_SEARCH;
	info->record_num = info->record_num_known ? f->idx + f->rn_off : 0;
	info->record_pos = f->rpos;
	info->record_len = f->rlen;
	info->key_pending = !!f->nxt.k;
	info->key_switch_rn = f->nxt.k ? f->nxt.from_rn : 0;
	info->stats = f->st;
	info->reorder_pending = f->ro_valid;
	return 0;
}

void hw_engine_stats(const struct hw_engine *eng, struct hw_stats *st)
{
	*st = eng->st;
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
