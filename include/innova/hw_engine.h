/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Innova hardware model: the NIC's TLS RX engine ("silicon + firmware").
 *
 * Pure C, single-threaded: the driver serialises every call on one engine
 * (e.g. a per-port spinlock, BH disabled).  No call sleeps or allocates;
 * memory is provided by the caller (hw_engine_mem_size/hw_engine_init) and
 * crypto keys are created by the caller with hw_crypto_key_new() (may
 * sleep, so outside the lock) and handed over on install/key update.  Keys
 * the engine no longer needs are handed back through struct hw_key_reap so
 * the caller frees them after dropping the lock (hw_key_reap_free()).
 *
 * Sequence numbers are host-order TCP sequence numbers.
 */
#ifndef INNOVA_HW_ENGINE_H
#define INNOVA_HW_ENGINE_H

#include <innova/hw_port.h>
#include <innova/hw_crypto.h>

struct hw_engine;

#define HW_ENGINE_MAX_FLOWS	65535u
#define HW_TLS_MAX_PLAIN	16384u
#define HW_TLS_IV_LEN		12	/* GCM nonce: salt (4) + IV (8) */

/* Record formats the engine decrypts (AES-GCM-128/256 in both). */
enum hw_tls_version {
	HW_TLS_1_2 = 0,
	HW_TLS_1_3,
	HW_TLS_NVERSIONS,
};

/*
 * Flow tuple, as seen in RECEIVED frames: saddr/sport = the peer (sender).
 * The 802.1Q tag is part of it, so a VLAN sub-interface with the same
 * addresses and ports is another flow (kTLS only offloads on the port
 * itself: installed flows are untagged).
 */
#define HW_VLAN_TAGGED		0x1000u	/* vlan = HW_VLAN_TAGGED | VID */
struct hw_flow_tuple {
	u8 family;		/* 4 or 6 */
	u16 vlan;		/* 0: untagged */
	u8 saddr[16];		/* IPv4: first 4 bytes, rest zero */
	u8 daddr[16];
	u16 sport;		/* host order */
	u16 dport;
};

struct hw_flow_params {
	struct hw_flow_tuple tuple;
	u32 start_seq;		/* TCP seq where offload starts (copied_seq) */
	u64 start_rn;		/* TLS record number of the record at start_seq */
	bool start_synced;	/* a record is known to start at start_seq */
	/*
	 * The first stream byte the NIC will see (the socket's rcv_nxt, or the
	 * end of the data that already sat in its backlog): the flow is
	 * anchored there instead of at whatever frame comes first.  With
	 * start_synced, start_seq may lie ahead of it (a record straddles it):
	 * the engine follows the stream there and starts in sync at start_seq.
	 */
	u32 stream_seq;
	bool stream_known;
	/*
	 * Largest forward jump of the stream the engine follows, in bytes
	 * (0: HW_FLOW_MAX_AHEAD_DEFAULT).  TCP drops a segment beyond
	 * rcv_nxt + receive window, and the window never exceeds the socket's
	 * receive buffer, so the driver passes the largest buffer the socket
	 * can have.  A frame further ahead cannot be stream data: it passes
	 * untouched and changes nothing (far_frames).
	 */
	u32 max_ahead;
	/*
	 * The host's send sequence (the socket's snd_nxt) at install.  TCP
	 * drops a segment that acknowledges data the host never sent
	 * (RFC 5961 5.2); the NIC, which carries the host's transmissions
	 * (hw_engine_tx), applies the same test before a frame may steer the
	 * record framing.  Unknown: the test waits for the first transmission.
	 */
	u32 snd_nxt;
	bool snd_known;
	/*
	 * The peer's window scale (the socket's snd_wscale).  TCP also drops
	 * a segment whose ACK is older than snd_una - max_window (RFC 5961
	 * 5.2).  The NIC does not know snd_una, but the host never has more
	 * than the peer's largest window in flight, and that window is at
	 * most 65535 << snd_wscale: an ACK more than twice that behind the
	 * host's snd_nxt is one TCP drops.  Unknown, or a scale above 13 (the
	 * span would reach half the sequence space): no lower bound.
	 */
	u8 peer_wscale;
	bool peer_wscale_known;
	/*
	 * The right edge of the receive window the host advertised (the
	 * socket's rcv_wup + rcv_wnd) and its window scale (rcv_wscale).
	 * TCP drops a segment that starts at or beyond it; a genuine peer
	 * only knows edges the host transmitted, and every transmission
	 * passes the NIC (hw_engine_tx), so the NIC's edge is never behind
	 * any genuine segment.  A frame there cannot be stream data: it
	 * never reaches the framing (out_of_window_frames).  Unknown: the
	 * test is off for the flow and only max_ahead bounds a jump.
	 */
	u32 rcv_edge;
	u8 rcv_wscale;
	bool rcv_edge_known;
	u8 version;		/* enum hw_tls_version */
	/*
	 * The GCM nonce material: TLS 1.2 uses salt only (the rest of each
	 * nonce travels in the record); TLS 1.3's static IV is salt | iv.
	 */
	u8 salt[4];
	u8 iv[8];
	struct hw_crypto_key *key;	/* consumed on success only */
};

#define HW_FLOW_MAX_AHEAD_DEFAULT	(8u << 20)

/* Keys handed back by the engine, to free outside the lock. */
#define HW_KEY_REAP_MAX 3
struct hw_key_reap {
	struct hw_crypto_key *keys[HW_KEY_REAP_MAX];
	unsigned int n;
};

/*
 * Counters, engine-wide; a flow keeps the same ones 32-bit (struct hw_flow)
 * and hw_engine_flow_info() hands them out in this layout.
 */
struct hw_stats {
	u64 rx_frames;		/* frames offered to the engine (engine-wide) */
	u64 tls_frames;		/* frames of an installed flow, csum ok */
	u64 bad_csum;		/* TCP checksum failed: untouched */
	u64 decrypted_frames;	/* frames marked crypto_done+success */
	u64 decrypted_bytes;	/* TCP payload bytes of those frames */
	/*
	 * Records the kernel gets decrypted: tag ok and every byte in a
	 * marked frame (a shadow or passed record too, when it lies wholly in
	 * the frame its tag completes in).
	 */
	u64 decrypted_records;
	u64 enc_records;	/* tag-verified records passed encrypted */
	u64 follow_records;	/* records followed without crypto */
	u64 unauth_records;	/* DEC records finished without tag (hole) */
	u64 shadow_ok;		/* shadow verifications passed */
	u64 shadow_fail;	/* shadow verifications failed */
	u64 auth_fail;		/* tag mismatches (any mode) */
	u64 holes;		/* gaps inside a record: sync kept */
	u64 sync_lost;		/* transitions out of sync (gap/header/auth) */
	u64 old_frames;		/* wholly old data (retransmit/dup) */
	u64 overlap_frames;	/* partly old data */
	u64 resync_req;		/* resync requests issued */
	u64 resync_ok;		/* confirmations applied */
	u64 resync_skip;	/* confirmations ignored (unknown/stale seq) */
	u64 resync_hint;	/* confirmations for a seq ahead: remembered */
	u64 key_updates;	/* key update commands accepted */
	u64 key_late;		/* key updates that arrived after record N */
	u64 key_refresh;	/* key_refresh_needed events raised */
	u64 nokey_records;	/* records passed because no usable key */
	u64 flows_added;
	u64 flows_deleted;
	u64 add_fail;		/* install failures (full, bad args) */
	u64 reorder_recovered;	/* sync regained from late data, no resync */
	u64 crypto_err;		/* crypto backend errors: frame not marked */
	u64 far_frames;		/* frames beyond max_ahead: ignored */
	u64 rearmed;		/* stream position taken back after a jump */
	/*
	 * Frames TCP would drop must not steer the record framing (docs/
	 * design.md, "The NIC sits in front of TCP").
	 */
	/* a later copy of an unverified record prefix differed: resync */
	u64 hdr_conflict;
	/* a later copy of a settled (tag-verified) prefix differed: ignored */
	u64 copy_mismatch;
	/* hole/overlap in a record whose prefix is not anchored: not marked */
	u64 unanchored;
	u64 no_ack_frames;	/* data without the ACK flag: TCP drops it */
	u64 far_reanchor;	/* a run of contiguous far frames: followed */
	/* data acknowledging bytes the host never sent: TCP drops it */
	u64 bad_ack_frames;
	/* data starting at or beyond the advertised window: TCP drops it */
	u64 out_of_window_frames;
	/* TLS 1.3 flows (the rest count both versions) */
	u64 tls13_decrypted_records;	/* as decrypted_records */
	/* a KeyUpdate decrypted: the key ends with it (as a CCS in 1.2) */
	u64 tls13_key_update;
	/*
	 * a decrypted record whose inner type the engine could not read, or
	 * another handshake message: the next record is verified first (it
	 * may be under a new key)
	 */
	u64 tls13_inner_recheck;
	/*
	 * Records decrypted with a good tag whose last frame still went up
	 * unmarked, or whose earlier frame did: it also carried bytes the
	 * engine could not decrypt (the next key's first record after a key
	 * update, a record followed without a key, a failed tag). The kernel
	 * gets such a record partly or wholly encrypted and decrypts it in
	 * software, so it is not in decrypted_records.
	 */
	u64 unmarked_records;
};

/* Completion event bits (hw_rx_completion.events). */
#define HW_EV_KEY_REFRESH_NEEDED	0x1u	/* key update failed shadow */
#define HW_EV_SYNC_LOST			0x2u
#define HW_EV_SYNCED			0x4u	/* shadow passed: decrypting */
#define HW_EV_KEY_SWITCHED		0x8u	/* new key took effect */
/* Record numbers regained from late data: no resync needed. */
#define HW_EV_REORDER_RECOVERED		0x10u
/* why sync was lost in this frame */
#define HW_EV_LOST_GAP			0x20u	/* gap that may hold a header */
#define HW_EV_LOST_BAD_HEADER		0x40u	/* implausible record header */
#define HW_EV_LOST_TAG			0x80u	/* tag mismatch while decrypting */
#define HW_EV_LOST_CRYPTO		0x100u	/* a backend error poisoned a record */
/* only old data followed a forward jump: the position was taken back */
#define HW_EV_REARMED			0x200u
/* a crypto backend call failed in this frame: nothing of it is marked */
#define HW_EV_CRYPTO_ERR		0x400u
/* a later copy of a record prefix contradicted the framing: dropped */
#define HW_EV_LOST_CONFLICT		0x800u
/* the stream moved to a run of contiguous frames beyond max_ahead */
#define HW_EV_REANCHORED		0x1000u
/* a candidate chain (TRACK, resync requested) was given up */
#define HW_EV_CHAIN_DROPPED		0x2000u

struct hw_rx_completion {
	u32 flow;		/* flow handle, 0 = none */
	u32 resync_seq;		/* header_start + 4, valid iff resync_req */
	u32 tcp_seq;		/* TCP sequence number of the frame */
	u32 payload_off;	/* TCP payload offset within the frame */
	u32 payload_len;
	u32 events;		/* HW_EV_* */
	bool is_tcp;		/* parsed as IPv4/IPv6 TCP */
	bool csum_ok;		/* TCP checksum validated */
	bool is_tls_flow;	/* matched an installed flow */
	bool crypto_done;	/* every payload byte went through decryption */
	bool crypto_success;	/* no tag in this frame failed */
	bool auth_fail;		/* a tag in this frame failed */
	bool resync_req;	/* driver: tls_offload_rx_resync_request() */
};

/* The driver sets skb->decrypted iff this is true. */
static inline bool hw_rx_decrypted(const struct hw_rx_completion *c)
{
	return c->crypto_done && c->crypto_success;
}

/* Flow states (state machine: engine.c's header; overview: docs/design.md). */
enum hw_flow_state {
	HW_FS_SEARCH = 0,	/* no record boundary known: stream scan */
	HW_FS_TRACK,		/* following a candidate, resync requested */
	HW_FS_SHADOW,		/* boundary + record number known: verifying */
	HW_FS_SYNC,		/* verified: decrypting in place */
	HW_FS_NOKEY,		/* boundary + number known, no usable key */
};

struct hw_flow_info {
	struct hw_flow_tuple tuple;
	enum hw_flow_state state;
	u32 expected_seq;	/* next in-order TCP seq */
	u32 record_seq;		/* TCP seq of the current record header */
	u64 record_num;		/* current record number (if known) */
	bool record_num_known;
	u32 record_pos;		/* bytes of current record seen */
	u32 record_len;		/* 5 + L, 0 if header incomplete */
	u64 key_switch_rn;	/* pending key update record number */
	bool key_pending;
	struct hw_stats stats;
	bool reorder_pending;	/* waiting for late data to regain sync */
	/*
	 * Records whose tag failed since the last one verified: at a TLS 1.3
	 * key update, the records under the next key the flow met first.
	 */
	u32 auth_fail_run;
	/*
	 * In NOKEY and still following records: the first record it had no
	 * key for starts at nokey_seq, numbered nokey_rn (record_num's
	 * numbering). The records from there to record_num passed before
	 * their key; a replacement flow can start after them in sync.
	 */
	bool nokey_known;
	u32 nokey_seq;
	u64 nokey_rn;
};

/* ---- engine lifetime (process context) ---- */
size_t hw_engine_mem_size(u32 capacity);
/* mem: caller memory of hw_engine_mem_size(capacity) bytes, any content. */
struct hw_engine *hw_engine_init(void *mem, size_t size, u32 capacity);
/* Deletes all flows; their keys are freed with hw_crypto_key_free(). */
void hw_engine_fini(struct hw_engine *eng);
/*
 * Reorder recovery from late frames (default on).  Off, every gap that
 * may hold a header costs a resync round trip through the kernel, which
 * is what a NIC without "reorder-good" support does.
 */
void hw_engine_set_reorder_recovery(struct hw_engine *eng, bool on);
bool hw_engine_reorder_recovery(const struct hw_engine *eng);
/*
 * Fault injection: the next n whole-block CTR calls of the engine fail as
 * if the crypto backend had returned an error (the frame is not marked,
 * the flow stops decrypting until resync, crypto_err counts it).
 */
/*
 * TCP's ACK test on received frames (default on; see
 * hw_flow_params.snd_nxt).  Off, such frames reach the framing and only
 * the later checks (prefix copies, anchoring, tags) stand between them and
 * a wrong mark: the harnesses switch it off to exercise those.
 */
void hw_engine_set_ack_check(struct hw_engine *eng, bool on);
bool hw_engine_ack_check(const struct hw_engine *eng);
/*
 * TCP's window test on received frames (default on; see
 * hw_flow_params.rcv_edge): off, a frame beyond the advertised window
 * may move the stream position up to max_ahead (a jump, taken back by
 * old data: the harnesses switch it off to exercise that).
 */
void hw_engine_set_window_check(struct hw_engine *eng, bool on);
bool hw_engine_window_check(const struct hw_engine *eng);
void hw_engine_inject_crypto_fail(struct hw_engine *eng, u32 n);
u32 hw_engine_crypto_fail_pending(const struct hw_engine *eng);
/*
 * The engine's test for a record header (5 bytes) where no boundary is
 * known: version 03 03, a length the kernel takes (TLS 1.2: 24..2^14 + 24;
 * TLS 1.3: 16..2^14 + 17), content type 20..24 (TLS 1.2) or 23 (TLS 1.3,
 * where the outer type is always 23: only the length and the chain of
 * headers behind it tell a boundary from ciphertext).
 */
bool hw_tls_hdr_plausible(enum hw_tls_version v, const u8 h[5]);

/* ---- firmware commands (atomic, under the driver's lock) ---- */
int hw_engine_flow_add(struct hw_engine *eng, const struct hw_flow_params *p,
		       u32 *handle);
int hw_engine_flow_del(struct hw_engine *eng, u32 handle,
		       struct hw_key_reap *reap);
/*
 * header_seq: TCP seq of the record header's FIRST byte; rn: its number.
 * Returns HW_RESYNC_APPLIED (numbers taken or confirmed), HW_RESYNC_HINT
 * (seq ahead of the stream: used when the stream gets there),
 * HW_RESYNC_SKIPPED (stale or unknown seq, or contradicts a verified
 * state), or -ENOENT.
 */
enum hw_resync_result {
	HW_RESYNC_APPLIED = 0,
	HW_RESYNC_HINT,
	HW_RESYNC_SKIPPED,
};

int hw_engine_flow_resync(struct hw_engine *eng, u32 handle, u32 header_seq,
			  u64 rn);
/*
 * New key effective from record number rn (record numbers carry on); iv:
 * the nonce material as in hw_flow_params, salt | iv (TLS 1.2: the first
 * 4 bytes count).
 */
int hw_engine_flow_key_update(struct hw_engine *eng, u32 handle,
			      struct hw_crypto_key *key,
			      const u8 iv[HW_TLS_IV_LEN], u64 rn,
			      struct hw_key_reap *reap);

/* ---- data path (atomic) ---- */
/*
 * frame: the received Ethernet frame (read-only, contiguous).
 * out:   buffer of len bytes; holds the complete decrypted frame iff
 *        hw_rx_decrypted(c) on return, unspecified otherwise.
 * Returns 0 (always; the completion describes the outcome).
 */
int hw_engine_rx(struct hw_engine *eng, const u8 *frame, u32 len, u8 *out,
		 struct hw_rx_completion *c);

/*
 * frame: an Ethernet frame the host transmits on this port (read-only,
 * checksums final).  A segment of an installed flow's reverse direction
 * advances the flow's view of the host's snd_nxt and, with the ACK flag
 * (not SYN), of the receive window's right edge (ack + window << scale).
 * Nothing else changes.
 */
void hw_engine_tx(struct hw_engine *eng, const u8 *frame, u32 len);

/*
 * The seq after the furthest data the engine passed of tuple while it
 * had no flow (since the connection's SYN), as far as a small table
 * remembers; false: nothing remembered. The driver compares it with the
 * socket's data at install: beyond it, a frame is still on its way up.
 */
bool hw_engine_untracked_end(const struct hw_engine *eng,
			     const struct hw_flow_tuple *tuple, u32 *end);

/* ---- observability ---- */
const char *hw_flow_state_name(enum hw_flow_state s);
int hw_engine_flow_info(const struct hw_engine *eng, u32 handle,
			struct hw_flow_info *info);
void hw_engine_stats(const struct hw_engine *eng, struct hw_stats *st);
u32 hw_engine_flow_count(const struct hw_engine *eng);

/*
 * Resync latency, engine-wide: after a flow lost sync, how many records
 * it followed from the first intact header it found to its first record
 * decrypted again (0: that first header's record was decrypted). hist[i]
 * counts latencies of i records; the last bucket holds HW_RESYNC_HIST - 1
 * and more. Read and reset under the caller's engine lock.
 */
#define HW_RESYNC_HIST	32
void hw_engine_resync_hist(const struct hw_engine *eng,
			   u32 hist[HW_RESYNC_HIST]);
void hw_engine_resync_hist_reset(struct hw_engine *eng);
/* Iterate installed flows: returns the next handle after prev (0 = first). */
u32 hw_engine_flow_next(const struct hw_engine *eng, u32 prev);

/* Free reaped keys (process context or wherever hw_crypto_key_free may run) */
void hw_key_reap_free(struct hw_key_reap *reap);

#endif /* INNOVA_HW_ENGINE_H */
