/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Innova hardware engine: what its three sources share, and nothing the
 * driver or the tests may use (their interface is <innova/hw_engine.h>).
 *
 *   engine.c      flow table, keys, record tracker, resync, frame parsing
 *   gcm_stream.c  crypto backend calls and streaming AES-GCM of a record
 *   reorder.c     reorder recovery: the walk over late data
 *
 * The flow states and the per-record modes are described at the top of
 * engine.c, the reorder walk at the top of reorder.c.
 */
#ifndef INNOVA_HW_ENGINE_PRIV_H
#define INNOVA_HW_ENGINE_PRIV_H

#include <innova/hw_engine.h>

/* AES-GCM record layout (TLS 1.2 sizes; per version: struct hw_tls_fmt) */
#define HW_TLS_HDR		5
#define HW_TLS_PREFIX		13	/* largest prefix: 1.2 header + nonce */
#define HW_TLS_TAG		16
#define HW_TLS_L_MIN		24
#define HW_TLS_L_MAX		(HW_TLS_MAX_PLAIN + 24)
#define HW_TLS_CT_CCS		0x14
#define HW_TLS_CT_APPDATA	0x17

/*
 * What differs between the record formats the engine parses, so that the
 * rest of the engine reads the version from one table and never tests it:
 *  TLS 1.2: header (5) + explicit nonce (8) before the ciphertext; nonce =
 *    salt | explicit nonce; AAD = record number | type | version |
 *    plaintext length (13 bytes).
 *  TLS 1.3: header (5) only; nonce = static IV XOR record number; AAD =
 *    the header itself; the outer type is always 23 (the real one is the
 *    last non-zero plaintext byte, inside the ciphertext).
 * len_min/len_max: the record lengths the kernel's record parser takes
 * (tls_rx_msg_size()): the cipher overhead, up to 2^14 + that overhead
 * (+ 1 for TLS 1.3's inner content type).
 */
struct hw_tls_fmt {
	u8 prefix;		/* bytes before the ciphertext */
	u8 aad_len;		/* GCM AAD bytes */
	bool explicit_nonce;	/* the nonce's last 8 bytes travel in the record */
	bool appdata_outer;	/* every record's outer type is 23 */
	u16 len_min;
	u16 len_max;
};

extern const struct hw_tls_fmt hw_tls_fmts[HW_TLS_NVERSIONS];
#define HW_FMT(f)		(&hw_tls_fmts[(f)->version])
#define HW_PFX(f)		(HW_FMT(f)->prefix)

#define HW_RING_N		16	/* followed headers remembered */
#define HW_REQ_N		4	/* resync requests remembered */
#define HW_NO_END		(~(u64)0)	/* key has no last record */

#define HW_RO_GAPS		4	/* gaps remembered while recovering */
#define HW_RO_POST		(HW_TLS_PREFIX - 1) /* bytes kept after a gap */
#define HW_RO_MAX_SPAN		0x100000u /* give up 1 MiB behind the stream */

/* How the current record is processed, decided at its first byte. */
enum hw_rec_mode {
	HW_RM_FOLLOW = 0,	/* length only */
	HW_RM_VERIFY,		/* GHASH + tag check, delivered untouched */
	HW_RM_DEC,		/* decrypt + GHASH + tag check */
	HW_RM_DECNA,		/* DEC record after a hole: no tag check */
};

static inline bool hw_rm_decrypts(u8 m)
{
	return m == HW_RM_DEC || m == HW_RM_DECNA;
}

/* The record the stream is in (TRACK/SHADOW/SYNC/NOKEY). */
struct hw_record {
	u32 seq;		/* TCP seq of its header */
	u32 pos;		/* bytes of it seen */
	u32 len;		/* 5 + L once pos >= 5 */
	u8 mode;		/* enum hw_rec_mode */
	bool hole;		/* a hole skipped bytes of this record */
	bool unmarked;		/* a frame of it went up unmarked */
	bool crypto_err;	/* a backend call failed (this record) */
	bool fail;		/* record poisoned by a backend error */
	/*
	 * Its prefix is anchored (docs/design.md, "The NIC sits in front of
	 * TCP"): it completed in a frame that also carried a verified tag
	 * before it, or in a frame that began exactly at the stream position
	 * (seal) and that another frame then met exactly at its end
	 * (pfx_end), as the sender's segments do.  A lone injected segment
	 * whose cut is not the sender's, or one that came ahead of a gap,
	 * stays unanchored: a hole or an overlap in such a record stops its
	 * decryption until a tag.
	 */
	bool anchored;
	bool seal;
	u8 pfx_n;		/* bytes of hdr[] taken from the stream */
	u32 pfx_end;		/* where the prefix's frame ended */
	u8 hdr[HW_TLS_PREFIX];	/* header and explicit nonce */
	/*
	 * TLS 1.3: the real content type is the last non-zero plaintext
	 * byte, so the engine learns it from what it decrypts: inner_valid
	 * while every plaintext byte after inner_off was decrypted (zeros:
	 * padding); first[] holds plaintext bytes 0..first_n-1 (a handshake
	 * message's header).
	 */
	bool inner_valid;
	u8 inner_type;
	u8 first_n;
	u8 first[4];
	u32 inner_off;
	u64 idx;		/* chain index; rn = idx + rn_off */
	struct hw_crypto_key *key;	/* the key its crypto uses */
};

/* Streaming AES-GCM of the current record (gcm_stream.c). */
struct hw_gcm_stream {
	u8 ghash[16];		/* GHASH accumulator */
	u8 buf[16];		/* GHASH input short of a whole block */
	u8 fill;		/* bytes in buf */
	bool ks_valid;		/* ks holds the keystream of block ks_blk */
	u32 ks_blk;
	u8 ks[16];
	u8 ctr[16];		/* J0: salt | explicit nonce | 1 */
	u8 ekj0[16];		/* E_K(J0), masks the tag */
	u8 tag[16];		/* the record's tag as received */
};

/*
 * The prefix (header + explicit nonce) of a record the engine framed,
 * kept so that a later copy of those bytes can be compared: TCP keeps the
 * first copy it accepts, which need not be the one the NIC saw first.
 */
#define HW_PFX_N		4
struct hw_pfx {
	u32 seq;
	u8 n;			/* bytes known, 0 = empty slot */
	u8 b[HW_TLS_PREFIX];
};

/* 12 bytes, not 16: a u64 member would pad every entry (flow state <= 1 KiB) */
struct hw_ring_ent {
	u32 seq;
	u32 idx_lo;
	u32 idx_hi;
};

/*
 * Headers followed since the chain started and the resync requests issued
 * for them, by chain index: a confirmation for one of their seqs gives
 * the chain its record numbers.
 */
struct hw_chain {
	struct hw_ring_ent ring[HW_RING_N];	/* followed headers */
	u8 ring_n;
	u8 ring_head;
	struct hw_ring_ent req[HW_REQ_N];	/* requests issued */
	u8 req_n;
	u8 req_head;
	u64 next_req_idx;	/* exponential back-off of requests */
};

/* a gap in the stream seen while recovering, with the bytes right after it */
struct hw_ro_gap {
	u32 start;
	u32 end;
	u8 post[HW_RO_POST];
	u8 npost;
};

/*
 * Reorder recovery: the true record chain, walked from the last known
 * boundary across the gap(s) with late data (reorder.c).
 */
struct hw_reorder {
	bool valid;
	bool was_sync;		/* the flow was SYNC when the gap hit */
	u8 pn;			/* prefix bytes of the walked record known */
	u8 ngap;
	u8 pre[HW_TLS_PREFIX];
	u32 seq;		/* walked record: header seq */
	u64 rn;			/* and its record number */
	u64 rn0;		/* the record the gap hit */
	/* a header byte came from a frame that did not fill a gap exactly */
	bool weak;
	struct hw_ro_gap gap[HW_RO_GAPS];
};

/* Forward jumps of the stream: bound, and taking back one that was not data. */
struct hw_jump_watch {
	u32 max_ahead;		/* largest forward jump followed, bytes */
	bool pending;		/* no record verified since a forward gap */
	u8 old_run;		/* wholly old frames in a row since then */
	u32 old_hi;		/* old data's frontier (contiguous end) */
};

/* Frames beyond max_ahead: a contiguous run of them moves the stream. */
struct hw_far_watch {
	u32 next;		/* where the run's next frame would start */
	u32 from;		/* exp_seq when the run began */
	u8 run;			/* frames in the run */
	/* re-anchored, not yet verified: old data in a row takes it back */
	bool armed;
};

/* A resync confirmation for a seq ahead of the stream, kept until reached. */
struct hw_resync_hint {
	bool valid;
	u32 seq;
	u64 rn;
};

struct hw_key_slot {
	struct hw_crypto_key *k;
	u64 from_rn;
	u8 iv[HW_TLS_IV_LEN];	/* TLS 1.2: salt in the first 4 bytes */
	bool verified;		/* a tag under this key matched this stream */
	bool bad;		/* failed its first verification */
	bool from_update;	/* came from a key update command */
};

struct hw_flow_keys {
	struct hw_key_slot cur;
	struct hw_key_slot nxt;	/* key update not yet in effect */
	struct hw_crypto_key *retired;	/* handed back at the next command */
	u64 end_rn;		/* cur unusable from this record number */
	bool end_idx_valid;	/* CCS seen while numbers unknown: */
	u64 end_idx;		/* cur unusable from this chain index */
};

/* struct hw_stats is all u64 counters */
#define HW_STATS_N	(sizeof(struct hw_stats) / sizeof(u64))

struct hw_flow {
	u16 gen;
	bool used;
	u32 hnext;		/* hash chain / free list: index + 1, 0 = end */
	struct hw_flow_tuple t;
	enum hw_flow_state state;
	u8 version;		/* enum hw_tls_version: indexes hw_tls_fmts */
	u32 auth_fail_run;	/* records failing their tag since one verified */
	/*
	 * Where the flow first met a record it had no key for (a key that
	 * ended at a KeyUpdate or CCS, the next not yet given): the records
	 * it followed from there passed before their key.
	 */
	bool nokey_known;
	u32 nokey_seq;
	u64 nokey_rn;

	bool exp_valid;
	u32 exp_seq;		/* next in-order stream byte */
	bool snd_known;
	u32 snd_nxt;		/* host's send sequence, as transmitted */
	u32 ack_span;		/* 0, or how far an ACK may lag snd_nxt */
	bool edge_known;
	u8 wscale;		/* host's receive window scale */
	u32 rcv_edge;		/* right edge of the window it advertised */

	struct hw_record rec;
	u64 rn_off;		/* record number of chain index 0 */
	bool rn_known;

	/* SEARCH: last stream bytes before exp_seq */
	u8 carry[4];
	u8 ncarry;

	struct hw_gcm_stream gcm;
	struct hw_pfx pfx[HW_PFX_N];	/* records framed before the current */
	u8 pfx_head;
	/*
	 * A tag verified on the record ending at pfx_settled_end: every
	 * framing decision before it was right (settled), whatever a later
	 * copy of an earlier prefix says.
	 */
	bool pfx_settled;
	u32 pfx_settled_end;
	struct hw_chain chain;
	struct hw_reorder ro;
	struct hw_jump_watch jump;
	struct hw_far_watch far;
	struct hw_resync_hint hint;
	struct hw_flow_keys keys;

	/* resync latency (hw_engine_resync_hist): phase and records so far */
	u8 lat_phase;		/* enum hw_lat_phase */
	u16 lat_recs;

	/*
	 * The flow's own counters, 32-bit (they wrap, like a NIC's per-context
	 * counters; the port's totals in struct hw_engine are 64-bit): indexed
	 * as the u64 fields of struct hw_stats, widened by hw_engine_flow_info.
	 * Half the size keeps the flow slot under 1 KiB with its key objects.
	 */
	u32 st[HW_STATS_N];
};

/*
 * The furthest data seen of a connection that has no flow: slots indexed
 * by the tuple's hash, the last tuple to use a slot owns it.
 */
#define HW_UNTRACKED_SLOTS	64	/* power of two */
struct hw_untracked {
	struct hw_flow_tuple t;
	u32 end;		/* seq after the furthest payload byte */
	bool used;
};

struct hw_engine {
	u32 capacity;
	u32 nbuckets;		/* power of two */
	u32 nflows;
	u32 free_head;		/* index + 1 */
	struct hw_flow *flows;
	u32 *buckets;		/* index + 1 */
	u32 last_flow;		/* index + 1 of the last flow found, 0 = none */
	bool reorder_recovery;	/* read late frames to regain sync */
	bool ack_check;		/* TCP's ACK test before framing */
	bool window_check;	/* TCP's window test before framing */
	u32 crypto_fail_next;	/* injected backend failures pending */
	struct hw_stats st;
	u32 resync_hist[HW_RESYNC_HIST];
	struct hw_untracked untracked[HW_UNTRACKED_SLOTS];
};

/* A flow's resync latency measurement (struct hw_flow lat_*). */
enum hw_lat_phase {
	HW_LAT_IDLE = 0,	/* in sync, or never synced */
	HW_LAT_LOST,		/* sync lost: no intact header followed yet */
	HW_LAT_COUNTING,	/* records followed since the first header */
};

/* per-frame scratch */
struct hw_rx_ctx {
	struct hw_engine *eng;
	u8 *out;		/* output pointer for the current byte */
	bool markable;
	bool tag_fail;
	bool tag_ok;		/* a tag verified in this frame */
	bool in_order;		/* the frame began at the stream position */
	u32 frame_end;		/* seq after its last payload byte */
	bool req;
	u32 req_seq;
	u32 events;
	/*
	 * Records that ended in this frame with every byte in its output:
	 * DEC, and VERIFY records wholly inside it. Decrypted if it is marked.
	 */
	u16 dec_done;
	u16 ver_done;
	u16 dec13_done;
};

/* Count in the flow and engine-wide at once (fld: a struct hw_stats field). */
static inline void hw_stat_add(struct hw_stats *eng_st, u32 *flow_st,
			       size_t off, u64 v)
{
	*(u64 *)((u8 *)eng_st + off) += v;
	flow_st[off / sizeof(u64)] += (u32)v;
}

#define HW_STAT_IDX(fld)	(offsetof(struct hw_stats, fld) / sizeof(u64))
#define HW_STAT_ADD(e, f, fld, v) \
	hw_stat_add(&(e)->st, (f)->st, offsetof(struct hw_stats, fld), v)
#define HW_STAT_INC(e, f, fld)	HW_STAT_ADD(e, f, fld, 1)

/*
 * Header of a record whose start is known (SHADOW/SYNC/NOKEY, the reorder
 * walk): version 03 03 and a length the kernel's record parser takes; any
 * content type, as the parser too leaves the type to the record layer.
 * Guessing a boundary (SEARCH/TRACK, the driver's queued-record walk)
 * needs the stricter hw_tls_hdr_plausible().
 */
static inline bool hw_tls_hdr_parsable(const struct hw_tls_fmt *fmt,
				       const u8 *h)
{
	u16 l = hw_get_be16(h + 3);

	return h[1] == 3 && h[2] == 3 && l >= fmt->len_min && l <= fmt->len_max;
}

static inline bool hw_seq_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

static inline bool hw_seq_after(u32 a, u32 b)
{
	return hw_seq_before(b, a);
}

static inline u32 hw_min_u32(u32 a, u32 b)
{
	return a < b ? a : b;
}

static inline void hw_ring_push(struct hw_ring_ent *r, u8 *n, u8 *head, u8 cap,
				u32 seq, u64 idx)
{
	r[*head].seq = seq;
	r[*head].idx_lo = (u32)idx;
	r[*head].idx_hi = (u32)(idx >> 32);
	*head = (u8)((*head + 1) % cap);
	if (*n < cap)
		(*n)++;
}

static inline bool hw_ring_find(const struct hw_ring_ent *r, u8 n, u32 seq,
				u64 *idx)
{
	u8 i;

	for (i = 0; i < n; i++) {
		if (r[i].seq == seq) {
			*idx = (u64)r[i].idx_hi << 32 | r[i].idx_lo;
			return true;
		}
	}
	return false;
}

static inline void hw_set_state(struct hw_rx_ctx *cx, struct hw_flow *f,
				enum hw_flow_state s)
{
	if (f->state == HW_FS_SYNC && s != HW_FS_SYNC) {
		if (cx)
			cx->events |= HW_EV_SYNC_LOST;
		f->lat_phase = HW_LAT_LOST;
	}
	f->state = s;
}

/* engine.c */
void hw_chain_reset(struct hw_flow *f, u32 seq);
struct hw_key_slot *hw_select_key(struct hw_rx_ctx *cx, struct hw_flow *f,
				  u64 rn);

/* gcm_stream.c */
void hw_record_crypto_fail(struct hw_rx_ctx *cx, struct hw_flow *f);
void hw_gcm_init(struct hw_rx_ctx *cx, struct hw_flow *f,
		 const u8 iv[HW_TLS_IV_LEN]);
void hw_gcm_ghash(struct hw_flow *f, const u8 *in, u32 n);
void hw_gcm_decrypt(struct hw_rx_ctx *cx, struct hw_flow *f, u32 off,
		    const u8 *in, u8 *out, u32 n);
void hw_gcm_decrypt_ghash(struct hw_rx_ctx *cx, struct hw_flow *f, u32 off,
			  const u8 *in, u8 *out, u32 n);
bool hw_gcm_check(struct hw_flow *f);
void hw_gcm_drop_keystream(struct hw_flow *f);

/* reorder.c */
void hw_ro_cancel(struct hw_flow *f);
void hw_ro_start(struct hw_flow *f, u32 seq);
void hw_ro_add_gap(struct hw_flow *f, u32 seq);
void hw_ro_post(struct hw_flow *f, u32 seq, const u8 *d, u32 n);
void hw_ro_feed(struct hw_flow *f, u32 seq, const u8 *d, u32 n,
		bool trusted);
void hw_ro_try(struct hw_rx_ctx *cx, struct hw_flow *f);

#endif /* INNOVA_HW_ENGINE_PRIV_H */
