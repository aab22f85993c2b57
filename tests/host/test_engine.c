// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests for the Innova RX engine: differential against OpenSSL one-shot
 * AES-GCM over real Ethernet/IP/TCP frames, with a small model of the 6.1
 * kTLS core (TCP reassembly, strparser, DRIVER_REQ matching, NEXT_HINT),
 * invariants checked on every frame, and coverage numbers.
 * Output: TAP lines on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include "tls_stream.h"

extern int hw_crypto_fail_next;
extern int hw_crypto_fail_ctr_in;

static int tap_n;
static int tap_fail;
static char fail_msg[512];
static int cur_failed;

static void failf(const char *fmt, ...)
{
	va_list ap;

	if (cur_failed++)
		return;
	va_start(ap, fmt);
	vsnprintf(fail_msg, sizeof(fail_msg), fmt, ap);
	va_end(ap);
}

#define CHECK(cond, ...) do { if (!(cond)) failf(__VA_ARGS__); } while (0)

static void tap(const char *name)
{
	tap_n++;
	if (cur_failed) {
		printf("not ok %d - %s\n#   %s\n", tap_n, name, fail_msg);
		tap_fail++;
	} else {
		printf("ok %d - %s\n", tap_n, name);
	}
	fflush(stdout);
	cur_failed = 0;
}

/* ------------------------------------------------------------------ */

struct scen {
	const char *name;
	struct stream_cfg sc;
	int family;
	bool vlan, tsopt;
	int seg_mode;		/* 0 mss, 1 random, 2 tiny, 3 mixed */
	double loss, dup, reorder, badcsum, overlap, noise;
	int hold;		/* reorder like the cable: hold one frame at a
				 * time, release it after 'hold' later frames */
	int keymode;		/* 0 none, 1 on time, 2 late, 3 wrong+fix */
	bool snd_known;		/* the driver gives the host's snd_nxt (the frames' ACK) */
	bool only13;		/* TLS 1.3 only (1.2's kTLS never changes keys) */
	bool unsynced;		/* install mid-stream, start_synced = false */
	int mode;		/* 0 DRIVER_REQ, 1 CORE_NEXT_HINT */
	bool no_reorder_recovery;	/* every lost sync via the kernel */
	int lag;		/* strparser lag in records */
	int seeds;
	double min_cov;		/* untouched-record coverage, < 0 = none */
	double min_cov13;	/* TLS 1.3's, if lower (0: min_cov) */
	bool clean;		/* 100 % after the sync records */
	bool expect_resync;	/* must get back in sync after faults */
};

struct item {
	double key;
	u32 off, len;
	bool lost_first;	/* first transmission of a lost segment */
	bool corrupt;		/* bad checksum copy */
	bool held;		/* delivered late (reordered) */
	int noise;		/* 0 data, 1 other flow, 2 pure ack, 3 non-IP */
};

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

struct kmodel {
	u8 *rcvd, *dec, *lost;
	u32 rcv_nxt;
	int parse_i;
	bool req_valid;
	u32 req_seq;
	int consec, tgt;
	int done_i;		/* records consumed (NEXT_HINT) */
	u64 confirms;
};

struct run_res {
	int nrec, first_dec, dec, untouched, untouched_dec, after_first,
	    after_first_dec;
	struct hw_stats st;
	u64 confirms;
	u64 touched_bytes, touched_dec_bytes, bytes, dec_bytes;
	int late_dec;		/* records decrypted after the last key change */
};

static struct hw_engine *mk_engine(u32 cap, void **mem)
{
	size_t sz = hw_engine_mem_size(cap);

	*mem = malloc(sz);
	return hw_engine_init(*mem, sz, cap);
}

static u32 seg_len(int mode, struct rng *r)
{
	switch (mode) {
	case 0:
		return 1448;
	case 1:
		return 1 + rng_below(r, 1448);
	case 2:
		return rng_chance(r, 0.3) ? 1 : 1 + rng_below(r, 40);
	default:
		return rng_chance(r, 0.05) ? 1 + rng_below(r, 8) :
		       rng_chance(r, 0.5) ? 1448 : 1 + rng_below(r, 1448);
	}
}

/* One run of a scenario: the stream, the engine, the harness's models. */
struct run_ctx {
	const struct scen *sc;
	struct rng r;
	struct stream s;
	struct frame_cfg fc, fnoise;	/* the flow's frames, another flow's */
	struct hw_engine *eng;
	void *mem;
	u32 handle;
	struct kmodel km;
	struct item *it;		/* transmission schedule, in send order */
	size_t nit;
	u8 *frame, *copy, *out;
	u8 *rec_holed;			/* per record: a hole went through it */
	u32 start_off;			/* stream offset the flow is installed at */
	u32 h_exp;			/* harness's model of the engine's exp_seq */
	int next_ep;			/* next key epoch to announce */
	bool refresh_pending;		/* a wrong key went in: expect refresh */
};

/* stream, frame addressing, engine; an unsynced install starts mid-record */
static void run_setup(struct run_ctx *rc, const struct scen *sc, u64 seed)
{
	int i;

	rc->sc = sc;
	rc->r.s = seed * 0x9E3779B97F4A7C15ULL + 12345;
	stream_gen(&rc->s, &sc->sc, &rc->r);
	rc->fc.family = sc->family;
	for (i = 0; i < 16; i++) {
		rc->fc.saddr[i] = (u8)(0x20 + i);
		rc->fc.daddr[i] = (u8)(0x40 + i);
	}
	rc->fc.sport = 443;
	rc->fc.dport = 40000 + (u16)rng_below(&rc->r, 1000);
	rc->fc.vlan = sc->vlan;
	rc->fc.tsopt = sc->tsopt;
	rc->fnoise = rc->fc;
	rc->fnoise.dport = (u16)(rc->fc.dport + 1);

	rc->eng = mk_engine(8, &rc->mem);
	CHECK(hw_engine_reorder_recovery(rc->eng), "recovery off by default");
	if (sc->no_reorder_recovery)
		hw_engine_set_reorder_recovery(rc->eng, false);
	if (sc->unsynced && rc->s.nrec > 4)
		rc->start_off = rc->s.rec[3].off + rc->s.rec[3].len / 2;
	rc->next_ep = 1;
	rc->frame = malloc(16384 * 4);
	rc->copy = malloc(16384 * 4);
	rc->out = malloc(16384 * 4);
}

/*
 * The transmission schedule: every segment with its send time (key),
 * plus the scenario's losses (and retransmits), reordering, bad-checksum
 * copies, duplicates, overlapping retransmits and noise; then sorted.
 */
static void run_schedule(struct run_ctx *rc)
{
	const struct scen *sc = rc->sc;
	struct rng *r = &rc->r;
	u32 n = rc->s.n, off;
	double t = 0, hold_free = 0;
	size_t cap = 64 + n * 4;
	struct item *it = calloc(cap, sizeof(*it));
	size_t nit = 0;

	for (off = rc->start_off; off < n; t += 1) {
		u32 l = seg_len(sc->seg_mode, r);
		struct item x = { 0 };

		if (l > n - off)
			l = n - off;
		x.off = off;
		x.len = l;
		x.key = t;
		if (rng_chance(r, sc->loss)) {
			struct item rt = x;

			x.lost_first = true;
			it[nit++] = x;	/* recorded, never sent */
			rt.lost_first = false;
			rt.key = t + 1 + rng_below(r, 6) + 0.5;
			if (rng_chance(r, sc->overlap)) {
				rt.len += rng_below(r, 1400);
				if (rt.off + rt.len > n)
					rt.len = n - rt.off;
			}
			it[nit++] = rt;
		} else if (sc->hold && t >= hold_free &&
			   rng_chance(r, sc->reorder)) {
			/* the cable: released after 'hold' frames */
			x.key = t + sc->hold + 0.25;
			x.held = true;
			hold_free = t + sc->hold + 1;
			it[nit++] = x;
		} else if (!sc->hold && rng_chance(r, sc->reorder)) {
			x.key = t + 1 + rng_below(r, 3) + 0.25;
			x.held = true;
			it[nit++] = x;
		} else if (rng_chance(r, sc->badcsum)) {
			struct item good = x;

			x.corrupt = true;
			it[nit++] = x;
			good.key = t + 1 + rng_below(r, 4) + 0.5;
			it[nit++] = good;
		} else {
			it[nit++] = x;
		}
		if (rng_chance(r, sc->dup)) {
			struct item d = x;

			d.lost_first = false;
			d.corrupt = false;
			d.key = t + 1 + rng_below(r, 8) + 0.75;
			it[nit++] = d;
		}
		if (rng_chance(r, sc->overlap) && off > 200) {
			struct item o = { 0 };

			o.off = off - rng_below(r, 200) - 1;
			o.len = (off - o.off) + rng_below(r, l);
			o.key = t + 0.1;
			it[nit++] = o;
		}
		if (rng_chance(r, sc->noise)) {
			struct item ni = { 0 };

			ni.noise = 1 + (int)rng_below(r, 3);
			ni.key = t + 0.6;
			ni.off = off;
			ni.len = 1 + rng_below(r, 1448);
			it[nit++] = ni;
		}
		off += l;
		if (nit + 8 >= cap)
			break;
	}
	qsort(it, nit, sizeof(*it), item_cmp);
	rc->it = it;
	rc->nit = nit;
}

/*
 * The model kernel starts with everything before the install received
 * and parsed; then the flow is installed (in sync unless unsynced).
 */
static void run_install(struct run_ctx *rc)
{
	struct kmodel *km = &rc->km;
	struct stream *s = &rc->s;
	struct hw_flow_params fp;
	struct hw_crypto_key *key;
	u32 off;

	km->rcvd = calloc(1, s->n + 1);
	km->dec = calloc(1, s->n + 1);
	km->lost = calloc(1, s->n + 1);
	km->tgt = 2;
	rc->rec_holed = calloc(1, (size_t)s->nrec + 1);
	for (off = 0; off < rc->start_off; off++)
		km->rcvd[off] = 1;
	km->rcv_nxt = rc->start_off;
	while (km->parse_i < s->nrec &&
	       s->rec[km->parse_i].off + 5 <= rc->start_off)
		km->parse_i++;
	km->done_i = km->parse_i;

	CHECK(!hw_crypto_key_new(s->ep[0].key, s->ep[0].klen, &key), "key_new");
	memset(&fp, 0, sizeof(fp));
	frame_tuple(&rc->fc, &fp.tuple);
	fp.key = key;
	stream_flow_params(s, &fp);
	fp.start_seq = s->isn + rc->start_off;
	fp.start_rn = s->rn0;
	fp.start_synced = !rc->sc->unsynced;
	if (rc->sc->snd_known) {
		/* as the guest's driver: TCP's ACK test in the NIC is armed */
		fp.snd_nxt = 0x11223344;	/* every frame's ACK (frame_build) */
		fp.snd_known = true;
	}
	CHECK(!hw_engine_flow_add(rc->eng, &fp, &rc->handle), "flow_add");
	rc->h_exp = s->isn + rc->start_off;
}

/* driver: key update command for epoch ep from its first record on */
static void run_key_update(struct run_ctx *rc, const struct epoch *ep,
			   bool wrong)
{
	struct hw_key_reap reap = { .n = 0 };
	struct hw_crypto_key *key;
	u8 kb[32], iv[HW_TLS_IV_LEN];

	memcpy(kb, ep->key, 32);
	if (wrong)
		kb[0] ^= 1;
	epoch_iv(ep, iv);
	CHECK(!hw_crypto_key_new(kb, ep->klen, &key), "key_new");
	CHECK(!hw_engine_flow_key_update(rc->eng, rc->handle, key, iv,
					 ep->from_rn, &reap), "key_update");
	hw_key_reap_free(&reap);
}

/* late keys the flow waited for in NOKEY, its handover checked (keymode 2) */
static unsigned int nokey_handovers;

/*
 * Key update commands due before frame x: on time (with the record
 * before the new key), or late (two records after it); keymode 3 gives
 * a wrong key that the engine must ask to have refreshed.
 */
static void run_key_updates(struct run_ctx *rc, const struct item *x)
{
	const struct scen *sc = rc->sc;
	struct stream *s = &rc->s;

	while (sc->keymode && rc->next_ep < s->nep) {
		int ri = (int)(s->ep[rc->next_ep].from_rn - s->rn0);
		bool issue = false, wrong = false;

		if (ri >= s->nrec)
			break;
		if (sc->keymode == 1 || sc->keymode == 3) {
			issue = x->off + x->len > s->rec[ri - 1].off;
			wrong = sc->keymode == 3;
		} else if (sc->keymode == 2) {
			int li = ri + 2 < s->nrec ? ri + 2 : s->nrec - 1;

			issue = x->off >= s->rec[li].off;
		}
		if (!issue)
			break;
		if (sc->keymode == 2) {
			struct hw_flow_info fi;

			/*
			 * A late key: a flow that follows the records it has
			 * no key for says where the first of them starts (the
			 * driver starts a replacement flow after them).
			 */
			CHECK(!hw_engine_flow_info(rc->eng, rc->handle, &fi),
			      "flow_info");
			/*
			 * (after a loss it may only know from a later record
			 * on: the first it met without a key)
			 */
			if (fi.nokey_known) {
				u64 ni = fi.nokey_rn - s->rn0;
				bool exact = !sc->loss && !sc->reorder;

				CHECK(fi.nokey_rn >= s->ep[rc->next_ep].from_rn &&
				      (!exact || fi.nokey_rn == s->ep[rc->next_ep].from_rn) &&
				      ni < (u64)s->nrec &&
				      fi.nokey_seq == s->isn + s->rec[ni].off &&
				      fi.record_num >= fi.nokey_rn,
				      "no key from rn %llu seq %u, want rn %llu seq %u (now at rn %llu)",
				      (unsigned long long)fi.nokey_rn, fi.nokey_seq - s->isn,
				      (unsigned long long)s->ep[rc->next_ep].from_rn,
				      s->rec[ri].off, (unsigned long long)fi.record_num);
				nokey_handovers++;
			}
		}
		run_key_update(rc, &s->ep[rc->next_ep], wrong);
		if (wrong)
			rc->refresh_pending = true;
		rc->next_ep++;
	}
}

/* another flow's data, a pure ACK or a non-IP frame: never touched */
static void run_noise(struct run_ctx *rc, const struct item *x)
{
	struct hw_rx_completion c;
	u8 pl[1448];
	u32 flen;

	for (u32 j = 0; j < x->len; j++)
		pl[j] = (u8)rng_next(&rc->r);
	if (x->noise == 1) {
		flen = frame_build(rc->frame, &rc->fnoise, (u32)rng_next(&rc->r),
				   0x18, pl, x->len);
	} else if (x->noise == 2) {
		flen = frame_build(rc->frame, &rc->fc, rc->s.isn + x->off,
				   0x10, NULL, 0);
	} else {
		flen = 60;
		memcpy(rc->frame, pl, 60);
		hw_put_be16(rc->frame + 12, 0x0806);
	}
	memcpy(rc->copy, rc->frame, flen);
	hw_engine_rx(rc->eng, rc->frame, flen, rc->out, &c);
	CHECK(!hw_rx_decrypted(&c) && !c.resync_req,
	      "noise frame marked/requested");
	CHECK(!memcmp(rc->copy, rc->frame, flen), "input modified");
}

/*
 * Recovery from late data: only on a frame carrying old bytes, never
 * marked, never a request, and the numbers it derived are the
 * strparser's: the record the engine is in has the reference record
 * number.
 */
static void check_recovery(struct run_ctx *rc, u32 seq,
			   const struct hw_flow_info *before,
			   const struct hw_flow_info *after,
			   const struct hw_rx_completion *c, bool marked)
{
	struct stream *s = &rc->s;
	u32 rs = after->record_seq - s->isn;
	int ri = stream_rec_at(s, rs);

	CHECK(after->stats.reorder_recovered ==
	      before->stats.reorder_recovered + 1,
	      "recovered twice in one frame");
	CHECK((s32)(seq - before->expected_seq) < 0,
	      "recovery on a frame without old data");
	CHECK(!marked && (!c->resync_req || c->auth_fail),
	      "recovering frame marked/requested");
	CHECK(c->events & HW_EV_REORDER_RECOVERED, "no event");
	CHECK(after->record_num_known &&
	      ((ri >= 0 && s->rec[ri].off == rs &&
		s->rec[ri].rn == after->record_num) ||
	       (rs == s->n && after->record_num ==
		s->rec[s->nrec - 1].rn + 1)),
	      "recovered to a wrong record (seq %u rn %llu)",
	      rs, (unsigned long long)after->record_num);
	CHECK(after->state == HW_FS_SYNC ||
	      after->state == HW_FS_SHADOW ||
	      after->state == HW_FS_NOKEY,
	      "recovered into state %s",
	      hw_flow_state_name(after->state));
	CHECK(!after->reorder_pending, "still pending");
}

/* harness model of the engine's progress: records a hole went through */
static void track_holes(struct run_ctx *rc, const struct item *x, u32 seq)
{
	struct stream *s = &rc->s;

	if ((s32)(seq - rc->h_exp) > 0) {
		for (u32 o = rc->h_exp - s->isn; o < x->off; ) {
			int ri = stream_rec_at(s, o);

			if (ri < 0)
				break;
			rc->rec_holed[ri] = 1;
			o = s->rec[ri].off + s->rec[ri].len;
		}
	}
	if ((s32)(seq + x->len - rc->h_exp) > 0)
		rc->h_exp = seq + x->len;
}

/* a marked frame: headers kept, every byte the plaintext, no bad record */
static void check_marked(struct run_ctx *rc, const struct item *x, u32 seq,
			 u32 hl, u32 flen)
{
	struct stream *s = &rc->s;
	const u8 *out = rc->out, *frame = rc->frame;

	CHECK(!memcmp(out, frame, hl), "headers not copied");
	CHECK(!memcmp(out + hl + x->len, frame + hl + x->len,
		      flen - hl - x->len), "trailer not copied");
	for (u32 j = 0; j < x->len; j++) {
		u32 o = x->off + j;

		if (!s->valid[o] || out[hl + j] != s->plain[o]) {
			failf("marked frame seq %u byte %u wrong (valid %d)",
			      seq, j, s->valid[o]);
			break;
		}
	}
	/* a frame completing a bad record is never marked */
	for (u32 o = x->off; o < x->off + x->len; ) {
		int ri = stream_rec_at(s, o);

		if (ri < 0)
			break;
		if (s->rec[ri].off + s->rec[ri].len <= x->off + x->len &&
		    !s->rec[ri].tag_ok && !rc->rec_holed[ri])
			failf("marked frame completes bad record %d", ri);
		o = s->rec[ri].off + s->rec[ri].len;
	}
}

/*
 * Model kernel: TCP accepts the frame's new bytes, the strparser parses
 * whole headers (lagging sc->lag records) and, in DRIVER_REQ mode,
 * confirms the pending request when it parses that header.
 */
static void kernel_receive(struct run_ctx *rc, const struct item *x,
			   bool marked)
{
	const struct scen *sc = rc->sc;
	struct kmodel *km = &rc->km;
	struct stream *s = &rc->s;

	for (u32 j = 0; j < x->len; j++) {
		u32 o = x->off + j;

		if (!km->rcvd[o] && o >= km->rcv_nxt) {
			km->rcvd[o] = 1;
			km->dec[o] = marked;
		}
	}
	while (km->rcv_nxt < s->n && km->rcvd[km->rcv_nxt])
		km->rcv_nxt++;
	while (km->parse_i < s->nrec) {
		struct ref_rec *rr = &s->rec[km->parse_i];
		int li = km->parse_i + sc->lag;

		if (li >= s->nrec)
			li = s->nrec - 1;
		if (rr->off + 5 > km->rcv_nxt ||
		    (sc->lag && s->rec[li].off + s->rec[li].len >
		     km->rcv_nxt))
			break;
		if (sc->mode == 0 && km->req_valid &&
		    km->req_seq == s->isn + rr->off + 4) {
			km->req_valid = false;
			km->confirms++;
			hw_engine_flow_resync(rc->eng, rc->handle,
					      s->isn + rr->off, rr->rn);
		}
		km->parse_i++;
	}
}

/*
 * Model kernel, CORE_NEXT_HINT: consume whole parsed records; after a
 * run of records the device did not decrypt (doubling each time), tell
 * it where the next record starts and its number.
 */
static void kernel_next_hint(struct run_ctx *rc)
{
	struct kmodel *km = &rc->km;
	struct stream *s = &rc->s;

	while (km->done_i < km->parse_i) {
		struct ref_rec *rr = &s->rec[km->done_i];
		u32 nd = 0;

		if (rr->off + rr->len > km->rcv_nxt)
			break;
		for (u32 o = rr->off; o < rr->off + rr->len; o++)
			nd += km->dec[o];
		if (nd) {
			km->consec = 0;
			km->tgt = 2;
		} else if (++km->consec > km->tgt) {
			km->consec = 0;
			km->tgt = km->tgt < 128 ? km->tgt * 2 : km->tgt + 128;
			if (km->done_i + 1 < s->nrec) {
				km->confirms++;
				hw_engine_flow_resync(rc->eng, rc->handle,
						      s->isn + rr->off + rr->len,
						      rr->rn + 1);
			}
		}
		km->done_i++;
	}
}

/* one data frame of the flow through the engine, checked, then the kernel */
static void run_data_frame(struct run_ctx *rc, const struct item *x)
{
	struct stream *s = &rc->s;
	struct hw_rx_completion c;
	struct hw_flow_info before, after;
	u32 flen, hl = frame_hdr_len(&rc->fc), seq;
	bool marked;

	seq = s->isn + x->off;
	flen = frame_build(rc->frame, &rc->fc, seq, 0x18, s->wire + x->off,
			   x->len);
	if (x->corrupt)
		rc->frame[hl + rng_below(&rc->r, x->len)] ^= 0x10;
	memcpy(rc->copy, rc->frame, flen);
	memset(rc->out, 0xa5, flen);
	hw_engine_flow_info(rc->eng, rc->handle, &before);
	hw_engine_rx(rc->eng, rc->frame, flen, rc->out, &c);
	marked = hw_rx_decrypted(&c);
	if (x->held)
		memset(rc->km.lost + x->off, 1, x->len);
	hw_engine_flow_info(rc->eng, rc->handle, &after);
	if (after.stats.reorder_recovered != before.stats.reorder_recovered)
		check_recovery(rc, seq, &before, &after, &c, marked);
	CHECK(!after.reorder_pending || after.state == HW_FS_SEARCH ||
	      after.state == HW_FS_TRACK,
	      "reorder walk pending in state %s",
	      hw_flow_state_name(after.state));

	/* ---- invariants ---- */
	CHECK(!memcmp(rc->copy, rc->frame, flen), "input frame modified");
	CHECK(c.is_tcp, "not parsed as TCP");
	CHECK(!c.crypto_success || !c.auth_fail, "success+auth_fail");
	CHECK(!c.crypto_success || c.crypto_done, "success w/o done");
	if (x->corrupt) {
		CHECK(!c.csum_ok && !marked && !c.resync_req,
		      "bad checksum frame accepted");
		before.stats.bad_csum++;
		CHECK(!memcmp(&before, &after, sizeof(before)),
		      "bad checksum frame changed flow state");
		return;
	}
	CHECK(c.csum_ok && c.is_tls_flow && c.flow == rc->handle,
	      "flow frame not recognised");
	CHECK(c.payload_off == hl && c.payload_len == x->len,
	      "payload offsets");
	track_holes(rc, x, seq);
	if (marked)
		check_marked(rc, x, seq, hl, flen);
	if (c.resync_req) {
		u32 rs = c.resync_seq - s->isn;

		CHECK(rs >= x->off && rs < x->off + x->len && rs >= 4 &&
		      hdr_plausible_bytes(s->wire + rs - 4),
		      "resync request for seq not seen in frame");
		rc->km.req_valid = true;
		rc->km.req_seq = c.resync_seq;
	}
	if ((c.events & HW_EV_KEY_REFRESH_NEEDED) && rc->refresh_pending) {
		/* driver: reinstall the right key */
		run_key_update(rc, &s->ep[rc->next_ep - 1], false);
		rc->refresh_pending = false;
	}

	kernel_receive(rc, x, marked);
	if (rc->sc->mode == 1)
		kernel_next_hint(rc);
}

/* the schedule, frame by frame, until the first failed check */
static void run_frames(struct run_ctx *rc)
{
	for (size_t k = 0; k < rc->nit && !cur_failed; k++) {
		const struct item *x = &rc->it[k];

		if (x->lost_first) {
			memset(rc->km.lost + x->off, 1, x->len);
			continue;
		}
		run_key_updates(rc, x);
		if (x->noise)
			run_noise(rc, x);
		else
			run_data_frame(rc, x);
	}
}

/* per record: decrypted whole by the device? touched by a hole? */
static void run_account(struct run_ctx *rc, struct run_res *res)
{
	struct kmodel *km = &rc->km;
	struct stream *s = &rc->s;
	int i;

	res->nrec = s->nrec;
	res->first_dec = -1;
	for (i = 0; i < s->nrec; i++) {
		struct ref_rec *rr = &s->rec[i];
		bool all = true, touched = false;

		if (rr->off < rc->start_off)
			continue;
		for (u32 o = rr->off; o < rr->off + rr->len; o++) {
			all &= km->dec[o] && km->rcvd[o];
			touched |= km->lost[o];
		}
		if (all) {
			res->dec++;
			if (res->first_dec < 0)
				res->first_dec = i;
		}
		if (res->first_dec >= 0 && i >= res->first_dec) {
			res->after_first++;
			res->after_first_dec += all;
		}
		if (!touched && i >= 3) {
			res->untouched++;
			res->untouched_dec += all;
		}
		for (u32 o = rr->off; o < rr->off + rr->len; o++) {
			bool d = km->dec[o] && km->rcvd[o];

			res->bytes++;
			res->dec_bytes += d;
			if (touched) {
				res->touched_bytes++;
				res->touched_dec_bytes += d;
			}
		}
		if (s->nep > 1 && rr->rn >= s->ep[s->nep - 1].from_rn + 3 &&
		    all)
			res->late_dec++;
	}
	hw_engine_stats(rc->eng, &res->st);
	res->confirms = km->confirms;
}

/* delete the flow (twice: the second must fail), free everything */
static void run_teardown(struct run_ctx *rc)
{
	struct hw_key_reap reap = { .n = 0 };

	CHECK(!hw_engine_flow_del(rc->eng, rc->handle, &reap), "flow_del");
	hw_key_reap_free(&reap);
	CHECK(hw_engine_flow_del(rc->eng, rc->handle, &reap) == -ENOENT,
	      "double delete");
	hw_engine_fini(rc->eng);
	free(rc->mem);
	free(rc->frame);
	free(rc->copy);
	free(rc->out);
	free(rc->it);
	free(rc->km.rcvd);
	free(rc->km.dec);
	free(rc->km.lost);
	free(rc->rec_holed);
	stream_free(&rc->s);
}

static void run_one(const struct scen *sc, u64 seed, struct run_res *res)
{
	struct run_ctx rc = { 0 };

	memset(res, 0, sizeof(*res));
	run_setup(&rc, sc, seed);
	run_schedule(&rc);
	run_install(&rc);
	run_frames(&rc);
	run_account(&rc, res);
	run_teardown(&rc);
}

static void run_scen(const struct scen *sc)
{
	u64 un = 0, und = 0, af = 0, afd = 0, tot = 0, dec = 0, conf = 0;
	u64 auth = 0, late = 0, refresh = 0, hints = 0, lost = 0, rec = 0;
	u64 by = 0, dby = 0, reqs = 0;
	int seed, late_dec_min = 1 << 30;

	nokey_handovers = 0;
	for (seed = 0; seed < sc->seeds && !cur_failed; seed++) {
		struct run_res rr;

		run_one(sc, (u64)seed + 1 + (u64)tap_n * 1000, &rr);
		un += rr.untouched;
		und += rr.untouched_dec;
		af += rr.after_first;
		afd += rr.after_first_dec;
		tot += (u64)rr.nrec;
		dec += (u64)rr.dec;
		conf += rr.confirms;
		auth += rr.st.auth_fail;
		late += rr.st.key_late;
		refresh += rr.st.key_refresh;
		hints += rr.st.resync_hint;
		lost += rr.st.sync_lost;
		rec += rr.st.reorder_recovered;
		reqs += rr.st.resync_req;
		by += rr.bytes;
		dby += rr.dec_bytes;
		if (sc->clean || sc->no_reorder_recovery)
			CHECK(!rr.st.reorder_recovered,
			      "recovered without late data or when off");
		if (sc->no_reorder_recovery)
			CHECK(!rr.st.sync_lost || rr.st.resync_req,
			      "sync lost, recovery off, but no resync request");
		if (rr.late_dec < late_dec_min)
			late_dec_min = rr.late_dec;
		if (sc->clean) {
			CHECK(rr.first_dec >= 0 && rr.first_dec <= 2,
			      "first decrypted record %d", rr.first_dec);
			CHECK(rr.after_first == rr.after_first_dec,
			      "clean: %d/%d after sync", rr.after_first_dec,
			      rr.after_first);
		}
		/*
		 * The NIC's count of records decrypted is the kernel's: every
		 * byte of each came up in a marked frame (a record ending in
		 * a frame it could not mark is rx_tls_records_unmarked).
		 */
		CHECK(rr.st.decrypted_records == (u64)rr.dec,
		      "engine counted %llu records decrypted, the kernel got %d (unmarked %llu, seed %d)",
		      (unsigned long long)rr.st.decrypted_records, rr.dec,
		      (unsigned long long)rr.st.unmarked_records, seed);
		if (sc->expect_resync)
			CHECK(rr.dec > 0, "never decrypted");
		if (sc->keymode)
			CHECK(rr.late_dec > 0,
			      "no decryption after key update (seed %d)", seed);
		if (sc->keymode == 2)
			CHECK(rr.st.key_late > 0, "late key not counted");
		if (sc->keymode == 2 && !sc->loss && !sc->reorder)
			CHECK(nokey_handovers > 0,
			      "no late key found the flow following in NOKEY");
		if (sc->keymode == 3)
			CHECK(rr.st.key_refresh > 0, "no key refresh event");
		if (sc->sc.corrupt_tag && !sc->loss)
			CHECK(rr.st.auth_fail > 0, "auth_fail not counted");
	}
	printf("# %-34s records %llu dec %llu (%.1f%%) after-sync %.2f%% "
	       "untouched %.2f%% confirms %llu auth_fail %llu sync_lost %llu "
	       "key_late %llu refresh %llu hints %llu\n",
	       sc->name, (unsigned long long)tot, (unsigned long long)dec,
	       tot ? 100.0 * dec / tot : 0, af ? 100.0 * afd / af : 0,
	       un ? 100.0 * und / un : 0, (unsigned long long)conf,
	       (unsigned long long)auth, (unsigned long long)lost,
	       (unsigned long long)late, (unsigned long long)refresh,
	       (unsigned long long)hints);
	printf("# %-34s reorder_recovered %llu sync_lost %llu resync_req %llu "
	       "device-decrypted TLS bytes %.2f%%\n", sc->name,
	       (unsigned long long)rec, (unsigned long long)lost,
	       (unsigned long long)reqs, by ? 100.0 * dby / by : 0);
	if (sc->clean)
		printf("# coverage clean (%s): %.2f%% of records after the "
		       "shadow record device-decrypted (%llu/%llu)\n", sc->name,
		       af ? 100.0 * afd / af : 0, (unsigned long long)afd,
		       (unsigned long long)af);
	if (sc->min_cov >= 0) {
		double cov = un ? (double)und / un : 0;
		double min = sc->sc.tls13 && sc->min_cov13 ? sc->min_cov13 : sc->min_cov;

		printf("# coverage %s: %.2f%% of records not touched by a hole "
		       "device-decrypted (%llu/%llu), need >= %.0f%%\n",
		       sc->name, 100.0 * cov, (unsigned long long)und,
		       (unsigned long long)un, 100 * min);
		CHECK(cov >= min, "coverage %.3f < %.3f", cov, min);
	}
	tap(sc->name);
}

/* ------------------------------------------------------------------ */
/* unit tests                                                         */
/* ------------------------------------------------------------------ */

static void test_api(void)
{
	struct hw_engine *eng;
	struct hw_flow_params fp;
	struct hw_crypto_key *k;
	struct hw_key_reap reap = { .n = 0 };
	u32 h[4], hh;
	void *mem;
	u8 key[32] = { 1, 2, 3 };
	int i, rc;

	CHECK(hw_engine_mem_size(0) == 0, "mem_size(0)");
	CHECK(hw_engine_init(NULL, 0, 2) == NULL, "init NULL");
	eng = mk_engine(2, &mem);
	CHECK(eng != NULL, "init");
	CHECK(hw_crypto_key_new(key, 24, &k) == -EINVAL, "keylen 24");
	CHECK(hw_crypto_key_new(key, 0, &k) == -EINVAL, "keylen 0");
	memset(&fp, 0, sizeof(fp));
	fp.tuple.family = 4;
	fp.start_synced = true;
	CHECK(hw_engine_flow_add(eng, &fp, &hh) == -EINVAL, "no key");
	fp.tuple.family = 5;
	CHECK(!hw_crypto_key_new(key, 16, &fp.key), "key");
	CHECK(hw_engine_flow_add(eng, &fp, &hh) == -EINVAL, "bad family");
	for (i = 0; i < 2; i++) {
		fp.tuple.family = 4;
		fp.tuple.sport = (u16)(100 + i);
		if (i)
			CHECK(!hw_crypto_key_new(key, 32, &fp.key), "key");
		CHECK(!hw_engine_flow_add(eng, &fp, &h[i]), "add %d", i);
	}
	CHECK(!hw_crypto_key_new(key, 16, &k), "key");
	fp.key = k;
	fp.tuple.sport = 100;
	CHECK(hw_engine_flow_add(eng, &fp, &hh) == -EEXIST, "dup tuple");
	fp.tuple.sport = 999;
	rc = hw_engine_flow_add(eng, &fp, &hh);
	CHECK(rc == -ENOSPC, "full: %d", rc);
	CHECK(hw_engine_flow_count(eng) == 2, "count");
	CHECK(hw_engine_flow_next(eng, 0) == h[0], "iter 0");
	CHECK(hw_engine_flow_next(eng, h[0]) == h[1], "iter 1");
	CHECK(hw_engine_flow_next(eng, h[1]) == 0, "iter end");
	CHECK(!hw_engine_flow_del(eng, h[0], &reap), "del");
	CHECK(reap.n == 1, "reap n %u", reap.n);
	hw_key_reap_free(&reap);
	CHECK(hw_engine_flow_del(eng, h[0], &reap) == -ENOENT, "stale del");
	CHECK(hw_engine_flow_resync(eng, h[0], 1, 1) == -ENOENT, "stale rs");
	CHECK(!hw_engine_flow_add(eng, &fp, &hh), "reuse slot");
	CHECK(hh != h[0], "new handle differs from stale");
	CHECK(hw_engine_flow_key_update(eng, hh, NULL, key, 5, &reap) ==
	      -EINVAL, "ku null");
	for (i = 0; i < 5; i++) {
		CHECK(!hw_crypto_key_new(key, 16, &k), "key");
		CHECK(!hw_engine_flow_key_update(eng, hh, k, key, 5 + i, &reap),
		      "ku");
		hw_key_reap_free(&reap);
	}
	CHECK(!strcmp(hw_flow_state_name(HW_FS_SYNC), "sync"), "name");
	CHECK(!strcmp(hw_flow_state_name(HW_FS_SEARCH), "search"), "name");
	CHECK(!strcmp(hw_flow_state_name((enum hw_flow_state)77), "?"),
	      "name ?");
	hw_crypto_fail_next = 1;
	CHECK(hw_crypto_key_new(key, 16, &k) == -ENOMEM, "injected enomem");
	hw_engine_fini(eng);
	free(mem);
	tap("api: add/del/full/dup/stale handles/key_update/reap/names");
}

/* GHASH: PCLMUL path vs portable reference */
static void test_ghash(void)
{
	struct hw_crypto_key *a, *b;
	struct rng r = { 77 };
	u8 key[32], sa[16], sb[16], data[16 * 70];
	int t;

	for (t = 0; t < 200; t++) {
		unsigned int klen = t & 1 ? 32 : 16, nb = rng_below(&r, 71);

		for (int i = 0; i < 32; i++)
			key[i] = (u8)rng_next(&r);
		for (size_t i = 0; i < sizeof(data); i++)
			data[i] = (u8)rng_next(&r);
		for (int i = 0; i < 16; i++)
			sa[i] = sb[i] = (u8)rng_next(&r);
		unsetenv("HW_NO_CLMUL");
		hw_crypto_key_new(key, klen, &a);
		setenv("HW_NO_CLMUL", "1", 1);
		hw_crypto_key_new(key, klen, &b);
		unsetenv("HW_NO_CLMUL");
		hw_crypto_ghash(a, sa, data, nb);
		hw_crypto_ghash(b, sb, data, nb);
		CHECK(!memcmp(sa, sb, 16), "ghash mismatch nb=%u", nb);
		hw_crypto_key_free(a);
		hw_crypto_key_free(b);
	}
	tap("crypto: PCLMUL GHASH (8-block aggregated) == portable reference");
}

/* AES-NI single block and CTR vs OpenSSL EVP */
static void test_aesni(void)
{
	struct hw_crypto_key *a, *b;
	struct rng r = { 78 };
	u8 key[32], ctr[16], in[16 * 40 + 15], oa[sizeof(in)], ob[sizeof(in)];
	int t;

	for (t = 0; t < 200; t++) {
		unsigned int klen = t & 1 ? 32 : 16;
		unsigned int len = rng_below(&r, sizeof(in) + 1);

		for (int i = 0; i < 32; i++)
			key[i] = (u8)rng_next(&r);
		for (int i = 0; i < 16; i++)
			ctr[i] = (u8)rng_next(&r);
		ctr[12] = 0;	/* the engine never wraps the 32-bit counter */
		for (size_t i = 0; i < sizeof(in); i++)
			in[i] = (u8)rng_next(&r);
		unsetenv("HW_NO_AESNI");
		hw_crypto_key_new(key, klen, &a);
		setenv("HW_NO_AESNI", "1", 1);
		hw_crypto_key_new(key, klen, &b);
		unsetenv("HW_NO_AESNI");
		hw_crypto_aes_block(a, ctr, oa);
		hw_crypto_aes_block(b, ctr, ob);
		CHECK(!memcmp(oa, ob, 16), "aes block mismatch klen=%u", klen);
		hw_crypto_ctr_xor(a, ctr, in, oa, len);
		hw_crypto_ctr_xor(b, ctr, in, ob, len);
		CHECK(!memcmp(oa, ob, len), "ctr mismatch klen=%u len=%u",
		      klen, len);
		/* in place */
		memcpy(oa, in, len);
		hw_crypto_ctr_xor(a, ctr, oa, oa, len);
		CHECK(!memcmp(oa, ob, len), "ctr in-place mismatch len=%u",
		      len);
		hw_crypto_key_free(a);
		hw_crypto_key_free(b);
	}
	tap("crypto: AES-NI block/CTR == OpenSSL EVP (AES-128/256)");
}

/* stitched CTR + GHASH == GHASH then CTR, on the portable backend too */
static void test_stitched(void)
{
	struct hw_crypto_key *a, *b;
	struct rng r = { 79 };
	u8 key[32], ctr[16], sa[16], sb[16], in[16 * 45];
	u8 oa[sizeof(in)], ob[sizeof(in)];
	int t;

	for (t = 0; t < 300; t++) {
		unsigned int klen = t & 1 ? 32 : 16, nb = rng_below(&r, 46);

		for (int i = 0; i < 32; i++)
			key[i] = (u8)rng_next(&r);
		for (int i = 0; i < 16; i++)
			ctr[i] = sa[i] = sb[i] = (u8)rng_next(&r);
		ctr[12] = 0;
		for (size_t i = 0; i < sizeof(in); i++)
			in[i] = (u8)rng_next(&r);
		unsetenv("HW_NO_AESNI");
		hw_crypto_key_new(key, klen, &a);
		setenv("HW_NO_AESNI", "1", 1);
		setenv("HW_NO_CLMUL", "1", 1);
		hw_crypto_key_new(key, klen, &b);
		unsetenv("HW_NO_AESNI");
		unsetenv("HW_NO_CLMUL");
		hw_crypto_ghash(b, sb, in, nb);
		hw_crypto_ctr_xor(b, ctr, in, ob, nb * 16);
		if (t & 2) {
			hw_crypto_ctr_xor_ghash(a, ctr, in, oa, nb, sa);
		} else {	/* in place */
			memcpy(oa, in, nb * 16);
			hw_crypto_ctr_xor_ghash(a, ctr, oa, oa, nb, sa);
		}
		CHECK(!memcmp(oa, ob, nb * 16), "stitched ctr nb=%u", nb);
		CHECK(!memcmp(sa, sb, 16), "stitched ghash nb=%u", nb);
		hw_crypto_key_free(a);
		hw_crypto_key_free(b);
	}
	tap("crypto: stitched CTR+GHASH == GHASH then CTR (in place too)");
}

void hw_csum_force(int avx2);

static u16 fold16(u64 x)
{
	while (x >> 16)
		x = (x & 0xffff) + (x >> 16);
	return (u16)x;
}

/* hw_csum_partial (AVX2 and portable) vs 16-bit words summed one by one */
static void test_csum(void)
{
	struct rng r = { 80 };
	static u8 buf[20000 + 64];
	int t, mode;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (u8)rng_next(&r);
	memset(buf + 100, 0xff, 3000);	/* carries everywhere */
	for (mode = 0; mode < 2; mode++) {
		hw_csum_force(mode);
		for (t = 0; t < 2000; t++) {
			u32 off = rng_below(&r, 64);
			u32 len = t < 100 ? (u32)t : rng_below(&r, t & 1 ? 20001 : 3001);
			u64 ref = 0;

			if (t == 1999) {
				off = 100;
				len = 3000;
			}
			for (u32 i = 0; i + 1 < len; i += 2) {
				u16 w;

				memcpy(&w, buf + off + i, 2);
				ref += w;
			}
			if (len & 1) {
				u16 w = 0;

				memcpy(&w, buf + off + len - 1, 1);
				ref += w;
			}
			CHECK(fold16(hw_csum_partial(buf + off, len)) == fold16(ref),
			      "csum mode %d off %u len %u", mode, off, len);
		}
	}
	hw_csum_force(1);
	tap("csum: hw_csum_partial (AVX2 and portable) == word-by-word sum");
}

/* checksum edge cases and parsing */
static void test_frames(void)
{
	struct hw_engine *eng;
	struct frame_cfg fc = { .family = 4, .sport = 1, .dport = 2 };
	struct hw_rx_completion c;
	u8 fr[2048], out[2048], pl[1500];
	void *mem;
	u32 len, l;
	int i;

	eng = mk_engine(1, &mem);
	for (i = 0; i < 1500; i++)
		pl[i] = (u8)(i * 7);
	for (l = 0; l < 80; l++) {
		for (int fam = 4; fam <= 6; fam += 2) {
			fc.family = fam;
			fc.vlan = l & 1;
			fc.tsopt = l & 2;
			len = frame_build(fr, &fc, 1000, 0x18, pl, l);
			hw_engine_rx(eng, fr, len, out, &c);
			CHECK(c.is_tcp && c.csum_ok && !c.is_tls_flow,
			      "len %u fam %d: tcp %d csum %d", l, fam, c.is_tcp,
			      c.csum_ok);
			CHECK(c.payload_len == l, "payload len");
			if (l) {
				fr[len - 1 - (len > 60 ? 0 : len - 1 -
					(c.payload_off + l - 1))] ^= 1;
				hw_engine_rx(eng, fr, len, out, &c);
				CHECK(!c.csum_ok, "flip not detected l=%u", l);
			}
		}
	}
	/* truncated / malformed frames */
	fc.family = 4;
	fc.vlan = false;
	fc.tsopt = false;
	len = frame_build(fr, &fc, 1, 0x18, pl, 100);
	for (l = 0; l < len; l++) {
		hw_engine_rx(eng, fr, l, out, &c);
		CHECK(!hw_rx_decrypted(&c), "truncated marked");
	}
	fr[14 + 6] = 0x20;	/* MF: fragment */
	hw_engine_rx(eng, fr, len, out, &c);
	CHECK(!c.is_tcp, "fragment parsed");
	hw_engine_fini(eng);
	free(mem);
	tap("frames: IPv4/IPv6, VLAN, options, odd lengths, checksum, malformed");
}

/* resync API paths on a live flow: late confirm, stale, ahead hint */
static void test_resync_paths(void)
{
	struct rng r = { 4242 };
	struct stream_cfg sc = { .nrec = 40, .size_mode = 1, .klen = 16 };
	struct frame_cfg fc = { .family = 6, .sport = 443, .dport = 5555 };
	struct hw_flow_params fp;
	struct hw_rx_completion c;
	struct hw_flow_info fi;
	struct hw_engine *eng;
	struct stream s;
	u8 fr[4096], out[4096];
	void *mem;
	u32 h, off, reqs = 0, last_req = 0;
	int i, phase;

	stream_gen(&s, &sc, &r);
	for (phase = 0; phase < 3; phase++) {
		eng = mk_engine(4, &mem);
		memset(&fp, 0, sizeof(fp));
		frame_tuple(&fc, &fp.tuple);
		hw_crypto_key_new(s.ep[0].key, 16, &fp.key);
		memcpy(fp.salt, s.ep[0].salt, 4);
		fp.start_seq = s.isn;
		fp.start_synced = false;
		hw_engine_flow_add(eng, &fp, &h);
		if (phase == 2) {
			/* NEXT_HINT style: confirmation ahead of the stream */
			hw_engine_flow_resync(eng, h, s.isn + s.rec[5].off,
					      s.rec[5].rn);
		}
		reqs = 0;
		for (off = s.rec[1].off + 3; off < s.n; off += 1000) {
			u32 l = s.n - off < 1000 ? s.n - off : 1000;
			u32 len = frame_build(fr, &fc, s.isn + off, 0x18,
					      s.wire + off, l);

			hw_engine_rx(eng, fr, len, out, &c);
			if (hw_rx_decrypted(&c))
				CHECK(!memcmp(out + frame_hdr_len(&fc),
					      s.plain + off, l), "plain");
			if (c.resync_req) {
				reqs++;
				last_req = c.resync_seq;
			}
			if (phase == 0 && reqs == 3 && c.resync_req) {
				/* late: confirm the first request later */
				i = stream_rec_at(&s, last_req - 4 - s.isn);
				CHECK(i >= 0, "request not a real header");
				hw_engine_flow_resync(eng, h, last_req - 4,
						      s.rec[i].rn);
			}
			if (phase == 1 && c.resync_req) {
				/* unknown seq: skipped */
				hw_engine_flow_resync(eng, h, s.isn + 1, 0);
			}
		}
		hw_engine_flow_info(eng, h, &fi);
		if (phase == 0 || phase == 2)
			CHECK(fi.stats.decrypted_records > 10,
			      "phase %d: decrypted %llu", phase,
			      (unsigned long long)fi.stats.decrypted_records);
		if (phase == 1)
			CHECK(fi.stats.resync_skip > 0 &&
			      !fi.stats.decrypted_records, "phase 1");
		if (phase == 2)
			CHECK(fi.stats.resync_hint == 1, "hint not counted");
		hw_engine_fini(eng);
		free(mem);
	}
	stream_free(&s);
	tap("resync: late confirm via ring, unknown seq skipped, ahead hint");
}


/* reorder recovery, directed: no resync confirmations are ever given */
struct ro_t {
	struct hw_engine *eng;
	void *mem;		/* the engine's memory */
	struct stream s;
	struct frame_cfg fc;
	u32 h;
	u8 fr[4096], out[4096];
	int marked_bad;
};

static struct hw_rx_completion ro_last;

static void ro_send(struct ro_t *t, u32 off, u32 len)
{
	struct hw_rx_completion c;
	u32 fl, hl = frame_hdr_len(&t->fc);

	memset(&ro_last, 0, sizeof(ro_last));
	if (off >= t->s.n)
		return;
	if (len > t->s.n - off)
		len = t->s.n - off;
	fl = frame_build(t->fr, &t->fc, t->s.isn + off, 0x18,
			 t->s.wire + off, len);
	hw_engine_rx(t->eng, t->fr, fl, t->out, &c);
	if (hw_rx_decrypted(&c) &&
	    memcmp(t->out + hl, t->s.plain + off, len))
		t->marked_bad++;
	ro_last = c;
}

/* the kernel's answer to a resync request: the record's number */
static void ro_confirm(struct ro_t *t)
{
	u32 hdr = ro_last.resync_seq - 4 - t->s.isn;
	int i;

	if (!ro_last.resync_req)
		return;
	i = stream_rec_at(&t->s, hdr);
	if (i >= 0 && t->s.rec[i].off == hdr)
		hw_engine_flow_resync(t->eng, t->h, ro_last.resync_seq - 4,
				      t->s.rec[i].rn);
}

/* a synced flow over 30 16 KiB records, frames of 1448 bytes */
/* a synced IPv4 flow over stream sc (AES-128) */
static struct ro_t *ro_new_stream(u64 seed, const struct stream_cfg *sc,
				  u16 dport, u32 max_ahead)
{
	struct rng r = { seed };
	struct ro_t *t = calloc(1, sizeof(*t));
	struct hw_flow_params fp;

	stream_gen(&t->s, sc, &r);
	t->fc.family = 4;
	t->fc.sport = 443;
	t->fc.dport = dport;
	t->eng = mk_engine(2, &t->mem);
	memset(&fp, 0, sizeof(fp));
	frame_tuple(&t->fc, &fp.tuple);
	hw_crypto_key_new(t->s.ep[0].key, 16, &fp.key);
	stream_flow_params(&t->s, &fp);
	fp.start_seq = t->s.isn;
	fp.start_rn = t->s.rn0;
	fp.start_synced = true;
	fp.max_ahead = max_ahead;
	hw_engine_flow_add(t->eng, &fp, &t->h);
	return t;
}

/* 30 records of 16 KiB */
static struct ro_t *ro_new(u64 seed, u32 max_ahead)
{
	struct stream_cfg sc = { .nrec = 30, .size_mode = 0, .klen = 16 };

	return ro_new_stream(seed, &sc, 7100, max_ahead);
}

static void ro_free(struct ro_t *t)
{
	hw_engine_fini(t->eng);
	free(t->mem);
	stream_free(&t->s);
	free(t);
}

/*
 * A crypto backend error must never produce a marked frame: the failing
 * CTR call writes garbage while GHASH (over the ciphertext) still passes.
 * Backend failure (OpenSSL hook) and the engine's own injection hook, with
 * the stitched and the separate calls; the flow recovers through resync.
 */
static void test_crypto_fail(void)
{
	extern int hw_crypto_no_stitch;
	int k;

	for (k = 0; k < 4 && !cur_failed; k++) {
		struct ro_t *t = ro_new(900 + (u64)k, 0);
		struct hw_flow_info fi;
		u64 dec_at_fail = 0;
		u32 off, seg = 1448;
		bool failed = false;

		hw_crypto_no_stitch = k & 1;
		for (off = 0; off < t->s.n; off += seg) {
			hw_engine_flow_info(t->eng, t->h, &fi);
			if (!failed && off > t->s.n / 3 &&
			    fi.state == HW_FS_SYNC && fi.record_pos > 100 &&
			    fi.record_pos + 2 * seg < fi.record_len) {
				failed = true;
				dec_at_fail = fi.stats.decrypted_records;
				if (k < 2)
					hw_crypto_fail_ctr_in = 1;
				else
					hw_engine_inject_crypto_fail(t->eng, 1);
				ro_send(t, off, seg);
				CHECK(!ro_last.crypto_done &&
				      !ro_last.crypto_success,
				      "case %d: failed frame reported done %d success %d",
				      k, ro_last.crypto_done,
				      ro_last.crypto_success);
				CHECK(ro_last.events & HW_EV_CRYPTO_ERR,
				      "case %d: no crypto error event", k);
				CHECK(!hw_crypto_fail_ctr_in &&
				      !hw_engine_crypto_fail_pending(t->eng),
				      "case %d: failure not consumed", k);
				hw_engine_flow_info(t->eng, t->h, &fi);
				CHECK(fi.stats.crypto_err == 1,
				      "case %d: crypto_err %llu", k,
				      (unsigned long long)fi.stats.crypto_err);
				continue;
			}
			ro_send(t, off, seg);
			hw_engine_flow_info(t->eng, t->h, &fi);
			if (failed)
				CHECK(!hw_rx_decrypted(&ro_last) ||
				      fi.stats.resync_ok,
				      "case %d: marked before resync", k);
			ro_confirm(t);
		}
		hw_engine_flow_info(t->eng, t->h, &fi);
		CHECK(failed, "case %d: never injected", k);
		CHECK(!t->marked_bad, "case %d: %d marked frames wrong", k,
		      t->marked_bad);
		CHECK(fi.stats.sync_lost >= 1 && fi.stats.resync_ok >= 1,
		      "case %d: no sync loss/resync after the error", k);
		CHECK(fi.state == HW_FS_SYNC &&
		      fi.stats.decrypted_records > dec_at_fail + 5,
		      "case %d: not recovered (%s, %llu records after)", k,
		      hw_flow_state_name(fi.state),
		      (unsigned long long)(fi.stats.decrypted_records -
					   dec_at_fail));
		{
			/* one loss, one recovery: one latency, a few records */
			u32 hist[HW_RESYNC_HIST], n = 0, at = 0, i;

			hw_engine_resync_hist(t->eng, hist);
			for (i = 0; i < HW_RESYNC_HIST; i++)
				if (hist[i]) {
					n += hist[i];
					at = i;
				}
			CHECK(n == fi.stats.sync_lost && n == 1 && at >= 1 &&
			      at < HW_RESYNC_HIST - 1,
			      "case %d: resync latency histogram: %u entries (sync lost %llu), last at %u records",
			      k, n, (unsigned long long)fi.stats.sync_lost, at);
			hw_engine_resync_hist_reset(t->eng);
			hw_engine_resync_hist(t->eng, hist);
			for (i = 0; i < HW_RESYNC_HIST; i++)
				CHECK(!hist[i], "case %d: reset left %u", k, hist[i]);
		}
		ro_free(t);
	}
	hw_crypto_no_stitch = 0;
	hw_crypto_fail_ctr_in = 0;
	tap("crypto backend error: frame never marked, flow stops, resyncs "
	    "(backend and engine hooks, stitched and separate calls)");
}

/*
 * A segment far ahead of the stream: beyond max_ahead it is ignored; within
 * it, the old data that keeps arriving takes the position back (rearm) and
 * the flow resyncs within a few records instead of waiting for the stream
 * to pass the bogus position.
 */
static void test_far_ahead(void)
{
	static const struct { u32 max_ahead, jump; bool far; } cfg[3] = {
		{ 0, 1u << 30, true },		/* 1 GiB, default window */
		{ 64 << 10, 256 << 10, true },	/* beyond a small window */
		{ 0, 256 << 10, false },	/* inside the window */
	};
	int k;

	for (k = 0; k < 3 && !cur_failed; k++) {
		struct ro_t *t = ro_new(1300 + (u64)k, cfg[k].max_ahead);
		struct hw_flow_info fi;
		u64 dec_at = 0;
		u32 off, seg = 1448, fl;
		bool done = false;

		for (off = 0; off < t->s.n; off += seg) {
			ro_send(t, off, seg);
			ro_confirm(t);
			if (done || off < t->s.n / 4)
				continue;
			done = true;
			hw_engine_flow_info(t->eng, t->h, &fi);
			dec_at = fi.stats.decrypted_records;
			/* a copy of this frame's bytes, jump bytes ahead */
			fl = frame_build(t->fr, &t->fc,
					 t->s.isn + off + cfg[k].jump, 0x18,
					 t->s.wire + off, seg);
			hw_engine_rx(t->eng, t->fr, fl, t->out, &ro_last);
			CHECK(!hw_rx_decrypted(&ro_last),
			      "case %d: bogus frame marked", k);
		}
		hw_engine_flow_info(t->eng, t->h, &fi);
		CHECK(!t->marked_bad, "case %d: marked frames wrong", k);
		if (cfg[k].far)
			CHECK(fi.stats.far_frames == 1 && !fi.stats.sync_lost &&
			      !fi.stats.rearmed,
			      "case %d: far %llu lost %llu rearmed %llu", k,
			      (unsigned long long)fi.stats.far_frames,
			      (unsigned long long)fi.stats.sync_lost,
			      (unsigned long long)fi.stats.rearmed);
		else
			CHECK(fi.stats.rearmed == 1 && !fi.stats.far_frames,
			      "case %d: rearmed %llu", k,
			      (unsigned long long)fi.stats.rearmed);
		/* 30 records, the jump at a quarter: most of the rest */
		CHECK(fi.state == HW_FS_SYNC &&
		      fi.stats.decrypted_records >= dec_at + 15,
		      "case %d: %s, %llu records after the jump", k,
		      hw_flow_state_name(fi.state),
		      (unsigned long long)(fi.stats.decrypted_records - dec_at));
		ro_free(t);
	}
	tap("segment far ahead: ignored beyond the window, rearmed inside it");
}

/*
 * How far a connection without a flow went past the engine (the driver's
 * check at install for frames still on their way to the socket): the
 * furthest data with ACK, not an older retransmission nor data TCP drops
 * (no ACK, RST); a SYN starts over; another tuple is not this one; once
 * a flow is installed its frames are no longer noted.
 */
static void test_untracked_end(void)
{
	struct frame_cfg a = { .family = 4, .sport = 443, .dport = 7400 };
	struct frame_cfg b = a, v6 = a;
	struct hw_flow_tuple ta, tb, t6;
	struct hw_rx_completion c;
	struct hw_flow_params fp;
	u8 fr[2048], out[2048], pl[1000] = { 0x17, 3, 3 };
	void *mem;
	struct hw_engine *eng = mk_engine(4, &mem);
	u32 end = 0, fl, h;

	b.dport = 7401;
	v6.family = 6;
	v6.saddr[15] = 1;
	v6.daddr[15] = 2;
	frame_tuple(&a, &ta);
	frame_tuple(&b, &tb);
	frame_tuple(&v6, &t6);
	CHECK(!hw_engine_untracked_end(eng, &ta, &end), "fresh engine remembers");
	fl = frame_build(fr, &a, 1000, 0x18, pl, 100);
	hw_engine_rx(eng, fr, fl, out, &c);
	CHECK(hw_engine_untracked_end(eng, &ta, &end) && end == 1100,
	      "data 1000+100: end %u", end);
	fl = frame_build(fr, &a, 900, 0x10, pl, 50);
	hw_engine_rx(eng, fr, fl, out, &c);
	fl = frame_build(fr, &a, 5000, 0x08, pl, 100);	/* no ACK */
	hw_engine_rx(eng, fr, fl, out, &c);
	fl = frame_build(fr, &a, 6000, 0x14, pl, 100);	/* RST */
	hw_engine_rx(eng, fr, fl, out, &c);
	CHECK(hw_engine_untracked_end(eng, &ta, &end) && end == 1100,
	      "older, ACK-less or RST data moved the end to %u", end);
	/* across the seq wrap: still "further" */
	fl = frame_build(fr, &a, 0xfffffff0u, 0x10, pl, 0x20);
	hw_engine_rx(eng, fr, fl, out, &c);
	CHECK(hw_engine_untracked_end(eng, &ta, &end) && end == 1100,
	      "data behind the end moved it to %u", end);
	CHECK(!hw_engine_untracked_end(eng, &tb, &end), "another port's tuple");
	fl = frame_build(fr, &v6, 70000, 0x10, pl, 1000);
	hw_engine_rx(eng, fr, fl, out, &c);
	CHECK(hw_engine_untracked_end(eng, &t6, &end) && end == 71000,
	      "IPv6 data 70000+1000: end %u", end);
	fl = frame_build(fr, &a, 77, 0x02, NULL, 0);	/* a new SYN */
	hw_engine_rx(eng, fr, fl, out, &c);
	CHECK(!hw_engine_untracked_end(eng, &ta, &end), "SYN kept the old end");
	fl = frame_build(fr, &a, 78, 0x10, pl, 200);
	hw_engine_rx(eng, fr, fl, out, &c);
	CHECK(hw_engine_untracked_end(eng, &ta, &end) && end == 278,
	      "after SYN: end %u", end);
	/* a flow's own frames are the flow's business */
	memset(&fp, 0, sizeof(fp));
	fp.tuple = ta;
	fp.start_seq = 278;
	fp.start_synced = true;
	CHECK(!hw_crypto_key_new(pl + 16, 16, &fp.key), "key_new");
	CHECK(!hw_engine_flow_add(eng, &fp, &h), "flow_add");
	fl = frame_build(fr, &a, 278, 0x10, pl, 500);
	hw_engine_rx(eng, fr, fl, out, &c);
	CHECK(hw_engine_untracked_end(eng, &ta, &end) && end == 278,
	      "a flow's frame moved the untracked end to %u", end);
	hw_engine_fini(eng);
	free(mem);
	tap("untracked data: the furthest end a flowless connection passed");
}

/* The VLAN tag is part of the flow key: a tagged twin is another flow. */
static void test_vlan_key(void)
{
	struct ro_t *t = ro_new(1500, 0);
	struct hw_flow_info fi;
	u32 off, seg = 1448, fl;

	for (off = 0; off < t->s.n; off += seg) {
		ro_send(t, off, seg);
		/* the same bytes again, tagged: must not feed the flow */
		t->fc.vlan = true;
		fl = frame_build(t->fr, &t->fc, t->s.isn + off + seg, 0x18,
				 t->s.wire + off + seg,
				 off + 2 * seg <= t->s.n ? seg : 0);
		hw_engine_rx(t->eng, t->fr, fl, t->out, &ro_last);
		CHECK(!ro_last.is_tls_flow && !hw_rx_decrypted(&ro_last),
		      "tagged frame matched the untagged flow");
		t->fc.vlan = false;
	}
	hw_engine_flow_info(t->eng, t->h, &fi);
	CHECK(fi.state == HW_FS_SYNC && !fi.stats.old_frames &&
	      fi.stats.decrypted_records + 1 >= (u64)t->s.nrec,
	      "untagged flow disturbed: %s, old %llu, decrypted %llu",
	      hw_flow_state_name(fi.state),
	      (unsigned long long)fi.stats.old_frames,
	      (unsigned long long)fi.stats.decrypted_records);
	CHECK(!t->marked_bad, "marked frames wrong");
	ro_free(t);
	tap("VLAN id in the flow key: a tagged twin of a flow is not the flow");
}

/* a frame of arbitrary payload at stream offset off (an injected one) */
static void ro_inject(struct ro_t *t, u32 off, const u8 *p, u32 len, u8 flags)
{
	u32 fl = frame_build(t->fr, &t->fc, t->s.isn + off, flags, p, len);

	hw_engine_rx(t->eng, t->fr, fl, t->out, &ro_last);
}

/* genuine frames of seg bytes over [from, to), confirming resyncs */
static void ro_send_range(struct ro_t *t, u32 from, u32 to, u32 seg)
{
	u32 off;

	for (off = from; off < to; off += seg) {
		ro_send(t, off, to - off < seg ? to - off : seg);
		ro_confirm(t);
	}
}

/*
 * Issue 20, finding A: a forged record prefix (header claiming a 16 KiB
 * record + nonce) at the flow's next record boundary, in a segment TCP
 * drops, seen by the NIC before the genuine segment.  The genuine bytes
 * must never be marked with the forged record's keystream, whatever order
 * the genuine segments then come in, and the flow must resync.
 */
static void test_injected_prefix(void)
{
	static const char * const name[] = {
		"13-byte forged prefix, genuine segment next",
		"13-byte forged prefix, genuine segment 3 frames late",
		"2000-byte forged segment, genuine segment 2 frames late",
		"forged header in old data while a gap is open",
		"forged copy after the genuine record verified",
		"forged prefix without the ACK flag",
	};
	int k;

	for (k = 0; k < 6 && !cur_failed; k++) {
		struct ro_t *t = ro_new(2000 + (u64)k, 0);
		struct hw_flow_info fi, f0;
		u32 seg = 1448, b = t->s.rec[8].off, e = t->s.rec[9].off;
		u8 forged[2000];
		struct rng r = { 77 + (u64)k };
		u32 i;

		for (i = 0; i < sizeof(forged); i++)
			forged[i] = (u8)rng_next(&r);
		memcpy(forged, "\x17\x03\x03\x40\x18", 5);
		/* genuine, with a frame ending exactly at the boundary b */
		ro_send_range(t, 0, b, seg);
		hw_engine_flow_info(t->eng, t->h, &f0);
		CHECK(f0.state == HW_FS_SYNC && f0.expected_seq == t->s.isn + b,
		      "case %d: not in sync at the boundary", k);
		switch (k) {
		case 0:
			ro_inject(t, b, forged, 13, 0x18);
			ro_send_range(t, b, t->s.n, seg);
			break;
		case 1:
			ro_inject(t, b, forged, 13, 0x18);
			ro_send_range(t, b + seg, b + 4 * seg, seg);
			ro_send(t, b, seg);
			ro_send_range(t, b + 4 * seg, t->s.n, seg);
			break;
		case 2:
			ro_inject(t, b, forged, 2000, 0x18);
			ro_send_range(t, b + seg, b + 3 * seg, seg);
			ro_send(t, b, seg);
			ro_send_range(t, b + 3 * seg, t->s.n, seg);
			break;
		case 3:
			/* hold [b, b + seg): the walk starts at the gap */
			ro_send_range(t, b + seg, b + 3 * seg, seg);
			memcpy(forged, "\x17\x03\x03\x00\x40", 5);
			ro_inject(t, b, forged, 13, 0x18);
			ro_send_range(t, b + 3 * seg, b + 4 * seg, seg);
			ro_send(t, b, seg);
			ro_send_range(t, b + 4 * seg, t->s.n, seg);
			break;
		case 4:
			ro_send_range(t, b, e + seg, seg);
			ro_inject(t, b, forged, 13, 0x18);
			ro_send_range(t, e + seg, t->s.n, seg);
			break;
		default:
			ro_inject(t, b, forged, 13, 0x08);
			ro_send_range(t, b, t->s.n, seg);
			break;
		}
		hw_engine_flow_info(t->eng, t->h, &fi);
		fprintf(stderr,
			"# injected prefix: %-54s conflict %llu mismatch %llu unanchored %llu no_ack %llu sync_lost %llu decrypted %llu/%d\n",
			name[k], (unsigned long long)fi.stats.hdr_conflict,
			(unsigned long long)fi.stats.copy_mismatch,
			(unsigned long long)fi.stats.unanchored,
			(unsigned long long)fi.stats.no_ack_frames,
			(unsigned long long)fi.stats.sync_lost,
			(unsigned long long)fi.stats.decrypted_records,
			t->s.nrec);
		CHECK(!t->marked_bad, "%s: %d genuine frames marked wrong",
		      name[k], t->marked_bad);
		if (k <= 2)
			CHECK(fi.stats.hdr_conflict >= 1,
			      "%s: forged prefix not detected", name[k]);
		if (k == 4)
			CHECK(fi.stats.copy_mismatch == 1 &&
			      fi.stats.sync_lost == f0.stats.sync_lost,
			      "%s: mismatch %llu, sync lost %llu -> %llu",
			      name[k],
			      (unsigned long long)fi.stats.copy_mismatch,
			      (unsigned long long)f0.stats.sync_lost,
			      (unsigned long long)fi.stats.sync_lost);
		if (k == 5)
			CHECK(fi.stats.no_ack_frames == 1 &&
			      fi.stats.sync_lost == f0.stats.sync_lost,
			      "%s: no_ack %llu, sync lost", name[k],
			      (unsigned long long)fi.stats.no_ack_frames);
		/* 30 records, the attack at record 8: resynced soon after */
		CHECK(fi.state == HW_FS_SYNC &&
		      fi.stats.decrypted_records >= f0.stats.decrypted_records + 16,
		      "%s: %s, %llu records decrypted after", name[k],
		      hw_flow_state_name(fi.state),
		      (unsigned long long)(fi.stats.decrypted_records -
					   f0.stats.decrypted_records));
		ro_free(t);
	}
	tap("injected record prefix (issue 20 A): genuine frames never marked with a forged framing; detected; resynced");
}

/*
 * Issue 20, D and E: a flow installed unsynced is anchored at the socket's
 * stream position, so a stray segment far ahead at install does not take
 * it; a run of contiguous frames beyond max_ahead (data TCP took that the
 * NIC never saw) moves the flow there instead of leaving it stuck.
 */
static void test_anchor_and_far_run(void)
{
	struct ro_t *t = ro_new(2100, 0);
	struct hw_flow_params fp;
	struct hw_flow_info fi;
	u32 seg = 1448, b = t->s.rec[2].off + 100;
	u8 junk[1448];

	/* D: reinstall unsynced mid-record, anchored at b */
	hw_engine_flow_del(t->eng, t->h, NULL);
	memset(&fp, 0, sizeof(fp));
	frame_tuple(&t->fc, &fp.tuple);
	hw_crypto_key_new(t->s.ep[0].key, 16, &fp.key);
	memcpy(fp.salt, t->s.ep[0].salt, 4);
	fp.stream_seq = t->s.isn + b;
	fp.stream_known = true;
	CHECK(!hw_engine_flow_add(t->eng, &fp, &t->h), "add unsynced");
	memset(junk, 0x5a, sizeof(junk));
	/* a stray segment 6 MiB ahead comes first */
	ro_inject(t, b + (6u << 20), junk, sizeof(junk), 0x18);
	ro_send_range(t, b, t->s.n, seg);
	hw_engine_flow_info(t->eng, t->h, &fi);
	CHECK(!t->marked_bad && fi.state == HW_FS_SYNC &&
	      fi.stats.decrypted_records + 8 >= (u64)t->s.nrec,
	      "D: anchored flow after a stray far frame: %s, %llu of %d decrypted, rearmed %llu",
	      hw_flow_state_name(fi.state),
	      (unsigned long long)fi.stats.decrypted_records, t->s.nrec,
	      (unsigned long long)fi.stats.rearmed);
	ro_free(t);

	/* E: 256 KiB the NIC never saw, window 64 KiB */
	t = ro_new(2101, 64 << 10);
	{
		struct stream_cfg sc = { .nrec = 60, .size_mode = 0, .klen = 16 };

		ro_free(t);
		t = ro_new_stream(2101, &sc, 7100, 64 << 10);
	}
	ro_send_range(t, 0, 10 * seg, seg);
	ro_send_range(t, 10 * seg + (256u << 10), t->s.n, seg);
	hw_engine_flow_info(t->eng, t->h, &fi);
	CHECK(!t->marked_bad && fi.stats.far_reanchor == 1 &&
	      fi.state == HW_FS_SYNC && fi.stats.decrypted_records >= 30,
	      "E: far run: reanchor %llu, %s, %llu decrypted",
	      (unsigned long long)fi.stats.far_reanchor,
	      hw_flow_state_name(fi.state),
	      (unsigned long long)fi.stats.decrypted_records);
	ro_free(t);
	tap("install anchor at the stream position (D); a contiguous run beyond the window re-anchors (E)");
}

/* Issue 20, F: VID 0 is a priority tag, the frame belongs to the untagged flow. */
/* the host transmits on the flow's reverse direction: seq .. seq + len */
static void ro_host_tx(struct ro_t *t, u32 seq, u32 len)
{
	struct frame_cfg rc = frame_cfg_reverse(&t->fc);
	u8 pl[64] = { 0 };
	u32 fl;

	fl = frame_build(t->fr, &rc, seq, 0x18, pl, len);
	hw_engine_tx(t->eng, t->fr, fl);
}

/* an injected frame acknowledging ack (frame_build's genuine: 0x11223344) */
static void ro_inject_ack(struct ro_t *t, u32 off, const u8 *p, u32 len,
			  u32 ack)
{
	u32 fl = frame_build(t->fr, &t->fc, t->s.isn + off, 0x18, p, len);

	hw_put_be32(t->fr + frame_hdr_len(&t->fc) - 20 + 8, ack);
	frame_fix_csum(t->fr, fl);
	hw_engine_rx(t->eng, t->fr, fl, t->out, &ro_last);
}

/*
 * Reinstall t's flow: the stream's key, salt and synced start, with the
 * fields the caller set in fp (snd_nxt, the window's edge, ...).
 */
static void ro_reinstall(struct ro_t *t, struct hw_flow_params *fp)
{
	struct hw_key_reap reap = { .n = 0 };

	hw_engine_flow_del(t->eng, t->h, &reap);
	hw_key_reap_free(&reap);
	frame_tuple(&t->fc, &fp->tuple);
	hw_crypto_key_new(t->s.ep[0].key, 16, &fp->key);
	memcpy(fp->salt, t->s.ep[0].salt, 4);
	fp->start_seq = t->s.isn;
	fp->start_rn = t->s.rn0;
	fp->start_synced = true;
	hw_engine_flow_add(t->eng, fp, &t->h);
}

/*
 * Issue 20: TCP's ACK test in the NIC.  The genuine peer acknowledges
 * 0x11223344 (frame_build); the host's transmissions (hw_engine_tx) or the
 * install (snd_nxt) tell the engine how far it sent.  A forged record
 * prefix acknowledging beyond that is dropped before the framing, so the
 * flow does not even lose sync; with the test off (or snd_nxt not yet
 * known) the prefix checks behind it still catch the forgery.
 */
static void test_ack_check(void)
{
	static const char * const name[] = {
		"snd_nxt from a transmitted segment",
		"snd_nxt at install",
		"ACK test off: prefix check behind it",
		"snd_nxt unknown: prefix check behind it",
	};
	int k;

	for (k = 0; k < 4 && !cur_failed; k++) {
		struct ro_t *t = ro_new(2100 + (u64)k, 0);
		struct hw_flow_info fi, f0;
		u32 seg = 1448, b = t->s.rec[8].off;
		u8 forged[13];

		memcpy(forged, "\x17\x03\x03\x40\x18\x01\x02\x03\x04\x05\x06\x07\x08", 13);
		if (k == 1) {
			/* reinstall with the host's snd_nxt given */
			struct hw_flow_params fp = {
				.snd_nxt = 0x11223344,
				.snd_known = true,
			};

			ro_reinstall(t, &fp);
		}
		if (k == 0 || k == 2)
			ro_host_tx(t, 0x11223344 - 40, 40);
		if (k == 2)
			hw_engine_set_ack_check(t->eng, false);
		ro_send_range(t, 0, b, seg);
		hw_engine_flow_info(t->eng, t->h, &f0);
		CHECK(f0.state == HW_FS_SYNC, "%s: not in sync at the boundary",
		      name[k]);
		/* one byte beyond what the host sent: TCP drops it */
		ro_inject_ack(t, b, forged, 13, 0x11223345);
		ro_send_range(t, b, t->s.n, seg);
		hw_engine_flow_info(t->eng, t->h, &fi);
		CHECK(!t->marked_bad, "%s: %d genuine frames marked wrong",
		      name[k], t->marked_bad);
		if (k < 2)
			CHECK(fi.stats.bad_ack_frames == 1 &&
			      !fi.stats.hdr_conflict &&
			      fi.stats.sync_lost == f0.stats.sync_lost &&
			      fi.stats.decrypted_records + 1 >= (u64)t->s.nrec,
			      "%s: bad_ack %llu conflict %llu sync_lost %llu -> %llu decrypted %llu/%d",
			      name[k], (unsigned long long)fi.stats.bad_ack_frames,
			      (unsigned long long)fi.stats.hdr_conflict,
			      (unsigned long long)f0.stats.sync_lost,
			      (unsigned long long)fi.stats.sync_lost,
			      (unsigned long long)fi.stats.decrypted_records,
			      t->s.nrec);
		else
			CHECK(!fi.stats.bad_ack_frames &&
			      fi.stats.hdr_conflict >= 1,
			      "%s: bad_ack %llu conflict %llu", name[k],
			      (unsigned long long)fi.stats.bad_ack_frames,
			      (unsigned long long)fi.stats.hdr_conflict);
		ro_free(t);
	}
	if (!cur_failed) {
		/* the view only moves forward; SYN/FIN count one each */
		struct ro_t *t = ro_new(2200, 0);
		struct hw_flow_info fi;
		u8 junk[13] = { 1 };

		ro_host_tx(t, 1000, 0);
		ro_host_tx(t, 900, 50);		/* a retransmission: no change */
		ro_inject_ack(t, 0, junk, 13, 1001);
		hw_engine_flow_info(t->eng, t->h, &fi);
		CHECK(fi.stats.bad_ack_frames == 1, "ack 1001 after snd_nxt 1000: bad_ack %llu",
		      (unsigned long long)fi.stats.bad_ack_frames);
		ro_free(t);
	}
	if (!cur_failed) {
		/*
		 * ... and ACKs older than any window: the peer's scale 0, so
		 * at most 2 * 65535 + 2 behind snd_nxt; unknown: no bound
		 */
		int known;

		for (known = 0; known < 2; known++) {
			struct ro_t *t = ro_new(2210 + (u64)known, 0);
			struct hw_flow_params fp = {
				.snd_nxt = 1000000,
				.snd_known = true,
				.peer_wscale_known = known,
			};
			struct hw_flow_info fi;
			u8 junk[13] = { 1 };

			ro_reinstall(t, &fp);
			ro_inject_ack(t, 0, junk, 13, 1000000 - 131072);
			hw_engine_flow_info(t->eng, t->h, &fi);
			CHECK(!fi.stats.bad_ack_frames,
			      "ack at snd_nxt - 131072 rejected (scale %s)",
			      known ? "known" : "unknown");
			ro_inject_ack(t, 0, junk, 13, 1000000 - 131073);
			hw_engine_flow_info(t->eng, t->h, &fi);
			CHECK(fi.stats.bad_ack_frames == (u64)known,
			      "ack at snd_nxt - 131073, scale %s: bad_ack %llu",
			      known ? "known" : "unknown",
			      (unsigned long long)fi.stats.bad_ack_frames);
			ro_free(t);
		}
	}
	tap("TCP's ACK test (RFC 5961 5.2) in the NIC: forged frames acknowledging unsent data, or data older than any window, never reach the framing");
}

/* the host's ACK of ack advertising win (scaled), flags as given */
static void ro_host_ack(struct ro_t *t, u32 ack, u16 win, u8 flags)
{
	struct frame_cfg rc = frame_cfg_reverse(&t->fc);
	u32 fl, l4 = frame_hdr_len(&t->fc) - 20;

	fl = frame_build(t->fr, &rc, 0x11223344, flags, NULL, 0);
	hw_put_be32(t->fr + l4 + 8, ack);
	hw_put_be16(t->fr + l4 + 14, win);
	frame_fix_csum(t->fr, fl);
	hw_engine_tx(t->eng, t->fr, fl);
}

/* the stream [from, to) in MSS segments, the host ACKing each: 64 KiB window */
static void ro_send_acked(struct ro_t *t, u32 from, u32 to)
{
	for (u32 o = from; o < to; o += 1448) {
		u32 e = o + 1448 < to ? o + 1448 : to;

		ro_send_range(t, o, e, 1448);
		ro_host_ack(t, t->s.isn + e, 16384, 0x10);
	}
}

/* reinstall t's flow with the window's edge known: isn + edge, scale 2 */
static void ro_reinstall_edge(struct ro_t *t, u32 edge)
{
	struct hw_flow_params fp = {
		.rcv_edge = t->s.isn + edge,
		.rcv_wscale = 2,
		.rcv_edge_known = true,
	};

	ro_reinstall(t, &fp);
}

/*
 * Issue 20: TCP's window test in the NIC.  A forged record prefix beyond
 * the window's right edge (inside max_ahead: no far frame) is dropped
 * before the framing, so the stream position never jumps and nothing is
 * lost; the edge moves with the host's ACKs (scaled, never back, not from
 * a SYN), and with the test off the frame is a jump again.
 */
static void test_window_check(void)
{
	struct hw_flow_info fi, f0;
	u8 forged[13];
	int k;

	memcpy(forged, "\x17\x03\x03\x40\x18\x01\x02\x03\x04\x05\x06\x07\x08", 13);
	for (k = 0; k < 2 && !cur_failed; k++) {
		struct ro_t *t = ro_new(2300 + (u64)k, 0);
		u32 b = t->s.rec[8].off;

		ro_reinstall_edge(t, 65536);
		if (k)
			hw_engine_set_window_check(t->eng, false);
		ro_send_acked(t, 0, b);
		hw_engine_flow_info(t->eng, t->h, &f0);
		ro_inject_ack(t, b + 65536, forged, 13, 0x11223344);
		ro_send_acked(t, b, t->s.n);
		hw_engine_flow_info(t->eng, t->h, &fi);
		CHECK(!t->marked_bad, "window test %s: %d genuine frames marked wrong",
		      k ? "off" : "on", t->marked_bad);
		if (!k)
			CHECK(fi.stats.out_of_window_frames == 1 &&
			      !fi.stats.far_frames && !fi.stats.rearmed &&
			      fi.stats.sync_lost == f0.stats.sync_lost &&
			      fi.stats.decrypted_records + 1 >= (u64)t->s.nrec,
			      "window test on: out_of_window %llu far %llu rearmed %llu sync_lost %llu -> %llu decrypted %llu/%d",
			      (unsigned long long)fi.stats.out_of_window_frames,
			      (unsigned long long)fi.stats.far_frames,
			      (unsigned long long)fi.stats.rearmed,
			      (unsigned long long)f0.stats.sync_lost,
			      (unsigned long long)fi.stats.sync_lost,
			      (unsigned long long)fi.stats.decrypted_records,
			      t->s.nrec);
		else
			CHECK(!fi.stats.out_of_window_frames &&
			      fi.stats.sync_lost > f0.stats.sync_lost,
			      "window test off: out_of_window %llu, sync_lost %llu -> %llu (the jump did not happen)",
			      (unsigned long long)fi.stats.out_of_window_frames,
			      (unsigned long long)f0.stats.sync_lost,
			      (unsigned long long)fi.stats.sync_lost);
		ro_free(t);
	}
	if (!cur_failed) {
		/* the edge: ack + win << 2, only forward, never from a SYN */
		struct ro_t *t = ro_new(2310, 0);
		u32 isn = t->s.isn;
		u8 junk[13] = { 1 };

		ro_reinstall_edge(t, 1000);
		ro_host_ack(t, isn + 500, 1000, 0x10);	/* edge 4500 */
		ro_host_ack(t, isn + 600, 100, 0x10);	/* 1000: not back */
		ro_host_ack(t, isn + 600, 60000, 0x12);	/* SYN-ACK: ignored */
		ro_inject_ack(t, 4499, junk, 13, 0x11223344);
		hw_engine_flow_info(t->eng, t->h, &fi);
		CHECK(!fi.stats.out_of_window_frames,
		      "seq edge - 1 counted out of window (%llu)",
		      (unsigned long long)fi.stats.out_of_window_frames);
		ro_inject_ack(t, 4500, junk, 13, 0x11223344);
		hw_engine_flow_info(t->eng, t->h, &fi);
		CHECK(fi.stats.out_of_window_frames == 1,
		      "seq at the edge: out_of_window %llu",
		      (unsigned long long)fi.stats.out_of_window_frames);
		ro_free(t);
	}
	tap("TCP's window test in the NIC: frames at or beyond the advertised edge never reach the framing");
}

static void test_vid0(void)
{
	struct ro_t *t = ro_new(2200, 0);
	struct hw_flow_info fi;

	t->fc.vlan = true;
	t->fc.vid0 = true;
	ro_send_range(t, 0, t->s.n, 1448);
	hw_engine_flow_info(t->eng, t->h, &fi);
	CHECK(!t->marked_bad && fi.state == HW_FS_SYNC &&
	      fi.stats.decrypted_records + 1 >= (u64)t->s.nrec,
	      "VID 0 frames: %s, %llu of %d decrypted",
	      hw_flow_state_name(fi.state),
	      (unsigned long long)fi.stats.decrypted_records, t->s.nrec);
	ro_free(t);
	tap("VID 0 (priority-tagged) frames belong to the untagged flow (F)");
}

static void test_reorder_paths(void)
{
	/* 0: 16K records, late frame + duplicates; 1: small records, gap of
	 * two frames with several headers, late data re-segmented with dups;
	 * 2: 16K records, two gaps before either late frame arrives;
	 * 3: late pieces reversed, recovered by a retransmit */
	static const struct { int size_mode; u32 seg; } cfg[4] = {
		{ 0, 1448 }, { 2, 1000 }, { 0, 1448 }, { 1, 1448 },
	};
	int k;

	for (k = 0; k < 4 && !cur_failed; k++) {
		struct stream_cfg sc = { .nrec = k == 1 ? 200 : 30,
					 .size_mode = cfg[k].size_mode,
					 .klen = 16 };
		struct ro_t *t = ro_new_stream(777 + (u64)k, &sc,
					       (u16)(7000 + k), 0);
		struct hw_flow_info fi;
		u32 seg = cfg[k].seg, off, g = 0, dec_before;
		int rounds = 0;

		for (off = 0; off < t->s.n; ) {
			/* case 3: a header in the first half of the frame */
			int ri = stream_rec_at(&t->s, k == 3 ?
					       off + seg + seg / 2 - 6 :
					       off + seg + seg / 2);
			bool hdr_in_next = ri >= 0 &&
				t->s.rec[ri].off > off + seg &&
				t->s.rec[ri].off < off + 2 * seg - 5;

			hw_engine_flow_info(t->eng, t->h, &fi);
			/* hold the next frame(s) when they carry a header */
			if (fi.state == HW_FS_SYNC && hdr_in_next && rounds < 3 &&
			    off > t->s.n / 4 && off + 8 * seg < t->s.n) {
				u32 a = off + seg, b = off + 2 * seg;

				rounds++;
				ro_send(t, off, seg);
				hw_engine_flow_info(t->eng, t->h, &fi);
				dec_before = (u32)fi.stats.decrypted_records;
				if (k == 0) {
					/* late after 3, then duplicates */
					ro_send(t, b, seg);
					ro_send(t, b + seg, seg);
					ro_send(t, b + 2 * seg, seg);
					ro_send(t, a, seg);
					ro_send(t, a, seg);
					ro_send(t, a + 7, seg - 7);
					off = b + 3 * seg;
				} else if (k == 1) {
					/* two frames held, late data comes
					 * re-segmented, in pieces, with dups */
					ro_send(t, b + seg, seg);
					ro_send(t, b + 2 * seg, seg);
					ro_send(t, a, seg / 2);
					ro_send(t, a, seg / 2);
					ro_send(t, a + seg / 2, seg);
					ro_send(t, b + seg / 2, seg / 2);
					off = b + 3 * seg;
				} else if (k == 3) {
					/* reversed pieces: the walk waits in
					 * the gap for the piece with the
					 * header it needs */
					ro_send(t, b, seg);
					ro_send(t, b + seg, seg);
					ro_send(t, a + seg / 2, seg / 2);
					ro_send(t, a + seg / 2, seg / 2);
					hw_engine_flow_info(t->eng, t->h, &fi);
					CHECK(fi.reorder_pending &&
					      fi.stats.reorder_recovered ==
					      (u64)g, "case 3: walk not waiting");
					ro_send(t, a, seg / 2);
					off = b + 2 * seg;
				} else {
					/* gaps at a and a + 2 seg */
					ro_send(t, b, seg);
					ro_send(t, b + 2 * seg, seg);
					ro_send(t, a, seg);
					ro_send(t, b + seg, seg);
					off = b + 3 * seg;
				}
				hw_engine_flow_info(t->eng, t->h, &fi);
				CHECK(fi.stats.reorder_recovered == (u64)++g,
				      "case %d round %d: not recovered (%s)", k,
				      rounds, hw_flow_state_name(fi.state));
				CHECK(!fi.reorder_pending, "still pending");
				/*
				 * A walk that caught up took the current
				 * record's header from old data: SHADOW
				 * until the next record verifies.
				 */
				CHECK(fi.state == HW_FS_SYNC ||
				      fi.state == HW_FS_SHADOW, "case %d: %s", k,
				      hw_flow_state_name(fi.state));
				(void)dec_before;
				continue;
			}
			ro_send(t, off, seg);
			off += seg;
		}
		hw_engine_flow_info(t->eng, t->h, &fi);
		CHECK(rounds >= 1, "case %d: no held round", k);
		CHECK(!t->marked_bad, "case %d: marked frame wrong", k);
		CHECK(fi.state == HW_FS_SYNC && !fi.stats.resync_ok &&
		      fi.stats.decrypted_records + 4 * (u64)rounds + 3 >=
		      (u64)t->s.nrec - 1 - (k == 1 ? 20 : 0),
		      "case %d: %s, decrypted %llu of %d", k,
		      hw_flow_state_name(fi.state),
		      (unsigned long long)fi.stats.decrypted_records,
		      t->s.nrec);
		ro_free(t);
	}
	tap("reorder recovery: dup late frame, multi-header gap in pieces, "
	    "two gaps in a row, reversed pieces, no confirmations");
}

/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	static const struct scen scens[] = {
		{ "clean v4 16K records mss", { .nrec = 60, .size_mode = 0, .klen = 16, .nkeyup = 0 }, .family = 4, .seg_mode = 0,
		  .seeds = 3, .min_cov = -1, .clean = true },
		{ "clean v6 random sizes aes256", { .nrec = 120, .size_mode = 1, .klen = 32, .nkeyup = 0 }, .family = 6, .vlan = true,
		  .tsopt = true, .seg_mode = 1, .seeds = 3, .min_cov = -1, .clean = true },
		{ "clean small records mixed segs", { .nrec = 400, .size_mode = 2, .klen = 16, .nkeyup = 0 }, .family = 4,
		  .seg_mode = 3, .seeds = 3, .min_cov = -1, .clean = true },
		{ "clean tiny segments (1..40B)", { .nrec = 20, .size_mode = 1, .klen = 16, .nkeyup = 0 }, .family = 4,
		  .seg_mode = 2, .seeds = 2, .min_cov = -1, .clean = true },
		{ "loss 1% 16K records", { .nrec = 250, .size_mode = 0, .klen = 16, .nkeyup = 0 }, .family = 4, .seg_mode = 0,
		  .loss = 0.01, .seeds = 6, .min_cov = 0.95 },
		{ "loss 1% random sizes", { .nrec = 300, .size_mode = 1, .klen = 16, .nkeyup = 0 }, .family = 4, .seg_mode = 0,
		  .loss = 0.01, .seeds = 6, .min_cov = 0.95 },
		{ "loss 5% + overlap retransmits", { .nrec = 150, .size_mode = 1, .klen = 32, .nkeyup = 0 }, .family = 6,
		  .seg_mode = 3, .loss = 0.05, .overlap = 0.3, .seeds = 4,
		  .min_cov = -1, .expect_resync = true },
		{ "reorder 3%", { .nrec = 150, .size_mode = 1, .klen = 16, .nkeyup = 0 }, .family = 4, .seg_mode = 1,
		  .reorder = 0.03, .seeds = 4, .min_cov = -1,
		  .expect_resync = true },
		{ "reorder 5% cable hold 3, 16K records mss", { .nrec = 250, .size_mode = 0, .klen = 16, .nkeyup = 0 }, .family = 4,
		  /*
		   * 1.00 before issue 20: a walk that catches up now costs a
		   * shadow record (its headers came from old data, which may
		   * be injected), an untouched record passed encrypted;
		   * measured 0.875-0.885 over the six seeds.
		   */
		  /*
		   * 1.3: 0.832 since issue 23: a walk that passed a whole
		   * record resumes in SHADOW (any walked record may have been
		   * a KeyUpdate, whose type is encrypted), one more record per
		   * such recovery (0.881 before)
		   */
		  .seg_mode = 0, .reorder = 0.05, .hold = 3, .seeds = 6, .min_cov = 0.85,
		  .min_cov13 = 0.80 },
		{ "reorder 5% cable hold 3, random sizes", { .nrec = 300, .size_mode = 1, .klen = 16, .nkeyup = 0 }, .family = 6,
		  /*
		   * 1.00 before issue 20: a walk that catches up now costs a
		   * shadow record (its headers came from old data, which may
		   * be injected), an untouched record passed encrypted;
		   * measured 0.875-0.885 over the six seeds.
		   */
		  .seg_mode = 0, .reorder = 0.05, .hold = 3, .seeds = 6, .min_cov = 0.85 },
		{ "reorder 5% hold 3, late-frame recovery off", { .nrec = 250, .size_mode = 0, .klen = 16, .nkeyup = 0 }, .family = 4,
		  .seg_mode = 0, .reorder = 0.05, .hold = 3, .no_reorder_recovery = true, .seeds = 6, .min_cov = -1,
		  .expect_resync = true },
		{ "loss 1% late-frame recovery off", { .nrec = 250, .size_mode = 0, .klen = 16, .nkeyup = 0 }, .family = 4,
		  .seg_mode = 0, .loss = 0.01, .no_reorder_recovery = true, .seeds = 6, .min_cov = 0.95 },
		{ "reorder 5% cable hold 3, small records mixed segs", { .nrec = 600, .size_mode = 2, .klen = 32, .nkeyup = 0 }, .family = 4,
		  .seg_mode = 3, .reorder = 0.05, .hold = 3, .seeds = 4, .min_cov = -1 },
		{ "reorder 5% cable hold 3 + loss 1% + dup 2%", { .nrec = 250, .size_mode = 1, .klen = 16, .nkeyup = 2 }, .family = 4,
		  .seg_mode = 0, .reorder = 0.05, .hold = 3, .loss = 0.01, .dup = 0.02, .keymode = 1, .seeds = 4, .min_cov = -1 },
		/*
		 * TLS 1.3 key changes the NIC learns late (the kernel adds the
		 * next key only once the application installed it; here two
		 * records after the KeyUpdate), with the host's ACK known (the
		 * ACK test armed, as in the guest), under reorder and loss: a
		 * KeyUpdate in a gap the walk filled or followed ahead of it
		 * must not leave the engine decrypting the next key's records
		 * with the old key (issue 23: guest 60, EBADMSG in 2 runs of 20;
		 * here wrong marked bytes in the first seed before the fix).
		 */
		{ "key installed late, reorder 5% hold 3 + loss 1%", { .nrec = 160, .size_mode = 1, .klen = 16, .nkeyup = 7 },
		  .family = 4, .seg_mode = 0, .reorder = 0.05, .hold = 3, .loss = 0.01, .keymode = 2, .snd_known = true,
		  .seeds = 64, .min_cov = -1, .only13 = true },
		{ "duplicates 5%", { .nrec = 150, .size_mode = 1, .klen = 16, .nkeyup = 0 }, .family = 4, .seg_mode = 0,
		  .dup = 0.05, .seeds = 4, .min_cov = 0.97 },
		{ "bad checksum 3%", { .nrec = 150, .size_mode = 1, .klen = 16, .nkeyup = 0 }, .family = 4, .seg_mode = 0,
		  .badcsum = 0.03, .seeds = 4, .min_cov = -1,
		  .expect_resync = true },
		{ "overlapping retransmits 5%", { .nrec = 150, .size_mode = 1, .klen = 16, .nkeyup = 0 }, .family = 6,
		  .seg_mode = 0, .overlap = 0.05, .seeds = 4, .min_cov = -1,
		  .expect_resync = true },
		{ "noise frames (other flow, acks, ARP)", { .nrec = 80, .size_mode = 1, .klen = 16, .nkeyup = 0 }, .family = 4,
		  .seg_mode = 0, .noise = 0.1, .seeds = 3, .min_cov = -1,
		  .clean = true },
		{ "tag corruption", { .nrec = 150, .size_mode = 1, .klen = 16, .corrupt_tag = 4, .rn0 = 1000 }, .family = 4, .seg_mode = 1,
		  .seeds = 4, .min_cov = -1, .expect_resync = true },
		{ "ciphertext corruption", { .nrec = 150, .size_mode = 1, .klen = 16, .corrupt_ct = 4 }, .family = 4,
		  .seg_mode = 3, .seeds = 4, .min_cov = -1,
		  .expect_resync = true },
		{ "header corruption", { .nrec = 150, .size_mode = 1, .klen = 16, .corrupt_hdr = 1 }, .family = 4,
		  .seg_mode = 0, .seeds = 6, .min_cov = -1 },
		{ "everything 2% (loss dup reorder csum ovl)", { .nrec = 200,
		  .size_mode = 1, .klen = 16, .corrupt_tag = 2, .rn0 = 1ULL << 40 }, .family = 6, .seg_mode = 3, .loss = 0.02, .dup = 0.02,
		  .reorder = 0.02, .badcsum = 0.02, .overlap = 0.1,
		  .noise = 0.02, .seeds = 6, .min_cov = -1,
		  .expect_resync = true },
		{ "unsynced start (mid-record)", { .nrec = 80, .size_mode = 1, .klen = 16, .nkeyup = 0 }, .family = 4,
		  .seg_mode = 0, .unsynced = true, .seeds = 4, .min_cov = -1,
		  .expect_resync = true },
		{ "unsynced start, strparser lag 4", { .nrec = 80, .size_mode = 1, .klen = 16, .nkeyup = 0 }, .family = 4,
		  .seg_mode = 0, .unsynced = true, .lag = 4, .seeds = 4,
		  .min_cov = -1, .expect_resync = true },
		{ "loss 1% strparser lag 6", { .nrec = 200, .size_mode = 1, .klen = 16, .nkeyup = 0 }, .family = 4,
		  .seg_mode = 0, .loss = 0.01, .lag = 6, .seeds = 4,
		  .min_cov = 0.85 },
		{ "CORE_NEXT_HINT loss 1%", { .nrec = 250, .size_mode = 1, .klen = 16, .nkeyup = 0 }, .family = 4,
		  .seg_mode = 0, .loss = 0.01, .mode = 1, .seeds = 4,
		  .min_cov = 0.80 },
		{ "CORE_NEXT_HINT unsynced start", { .nrec = 80, .size_mode = 1, .klen = 16, .nkeyup = 0 }, .family = 6,
		  .seg_mode = 1, .unsynced = true, .mode = 1, .seeds = 4,
		  .min_cov = -1, .expect_resync = true },
		{ "key update on time", { .nrec = 120, .size_mode = 1, .klen = 16, .nkeyup = 2 }, .family = 4, .seg_mode = 0,
		  .keymode = 1, .seeds = 4, .min_cov = -1 },
		{ "key update on time aes256 loss 1%", { .nrec = 160, .size_mode = 1, .klen = 32, .nkeyup = 2 }, .family = 6,
		  .seg_mode = 3, .loss = 0.01, .keymode = 1, .seeds = 4,
		  .min_cov = -1 },
		{ "key update late", { .nrec = 120, .size_mode = 1, .klen = 16, .nkeyup = 2 }, .family = 4, .seg_mode = 0,
		  .keymode = 2, .seeds = 4, .min_cov = -1 },
		{ "key update wrong key, then refreshed", { .nrec = 120, .size_mode = 1, .klen = 16, .nkeyup = 2 }, .family = 4,
		  .seg_mode = 1, .keymode = 3, .seeds = 4, .min_cov = -1 },
		{ "key update + unsynced + reorder", { .nrec = 150, .size_mode = 1, .klen = 16, .nkeyup = 1 }, .family = 4,
		  .seg_mode = 1, .reorder = 0.02, .keymode = 1,
		  .unsynced = true, .seeds = 4, .min_cov = -1 },
	};
	size_t i;
	const char *only = argc > 1 ? argv[1] : NULL;

	test_api();
	test_ghash();
	test_aesni();
	test_stitched();
	test_csum();
	test_frames();
	test_resync_paths();
	test_reorder_paths();
	test_crypto_fail();
	test_far_ahead();
	test_untracked_end();
	test_vlan_key();
	test_injected_prefix();
	test_anchor_and_far_run();
	test_vid0();
	test_ack_check();
	test_window_check();
	for (i = 0; i < sizeof(scens) / sizeof(scens[0]); i++) {
		if (only && !strstr(scens[i].name, only))
			continue;
		if (scens[i].only13)
			continue;
		run_scen(&scens[i]);
	}
	/*
	 * TLS 1.3 records (issue 22): every scenario again, the engine's
	 * marked bytes against OpenSSL's decryption (inner content type and
	 * padding included, as the NIC leaves them in place).
	 */
	for (i = 0; i < sizeof(scens) / sizeof(scens[0]); i++) {
		static char name13[sizeof(scens) / sizeof(scens[0])][128];
		struct scen s13 = scens[i];

		snprintf(name13[i], sizeof(name13[i]), "TLS 1.3: %s",
			 scens[i].name);
		if (only && !strstr(name13[i], only))
			continue;
		s13.name = name13[i];
		s13.sc.tls13 = true;
		run_scen(&s13);
	}
	CHECK(hw_crypto_key_count() == 0, "%u crypto keys never freed",
	      hw_crypto_key_count());
	tap("every crypto key the tests made was freed (engine reaps them)");
	/* TAP plan is printed by the runner (fuzz line comes after) */
	fprintf(stderr, "%d tests, %d failed\n", tap_n, tap_fail);
	if (getenv("TAP_COUNT_FILE")) {
		FILE *fp = fopen(getenv("TAP_COUNT_FILE"), "w");

		if (fp) {
			fprintf(fp, "%d\n", tap_n);
			fclose(fp);
		}
	}
	return tap_fail ? 1 : 0;
}
