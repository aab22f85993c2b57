// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: arbitrary sequences of firmware commands and frames
 * against the Innova RX engine.  Frames are either raw bytes or real TCP
 * frames of installed tuples carrying (possibly mutated) slices of a valid
 * TLS stream, so the fuzzer reaches sync, decryption, resync and rekey.
 * Invariants: the input frame is never written; completion flags are
 * consistent; a resync request points into the frame; while no mutated
 * stream bytes were sent, a marked frame holds exactly the plaintext; a
 * reorder recovery happens on an unmarked old-data frame only.
 */
#include <stdio.h>
#include <stdlib.h>
#include "tls_stream.h"

#define NSLOT 3

static struct stream S;
static struct hw_engine *E;
static void *Emem;
static u32 H[NSLOT];
static struct frame_cfg FC[NSLOT];

static void die(const char *m)
{
	fprintf(stderr, "INVARIANT: %s\n", m);
	abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct rng r = { 99 };
	struct stream_cfg c = { .nrec = 40, .size_mode = 2, .klen = 16,
				.nkeyup = 1 };
	int i;

	(void)argc;
	(void)argv;
	stream_gen(&S, &c, &r);
	for (i = 0; i < NSLOT; i++) {
		FC[i].family = i == 1 ? 6 : 4;
		memset(FC[i].saddr, 0x10 + i, 16);
		memset(FC[i].daddr, 0x30, 16);
		FC[i].sport = 443;
		FC[i].dport = (u16)(1000 + i);
		FC[i].vlan = i == 2;
	}
	Emem = malloc(hw_engine_mem_size(NSLOT - 1));
	return 0;
}

struct in {
	const u8 *d;
	size_t n;
};

static u32 get(struct in *in, unsigned int bytes)
{
	u32 v = 0;

	while (bytes--) {
		v <<= 8;
		if (in->n) {
			v |= *in->d++;
			in->n--;
		}
	}
	return v;
}

static void del(int i)
{
	struct hw_key_reap reap = { .n = 0 };

	if (H[i] && !hw_engine_flow_del(E, H[i], &reap))
		hw_key_reap_free(&reap);
	H[i] = 0;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static u8 fr[4096 + 128], cp[4096 + 128], out[4096 + 128];
	struct in in = { data, size };
	bool mutated = false;
	int ops = 0;
	int trace = getenv("FUZZ_TRACE") != NULL;

	E = hw_engine_init(Emem, hw_engine_mem_size(NSLOT - 1), NSLOT - 1);
	memset(H, 0, sizeof(H));
	while (in.n && ops++ < 400) {
		u32 op = get(&in, 1), slot = op >> 5 & 3;
		struct hw_rx_completion c;
		u32 len = 0, seq = 0, plen = 0, off = 0;

		if (slot >= NSLOT)
			slot = 0;
		switch (op & 7) {
		case 0: {	/* install */
			struct hw_flow_params fp = { 0 };
			u32 a = get(&in, 1);
			int ep = a & 1;

			del((int)slot);
			frame_tuple(&FC[slot], &fp.tuple);
			if (hw_crypto_key_new(S.ep[ep].key, a & 2 ? 16 : 32,
					      &fp.key))
				break;
			memcpy(fp.salt, S.ep[ep].salt, 4);
			off = get(&in, 2) % (S.n + 1);
			if (a & 4)
				off = S.rec[get(&in, 1) % S.nrec].off;
			fp.start_seq = S.isn + off;
			fp.start_rn = a & 8 ? get(&in, 1) :
				      (u64)(stream_rec_at(&S, off) < 0 ? 0 :
				      S.rec[stream_rec_at(&S, off)].rn);
			fp.start_synced = a & 16;
			if (hw_engine_flow_add(E, &fp, &H[slot])) {
				hw_crypto_key_free(fp.key);
				H[slot] = 0;
			}
			break;
		}
		case 1:
			del((int)slot);
			break;
		case 2: {	/* resync: real header or arbitrary */
			u32 a = get(&in, 1);
			int ri = (int)(get(&in, 1) % S.nrec);
			u64 rn = a & 1 ? S.rec[ri].rn : get(&in, 1);

			seq = a & 2 ? S.isn + S.rec[ri].off :
				      S.isn + get(&in, 2);
			if ((a & 0xc0) == 0xc0)	/* late-frame recovery off/on */
				hw_engine_set_reorder_recovery(E, a & 0x20);
			else if ((a & 0xc0) == 0x80)	/* backend errors */
				hw_engine_inject_crypto_fail(E, a & 3);
			else
				hw_engine_flow_resync(E, H[slot], seq, rn);
			break;
		}
		case 3: {	/* key update */
			struct hw_key_reap reap = { .n = 0 };
			struct hw_crypto_key *k;
			u32 a = get(&in, 1);
			int ep = a & 1;
			u8 key[32], iv[HW_TLS_IV_LEN];

			epoch_iv(&S.ep[ep], iv);
			memcpy(key, S.ep[ep].key, 32);
			if (a & 2)
				key[5] ^= 0x80;
			if (hw_crypto_key_new(key, S.ep[ep].klen, &k))
				break;
			if (hw_engine_flow_key_update(E, H[slot], k, iv,
					a & 4 ? S.ep[1].from_rn : get(&in, 1),
					&reap))
				hw_crypto_key_free(k);
			hw_key_reap_free(&reap);
			break;
		}
		case 4:
		case 5:
		case 6: {	/* stream frame */
			u32 a = get(&in, 1);

			off = get(&in, 2) % S.n;
			plen = a & 0x80 ? get(&in, 1) % 8 : get(&in, 2) % 1500;
			if (plen > S.n - off)
				plen = S.n - off;
			len = frame_build(fr, &FC[slot], S.isn + off, 0x18,
					  S.wire + off, plen);
			if ((op & 7) == 6 && plen) {
				/* mutate, keep checksum valid or not */
				fr[frame_hdr_len(&FC[slot]) +
				   get(&in, 2) % plen] ^= (u8)get(&in, 1);
				if (a & 1) {
					frame_fix_csum(fr, len);
					mutated = true;
				}
			}
			break;
		}
		default: {	/* raw bytes */
			len = get(&in, 2) % 1600;
			if (len > in.n)
				len = (u32)in.n;
			memcpy(fr, in.d, len);
			in.d += len;
			in.n -= len;
			break;
		}
		}
		if (trace && (op & 7) < 4)
			fprintf(stderr, "cmd op%u slot%u seq %u\n", op & 7, slot,
				seq - S.isn);
		if ((op & 7) < 4)
			continue;
		memcpy(cp, fr, len);
		hw_engine_rx(E, fr, len, out, &c);
		if (trace) {
			struct hw_flow_info fi = { 0 };

			hw_engine_flow_info(E, H[slot], &fi);
			fprintf(stderr, "frame op%u slot%u off %u plen %u -> "
				"done %d ok %d auth %d req %d(%u) | %s rn %llu "
				"rec_seq %u pos %u len %u\n", op & 7, slot,
				off, plen, c.crypto_done, c.crypto_success,
				c.auth_fail, c.resync_req,
				c.resync_seq - S.isn, hw_flow_state_name(fi.state),
				(unsigned long long)fi.record_num,
				fi.record_seq - S.isn, fi.record_pos,
				fi.record_len);
		}
		if (memcmp(cp, fr, len))
			die("input modified");
		if (c.crypto_success && !c.crypto_done)
			die("success without done");
		if (c.crypto_success && c.auth_fail)
			die("success with auth_fail");
		if (hw_rx_decrypted(&c) && (!c.csum_ok || !c.is_tls_flow))
			die("marked without csum/flow");
		/* (a request may follow in the same frame: the numbers the
		 * walk carried on may have been wrong from the install) */
		if ((c.events & HW_EV_REORDER_RECOVERED) &&
		    (hw_rx_decrypted(&c) || !c.is_tls_flow))
			die("reorder recovery on a marked frame");
		if (c.is_tls_flow && c.flow == H[slot] && H[slot]) {
			struct hw_flow_info fi;

			if (!hw_engine_flow_info(E, H[slot], &fi) &&
			    fi.reorder_pending && fi.state != HW_FS_SEARCH &&
			    fi.state != HW_FS_TRACK)
				die("reorder walk pending while synced");
		}
		if (c.resync_req) {
			u32 rs;

			if (!c.is_tls_flow || c.payload_len == 0)
				die("request on non-flow frame");
			rs = c.resync_seq - c.tcp_seq;
			if (rs >= c.payload_len)
				die("request seq outside frame");
			if (rs < 4 || mutated) {
				/* header began in an earlier frame (whose
				 * bytes may have differed if mutated) */
			} else if (!hdr_plausible_bytes(fr + c.payload_off +
							  rs - 4)) {
				die("request for implausible header");
			}
		}
		if (hw_rx_decrypted(&c) && !mutated && (op & 7) != 7) {
			for (u32 j = 0; j < plen; j++) {
				u32 o = off + j;

				if (!S.valid[o] ||
				    out[c.payload_off + j] != S.plain[o])
					die("marked frame with wrong plaintext");
			}
		}
	}
	hw_engine_fini(E);
	return 0;
}
