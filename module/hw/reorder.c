// SPDX-License-Identifier: GPL-2.0
/*
 * Innova hardware engine: reorder recovery ("reorder-good",
 * Documentation/networking/tls-offload.rst in the kernel tree).
 *
 * When a gap loses sync while record numbers are known (SYNC, SHADOW,
 * NOKEY), the engine remembers the current record (header seq, header
 * bytes seen, number), whether it was SYNC, and the gap, plus the first
 * HW_RO_POST in-order bytes after it (a header may straddle the gap's
 * end).  Stream scan, candidate following and resync requests go on
 * exactly as before.  Old data (the late frame, a retransmit, its
 * duplicates, pieces of it in any order) is still never marked and
 * changes no stream state, but is READ: the walk takes the true header(s)
 * from it and steps from record to record (several headers per late
 * frame, several late frames per gap, up to HW_RO_GAPS gaps in a row;
 * a CCS it passes does not end the key, see ro_resume()) while the next
 * header lies before the stream position.  It ends
 *  - caught up: the walk reaches the record containing exp_seq; that
 *    record becomes the current one (candidates followed since lay inside
 *    it, so they were false and the chain restarts there);
 *  - connected: the walk reaches a header the engine followed (ring): its
 *    chain index now has a number;
 *  - given up: the next header lies in bytes that passed unread (neither
 *    a gap nor kept) or the walk got too long (HW_RO_MAX_SPAN): the resync
 *    path simply continues; nothing was changed.
 * On success the numbers are set without a kernel round trip
 * (reorder_recovered, HW_EV_REORDER_RECOVERED).  A kernel confirmation
 * for an earlier request then agrees (resync_ok) or names a seq no longer
 * known (resync_skip); a kernel-supplied number (confirmation, hint)
 * arriving first cancels the walk.  The headers the walk read came from
 * old data, which TCP may not deliver (an injected segment with a forged
 * header looks just like a late one), so they never decide where a record
 * the engine decrypts starts, nor its nonce:
 *  - caught up: the current record's header and nonce are the walk's.  If
 *    every header byte the walk read came from a late frame that filled
 *    a gap exactly (its cut is the sender's: the anchoring rule of
 *    engine_priv.h, struct hw_record) or from new data, the flow resumes
 *    as below; otherwise (a piece of a frame, a duplicate cut elsewhere:
 *    possibly injected) in SHADOW, the next whole record verifying before
 *    anything is marked again, the current record followed.  The walked
 *    prefix is kept as the current record's, so a later copy that
 *    contradicts it drops sync (rx_tls_hdr_conflict);
 *  - connected: the current record and its nonce are the ones the engine
 *    framed from new data; the walk only gave the record number, which
 *    does not enter the keystream (TLS 1.2 nonces are explicit) and which
 *    every tag checks (it is in the AAD).  TLS 1.3 puts the number in the
 *    keystream: there a walk that read a header byte from possibly
 *    injected bytes (weak; the bytes kept right after a gap count as such
 *    in 1.3, a whole header fits in them) resumes in SHADOW.  Otherwise a
 *    flow that was SYNC before the gap, with a verified key, resumes in
 *    SYNC; the current record's rest is decrypted without tag check
 *    (DECNA: it is mixed anyway) only if its prefix is anchored, else it
 *    is followed.
 * State: fixed size per flow (struct hw_reorder).
 *
 * engine.c drives the walk: a gap starts it (hw_ro_start()) or adds to it
 * (hw_ro_add_gap()), in-order bytes right after a gap are kept
 * (hw_ro_post()), old data is fed to it (hw_ro_feed()) and then tried
 * (hw_ro_try()).
 */
#include "engine_priv.h"

void hw_ro_cancel(struct hw_flow *f)
{
	f->ro.valid = false;
	f->ro.ngap = 0;
}

void hw_engine_set_reorder_recovery(struct hw_engine *eng, bool on)
{
	u32 i;

	eng->reorder_recovery = on;
	if (on)
		return;
	for (i = 0; i < eng->capacity; i++)	/* walks in progress end */
		hw_ro_cancel(&eng->flows[i]);
}

bool hw_engine_reorder_recovery(const struct hw_engine *eng)
{
	return eng->reorder_recovery;
}

/*
 * Sync is lost at the gap [exp_seq, seq) with record numbers known: start
 * walking the true chain from the current record.  Its header bytes seen
 * so far are valid (a hole needs a complete header first).
 */
void hw_ro_start(struct hw_flow *f, u32 seq)
{
	struct hw_ro_gap *g = &f->ro.gap[0];

	if (!f->rn_known || f->state == HW_FS_SEARCH ||
	    f->state == HW_FS_TRACK)
		return;		/* numbers unknown: keep any walk going */
	f->ro.valid = true;
	f->ro.was_sync = f->state == HW_FS_SYNC;
	f->ro.seq = f->rec.seq;
	f->ro.pn = (u8)hw_min_u32(f->rec.pos, HW_TLS_HDR);
	memcpy(f->ro.pre, f->rec.hdr, f->ro.pn);
	f->ro.rn = f->rec.idx + f->rn_off;
	f->ro.weak = false;
	f->ro.ngap = 1;
	g->start = f->exp_seq;
	g->end = seq;
	g->npost = 0;
}

/* another gap while recovering (engine in SEARCH/TRACK) */
void hw_ro_add_gap(struct hw_flow *f, u32 seq)
{
	struct hw_ro_gap *g;

	if (f->ro.ngap >= HW_RO_GAPS || f->state == HW_FS_SYNC ||
	    f->state == HW_FS_SHADOW || f->state == HW_FS_NOKEY ||
	    seq - f->ro.seq > HW_RO_MAX_SPAN) {
		hw_ro_cancel(f);
		return;
	}
	g = &f->ro.gap[f->ro.ngap++];
	g->start = f->exp_seq;
	g->end = seq;
	g->npost = 0;
}

/* keep the first in-order bytes after the last gap */
void hw_ro_post(struct hw_flow *f, u32 seq, const u8 *d, u32 n)
{
	struct hw_ro_gap *g = &f->ro.gap[f->ro.ngap - 1];
	u32 m;

	if (g->npost >= HW_RO_POST || seq != g->end + g->npost)
		return;
	m = hw_min_u32(n, HW_RO_POST - g->npost);
	memcpy(g->post + g->npost, d, m);
	g->npost += (u8)m;
}

/* walked record complete and ended at or before exp_seq: next record */
static void ro_advance(struct hw_flow *f)
{
	while (f->ro.valid && f->ro.pn >= HW_TLS_HDR) {
		u32 nx = f->ro.seq + HW_TLS_HDR + hw_get_be16(f->ro.pre + 3);

		if (hw_seq_after(nx, f->exp_seq))
			return;
		f->ro.seq = nx;
		f->ro.pn = 0;
		f->ro.rn++;
	}
}

/* does [seq, seq + n) fill one of the walk's gaps exactly? */
static bool ro_fills_gap(const struct hw_flow *f, u32 seq, u32 n)
{
	u8 i;

	for (i = 0; i < f->ro.ngap; i++)
		if (f->ro.gap[i].start == seq && f->ro.gap[i].end == seq + n)
			return true;
	return false;
}

/*
 * Stream bytes [seq, seq + n) for the walk: a late frame, the old part of
 * one, or kept bytes (new data, trusted).
 */
void hw_ro_feed(struct hw_flow *f, u32 seq, const u8 *d, u32 n, bool trusted)
{
	trusted = trusted || ro_fills_gap(f, seq, n);
	for (;;) {
		u32 o, m;

		ro_advance(f);
		if (!f->ro.valid || f->ro.pn >= HW_PFX(f))
			return;
		o = f->ro.seq + f->ro.pn - seq;
		if (o >= n)
			return;
		m = hw_min_u32(n - o, (u32)HW_PFX(f) - f->ro.pn);
		memcpy(f->ro.pre + f->ro.pn, d + o, m);
		if (!trusted)
			f->ro.weak = true;
		if (f->ro.pn < HW_TLS_HDR && f->ro.pn + m >= HW_TLS_HDR &&
		    !hw_tls_hdr_parsable(HW_FMT(f), f->ro.pre)) {
			/* the kernel will fail it too */
			hw_ro_cancel(f);
			return;
		}
		f->ro.pn += (u8)m;
	}
}

/*
 * Numbers known again; the current record (rec.pos > 0) was seen without
 * crypto.  sync: its framing came from new data (ro_connect()); then, in
 * SYNC, with an anchored prefix and no hole, its rest is DECNA so the next
 * record starts in a markable frame; otherwise it is followed.
 */
static void ro_resume(struct hw_rx_ctx *cx, struct hw_flow *f, bool sync)
{
	struct hw_key_slot *ks;
	/*
	 * 1.3: a record type is inside its ciphertext, so every record from
	 * the one the gap hit up to the current one went by untyped (walked
	 * over late data, or followed ahead of the gap) and may have been a
	 * KeyUpdate that ended the key.  In sync only if the current record
	 * is the one the gap hit and its rest is decrypted here, so that
	 * inner_end() reads its type; otherwise the next record's tag is
	 * checked before any frame is marked.
	 */
	bool typed = HW_FMT(f)->explicit_nonce ||
		     f->rec.idx + f->rn_off == f->ro.rn0;

	sync = sync && f->ro.was_sync && f->keys.cur.verified;
	/*
	 * A ChangeCipherSpec the walk read never ends the key: its bytes come
	 * from late frames, and a forged one that fills a gap exactly looks
	 * like the sender's (the residual case, with the ACK test off) and
	 * would leave the flow in NOKEY for a key that never comes (seeds
	 * 74568254, 73273417).  Missing a real one costs a failed tag and a
	 * resync; record_end() still ends the key at a verified one.
	 */
	hw_ro_cancel(f);
	f->rec.mode = HW_RM_FOLLOW;
	f->rec.key = NULL;
	ks = NULL;
	if (sync && f->rec.pos && !f->rec.hole && f->rec.anchored &&
	    f->rec.pfx_n >= hw_min_u32(f->rec.pos, HW_PFX(f))) {
		ks = hw_select_key(cx, f, f->rec.idx + f->rn_off);
		if (ks && !ks->verified)
			ks = NULL;
	}
	/* 1.3 stays in sync only through a record whose rest is decrypted */
	if (!HW_FMT(f)->explicit_nonce && (!typed || (f->rec.pos && !ks)))
		sync = false;
	hw_set_state(cx, f, sync ? HW_FS_SYNC : HW_FS_SHADOW);
	HW_STAT_INC(cx->eng, f, reorder_recovered);
	cx->events |= HW_EV_REORDER_RECOVERED | (sync ? HW_EV_SYNCED : 0);
	if (!sync || !ks)
		return;
	f->rec.key = ks->k;
	f->rec.mode = HW_RM_DECNA;
	if (f->rec.pos >= HW_PFX(f))
		hw_gcm_init(cx, f, ks->iv);
}

/*
 * the walk reached a header the engine followed (chain index idx).  TLS
 * 1.3: the record number is in the keystream, so a number the walk
 * counted over a header it read from possibly injected bytes (weak) is no
 * better than that header: SHADOW, the next record's tag decides.
 */
static void ro_connect(struct hw_rx_ctx *cx, struct hw_flow *f, u64 idx)
{
	f->rn_off = f->ro.rn - idx;
	f->rn_known = true;
	if (f->keys.end_idx_valid) {
		u64 e = f->keys.end_idx + f->rn_off;

		if (e < f->keys.end_rn)
			f->keys.end_rn = e;
		f->keys.end_idx_valid = false;
	}
	/*
	 * The chain itself was framed from new data that came ahead of the
	 * gap: without TCP's ACK test in front of it, that may be an injected
	 * copy whose headers miscount the records (1.3: a wrong keystream).
	 * 1.3 also needs the record types ro_resume() checks.
	 */
	ro_resume(cx, f, HW_FMT(f)->explicit_nonce ||
		  (!f->ro.weak && cx->eng->ack_check && f->snd_known));
}

/*
 * The walk caught up with the stream: the record containing exp_seq is
 * the walked one.  Whatever candidate the engine followed since the gap
 * lies inside a record, i.e. was false: restart the chain here.
 */
static void ro_catch_up(struct hw_rx_ctx *cx, struct hw_flow *f)
{
	u32 rpos = f->exp_seq - f->ro.seq;

	hw_chain_reset(f, f->ro.seq);
	f->rec.pos = rpos;
	if (f->ro.pn >= HW_TLS_HDR)
		f->rec.len = HW_TLS_HDR + hw_get_be16(f->ro.pre + 3);
	memcpy(f->rec.hdr, f->ro.pre, f->ro.pn);
	f->rec.pfx_n = f->ro.pn;
	f->rec.anchored = !f->ro.weak;
	f->rn_off = f->ro.rn;
	f->rn_known = true;
	f->ncarry = 0;
	if (rpos)
		hw_ring_push(f->chain.ring, &f->chain.ring_n,
			     &f->chain.ring_head, HW_RING_N, f->rec.seq, 0);
	ro_resume(cx, f, !f->ro.weak);
}

static bool ro_in_gap(const struct hw_flow *f, u32 p)
{
	u8 i;

	for (i = 0; i < f->ro.ngap; i++) {
		if (p - f->ro.gap[i].start < f->ro.gap[i].end -
		    f->ro.gap[i].start)
			return true;
	}
	return false;
}

/* after late data was fed: resume, keep waiting, or give up */
void hw_ro_try(struct hw_rx_ctx *cx, struct hw_flow *f)
{
	bool again;
	u64 idx;
	u8 i;

	if (!f->ro.valid)
		return;
	if ((f->state != HW_FS_SEARCH && f->state != HW_FS_TRACK) ||
	    f->exp_seq - f->ro.seq > HW_RO_MAX_SPAN) {
		hw_ro_cancel(f);
		return;
	}
	do {
		u32 p, pn0 = f->ro.pn, s0 = f->ro.seq;

		again = false;
		ro_advance(f);
		if (!f->ro.valid)
			return;
		if (f->ro.pn >= HW_TLS_HDR ||
		    f->ro.seq + f->ro.pn == f->exp_seq) {
			ro_catch_up(cx, f);
			return;
		}
		if (hw_ring_find(f->chain.ring, f->chain.ring_n, f->ro.seq,
				 &idx)) {
			ro_connect(cx, f, idx);
			return;
		}
		/*
		 * Header bytes kept right after a gap: new data, but from a
		 * frame that came ahead of a gap, which may be an injected one
		 * (TCP drops it; the genuine copy may come as old data the
		 * walk has already passed).  TLS 1.2: they never complete a
		 * prefix (HW_RO_POST < 13), so the record is followed, and a
		 * wrong length or count costs a tag, not a keystream (the
		 * nonce is explicit).  TLS 1.3: a whole header fits, and its
		 * record number is in the keystream: weak, the flow resumes
		 * in SHADOW.
		 */
		p = f->ro.seq + f->ro.pn;
		for (i = 0; i < f->ro.ngap; i++) {
			struct hw_ro_gap *g = &f->ro.gap[i];

			if (p - g->end < g->npost) {
				hw_ro_feed(f, g->end, g->post, g->npost,
					   HW_FMT(f)->explicit_nonce);
				again = f->ro.valid && (f->ro.pn != pn0 ||
							f->ro.seq != s0);
				break;
			}
		}
	} while (again);
	/* passed unseen: the resync path goes on */
	if (f->ro.valid && !ro_in_gap(f, f->ro.seq + f->ro.pn))
		hw_ro_cancel(f);
}

