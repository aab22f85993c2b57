// SPDX-License-Identifier: GPL-2.0
/*
 * Micro-benchmark: the engine over 1448-byte TCP frames of 16 KiB TLS
 * records (parse + checksum + streaming GCM + copy) versus OpenSSL one-shot
 * AES-128-GCM decryption of the same records.
 *   bench engine|openssl   one pass (for callgrind --toggle-collect)
 *   bench wall             wall-time ratio over repeated passes
 *   bench flows            per-byte cost with 1, 100, 1000, 10000 flows
 *                          installed and receiving at once
 *   bench flows N          one pass of N flows (callgrind: flows_rx)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <openssl/evp.h>
#include "tls_stream.h"

#define NREC 128
#define MSS 1448

static struct stream S;
static u8 **frames;
static u32 *flen;
static u32 nframes;
static u8 *outbuf, *ptbuf;
static struct frame_cfg FC = { .family = 4, .sport = 443, .dport = 5000 };
static volatile u64 sink;

__attribute__((noinline)) void bench_engine(void)
{
	size_t sz = hw_engine_mem_size(4);
	void *mem = malloc(sz);
	struct hw_engine *e = hw_engine_init(mem, sz, 4);
	struct hw_flow_params fp = { 0 };
	struct hw_rx_completion c;
	u32 h, i, marked = 0;

	frame_tuple(&FC, &fp.tuple);
	hw_crypto_key_new(S.ep[0].key, 16, &fp.key);
	memcpy(fp.salt, S.ep[0].salt, 4);
	fp.start_seq = S.isn;
	fp.start_synced = true;
	hw_engine_flow_add(e, &fp, &h);
	for (i = 0; i < nframes; i++) {
		hw_engine_rx(e, frames[i], flen[i], outbuf, &c);
		marked += hw_rx_decrypted(&c);
	}
	sink += marked;
	hw_engine_fini(e);
	free(mem);
}

__attribute__((noinline)) void bench_openssl(void)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int i, l, ok = 0;

	EVP_DecryptInit_ex(c, EVP_aes_128_gcm(), NULL, S.ep[0].key, NULL);
	for (i = 0; i < S.nrec; i++) {
		const u8 *r = S.wire + S.rec[i].off;
		u32 plen = S.rec[i].len - 29;
		u8 iv[12], aad[13];

		memcpy(iv, S.ep[0].salt, 4);
		memcpy(iv + 4, r + 5, 8);
		hw_put_be64(aad, S.rec[i].rn);
		memcpy(aad + 8, r, 3);
		hw_put_be16(aad + 11, (u16)plen);
		EVP_DecryptInit_ex(c, NULL, NULL, NULL, iv);
		EVP_DecryptUpdate(c, NULL, &l, aad, 13);
		EVP_DecryptUpdate(c, ptbuf, &l, r + 13, (int)plen);
		EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, 16,
				    (void *)(r + 13 + plen));
		ok += EVP_DecryptFinal_ex(c, ptbuf + plen, &l) > 0;
	}
	sink += (u64)ok;
	EVP_CIPHER_CTX_free(c);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double best_of(void (*fn)(void), int reps)
{
	double best = 1e9;
	int i;

	for (i = 0; i < reps; i++) {
		double t = now();

		fn();
		t = now() - t;
		if (t < best)
			best = t;
	}
	return best;
}

extern int hw_crypto_no_stitch;

/*
 * Per-frame cost against the number of flows: N flows (each its own key
 * and tuple, source port 1024 + i) in an engine sized for N, each fed the
 * same FLOW_REC records, frame k of every flow before frame k + 1
 * (round-robin, as many connections sharing a link). Frames are built once
 * for one tuple; before each frame the source port is rewritten and the
 * TCP checksum patched incrementally (RFC 1624: a few instructions, next to
 * ~1.4 KB of AES-GCM). Passes repeat until FLOW_MIN_BYTES went through, so
 * every point decrypts about as many bytes; only the receive loop is timed.
 * A flow's first record is verified in shadow before the engine marks
 * frames (so 35 of a flow's 46 frames are marked): every flow must mark
 * exactly as many as the single flow did.
 */
#define FLOW_REC 4
#define FLOW_MIN_BYTES (256u << 20)

static void frame_set_sport(u8 *f, u32 l4, u16 sport)
{
	u32 old = hw_get_be16(f + l4), sum = (u16)~hw_get_be16(f + l4 + 16);

	sum += (u16)~old + sport;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	hw_put_be16(f + l4, sport);
	hw_put_be16(f + l4 + 16, (u16)~sum);
}

/* frame k of each of the n flows, then frame k + 1: frames marked */
__attribute__((noinline)) u64 flows_rx(struct hw_engine *e, u32 n, u8 **ff,
				       const u32 *fl, u32 nf, u32 l4)
{
	u64 marked = 0;
	u32 k, i;

	for (k = 0; k < nf; k++) {
		for (i = 0; i < n; i++) {
			struct hw_rx_completion c;

			frame_set_sport(ff[k], l4, (u16)(1024 + i));
			hw_engine_rx(e, ff[k], fl[k], outbuf, &c);
			marked += hw_rx_decrypted(&c);
		}
	}
	return marked;
}

/*
 * only == 0: every flow count, timed; only == N: one pass of N flows (for
 * callgrind --toggle-collect=flows_rx), printing the bytes it decrypts.
 */
static int bench_flows(u32 only)
{
	static const u32 counts[] = { 1, 100, 1000, 10000 };
	struct rng r = { 7 };
	struct stream_cfg sc = { .nrec = FLOW_REC, .size_mode = 0, .klen = 16 };
	struct stream fs;
	u32 nf, k, ci, l4 = frame_hdr_len(&FC) - 20;
	u8 **ff;
	u32 *fl;
	double ns1 = 0;
	u64 per_flow = 0;

	stream_gen(&fs, &sc, &r);
	nf = (fs.n + MSS - 1) / MSS;
	ff = calloc(nf, sizeof(*ff));
	fl = calloc(nf, sizeof(*fl));
	for (k = 0; k < nf; k++) {
		u32 off = k * MSS, l = fs.n - off < MSS ? fs.n - off : MSS;

		ff[k] = malloc(MSS + 128);
		fl[k] = frame_build(ff[k], &FC, fs.isn + off, 0x18, fs.wire + off, l);
	}
	if (!only)
		printf("flows: %u records of 16 KiB per flow (%u B, %u frames), round-robin over the flows, engine sized to the flow count\n",
		       FLOW_REC, fs.n, nf);
	for (ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
		u32 n = only ?: counts[ci], i;
		size_t sz = hw_engine_mem_size(n);
		void *mem = malloc(sz);
		u64 bytes = 0, frames = 0, marked = 0, passes = 0;
		double t = 0, ns;

		while (bytes < (only ? 1 : FLOW_MIN_BYTES)) {
			struct hw_engine *e = hw_engine_init(mem, sz, n);
			double t0;

			for (i = 0; i < n; i++) {
				struct frame_cfg fc = FC;
				struct hw_flow_params fp = { 0 };
				u32 h;

				fc.sport = (u16)(1024 + i);
				frame_tuple(&fc, &fp.tuple);
				if (hw_crypto_key_new(fs.ep[0].key, 16, &fp.key))
					return 1;
				memcpy(fp.salt, fs.ep[0].salt, 4);
				fp.start_seq = fs.isn;
				fp.start_synced = true;
				if (hw_engine_flow_add(e, &fp, &h))
					return 1;
			}
			t0 = now();
			marked += flows_rx(e, n, ff, fl, nf, l4);
			t += now() - t0;
			hw_engine_fini(e);
			bytes += (u64)n * fs.n;
			frames += (u64)n * nf;
			/* the first pass (1 flow, or N alone) is the reference */
			if (!per_flow)
				per_flow = marked / n;
			passes++;
		}
		free(mem);
		/* every flow's frames marked as one flow's alone are */
		if (marked != per_flow * n * passes) {
			printf("flows %u: %llu frames marked decrypted, want %llu\n", n,
			       (unsigned long long)marked,
			       (unsigned long long)(per_flow * n * passes));
			return 1;
		}
		if (only) {
			printf("%llu\n", (unsigned long long)bytes);
			return 0;
		}
		ns = t * 1e9 / (double)bytes;
		sink += marked;
		if (!ns1)
			ns1 = ns;
		printf("  %5u flows: %.3f ns/B, %.2f Mframes/s, %.2fx the 1-flow cost per byte (engine %zu B; %llu of %u frames per flow marked decrypted)\n",
		       n, ns, frames / t / 1e6, ns / ns1, sz,
		       (unsigned long long)per_flow, nf);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct rng r = { 2024 };
	struct stream_cfg c = { .nrec = NREC, .size_mode = 0, .klen = 16 };
	const char *mode = argc > 1 ? argv[1] : "wall";
	u32 off, i;

	stream_gen(&S, &c, &r);
	nframes = (S.n + MSS - 1) / MSS;
	frames = calloc(nframes, sizeof(*frames));
	flen = calloc(nframes, sizeof(*flen));
	for (i = 0, off = 0; off < S.n; off += MSS, i++) {
		u32 l = S.n - off < MSS ? S.n - off : MSS;

		frames[i] = malloc(MSS + 128);
		flen[i] = frame_build(frames[i], &FC, S.isn + off, 0x18,
				      S.wire + off, l);
	}
	outbuf = malloc(MSS + 128);
	ptbuf = malloc(16384 + 64);
	if (!strcmp(mode, "bytes")) {
		printf("%u\n", S.n);
	} else if (!strcmp(mode, "engine")) {
		bench_engine();
	} else if (!strcmp(mode, "openssl")) {
		bench_openssl();
	} else if (!strcmp(mode, "flows")) {
		return bench_flows(argc > 2 ? (u32)atoi(argv[2]) : 0);
	} else {
		double te, tu, to;

		bench_engine();
		bench_openssl();
		/* interleaved rounds: all three see the same clock and cache */
		te = tu = to = 1e9;
		for (i = 0; i < 40; i++) {
			te = fmin(te, best_of(bench_engine, 1));
			hw_crypto_no_stitch = 1;
			tu = fmin(tu, best_of(bench_engine, 1));
			hw_crypto_no_stitch = 0;
			to = fmin(to, best_of(bench_openssl, 1));
		}
		printf("wall: engine %.3f ms (%.2f GB/s), openssl one-shot %.3f ms "
		       "(%.2f GB/s), ratio %.2fx\n", te * 1e3, S.n / te / 1e9,
		       to * 1e3, S.n / to / 1e9, te / to);
		printf("      engine with GHASH and CTR as separate passes: "
		       "%.3f ms, ratio %.2fx (stitching gains %.0f %%)\n",
		       tu * 1e3, tu / to, 100.0 * (tu - te) / tu);
	}
	return 0;
}
