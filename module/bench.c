// SPDX-License-Identifier: GPL-2.0
/*
 * Innova micro-benchmark, on demand: debugfs innova/bench (root only).
 *
 *   echo "records=64 size=16384 frame=1448 reps=3" > bench   run it
 *   cat bench                        last result, then per-flow memory
 *
 * What the emulated NIC costs against the kernel's own gcm(aes). A
 * private engine instance (hw_engine_mem_size/hw_engine_init: no port and
 * no real flow is touched) gets one IPv4 flow with a fixed test key.
 * Synthetic TLS 1.2 AES-GCM-128 records, encrypted with gcm(aes), are cut
 * into Ethernet/IPv4/TCP frames of `frame` payload bytes with valid
 * checksums. Record 0 fills frame 0 exactly: the engine authenticates it
 * (SHADOW) and decrypts from record 1 on (SYNC), which starts at a frame
 * boundary, so the timed part is records 1..N in steady state. The same
 * records 1..N go through one gcm(aes) in-place decrypt each, synchronous
 * (crypto_wait_req). An untimed first pass checks that the engine marked
 * every frame and that its plaintext equals gcm(aes)'s and the original;
 * the timings are the best of `reps` passes. Timed alone over the same
 * ciphertext: the crypto backend's CTR and GHASH, and the TCP checksum of
 * the frames (the engine's bare costs; the rest is its own logic).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tcp.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <crypto/aead.h>
#include <crypto/gf128mul.h>
#include <net/checksum.h>
#include <net/ip.h>

#include <innova/hw_engine.h>

#include "hw/engine_priv.h"	/* sizeof(struct hw_flow) and its parts only */
#include "innova.h"

#define BENCH_HDR	(ETH_HLEN + sizeof(struct iphdr) + sizeof(struct tcphdr))
#define BENCH_AAD	13
#define BENCH_OVERHEAD	(HW_TLS_PREFIX + HW_TLS_TAG)	/* 29 */
#define BENCH_ISN	0xfff00000u	/* the stream wraps the seq space */
#define BENCH_MAX_RECORDS	4096u
#define BENCH_MAX_BYTES		(16u << 20)	/* records * size */
#define BENCH_MAX_REPS		20u
#define BENCH_MIN_FRAME		64u
#define BENCH_MAX_FRAME		(INNOVA_MAX_MTU - 40u)
#define BENCH_OUT_SIZE		2048

static const u8 bench_key[16] = {
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
	0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
};

static const u8 bench_salt[4] = { 0xca, 0xfe, 0xba, 0xbe };
static const u8 bench_mac_dst[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x02 };
static const u8 bench_mac_src[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x01 };

struct bench_cfg {
	unsigned int records;
	unsigned int size;
	unsigned int frame;
	unsigned int reps;
};

struct bench_times {
	u64 engine, aead, ctr, ghash, csum;
};

struct bench {
	struct bench_cfg cfg;
	u32 wire_len;		/* record 0, then records 1..N */
	u8 *wire;		/* the stream as sent (vmalloc) */
	u8 *plain;		/* original plaintext, at wire offsets */
	u8 *eng_view;		/* engine output payload, at wire offsets */
	u8 **frames;		/* frame i (kmalloc: linear like skb data) */
	u32 *flen;
	u32 nframes;
	u32 fstride;
	u8 *out;		/* engine output frame ("RX DMA") */
	void *eng_mem;
	struct hw_engine *eng;
	struct hw_flow_tuple tuple;
	struct hw_crypto_key *key;	/* for the bare CTR/GHASH timings */
	struct crypto_aead *aead;
	struct aead_request *req;
	struct crypto_wait wait;
	u8 **rec;		/* record r: aad | ciphertext | tag (kmalloc) */
	struct scatterlist *sg;	/* one entry per record */
	u8 *iv;
	u32 csum_sink;
};

static DEFINE_MUTEX(bench_lock);	/* one run at a time; bench_result */
static char bench_result[BENCH_OUT_SIZE];

static u32 bench_plen(const struct bench *b, u32 r)
{
	return r ? b->cfg.size : b->cfg.frame - BENCH_OVERHEAD;
}

static u32 bench_woff(const struct bench *b, u32 r)
{
	return r ? b->cfg.frame + (r - 1) * (b->cfg.size + BENCH_OVERHEAD) : 0;
}

static u8 *bench_frame(const struct bench *b, u32 i)
{
	return b->frames[i];
}

/* aad and iv of record r as TLS 1.2 builds them (nonce: from the wire) */
static void bench_aead_prep(struct bench *b, u32 r)
{
	const u8 *w = b->wire + bench_woff(b, r);
	u8 *aad = b->rec[r];

	memcpy(b->iv, bench_salt, 4);
	memcpy(b->iv + 4, w + HW_TLS_HDR, 8);
	hw_put_be64(aad, r);
	aad[8] = w[0];
	aad[9] = w[1];
	aad[10] = w[2];
	hw_put_be16(aad + 11, (u16)bench_plen(b, r));
	aead_request_set_crypt(b->req, &b->sg[r], &b->sg[r],
			       bench_plen(b, r) + HW_TLS_TAG, b->iv);
	aead_request_set_ad(b->req, BENCH_AAD);
}

/* Build record r: plaintext, gcm(aes) encryption, wire bytes. */
static int bench_make_record(struct bench *b, u32 r, u64 *prng)
{
	u32 plen = bench_plen(b, r), off = bench_woff(b, r), i;
	u8 *w = b->wire + off, *buf = b->rec[r];
	u64 x = *prng;
	int err;

	for (i = 0; i < plen; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b->plain[off + HW_TLS_PREFIX + i] = (u8)x;
	}
	*prng = x;
	w[0] = 0x17;
	w[1] = 3;
	w[2] = 3;
	hw_put_be16(w + 3, (u16)(plen + HW_TLS_L_MIN));
	hw_put_be64(w + HW_TLS_HDR, r);		/* explicit nonce, as kTLS */
	memcpy(buf + BENCH_AAD, b->plain + off + HW_TLS_PREFIX, plen);
	bench_aead_prep(b, r);
	aead_request_set_crypt(b->req, &b->sg[r], &b->sg[r], plen, b->iv);
	err = crypto_wait_req(crypto_aead_encrypt(b->req), &b->wait);
	if (err)
		return err;
	memcpy(w + HW_TLS_PREFIX, buf + BENCH_AAD, plen + HW_TLS_TAG);
	return 0;
}

static u32 bench_build_frame(const struct bench *b, u8 *f, u32 seq,
			     const u8 *payload, u32 plen)
{
	struct ethhdr *eth = (struct ethhdr *)f;
	struct iphdr *iph = (struct iphdr *)(eth + 1);
	struct tcphdr *th = (struct tcphdr *)(iph + 1);
	u32 tcplen = sizeof(*th) + plen, len;

	memset(f, 0, BENCH_HDR);
	memcpy(eth->h_dest, bench_mac_dst, ETH_ALEN);
	memcpy(eth->h_source, bench_mac_src, ETH_ALEN);
	eth->h_proto = htons(ETH_P_IP);
	iph->version = 4;
	iph->ihl = 5;
	iph->tot_len = htons(sizeof(*iph) + tcplen);
	iph->frag_off = htons(IP_DF);
	iph->ttl = 64;
	iph->protocol = IPPROTO_TCP;
	memcpy(&iph->saddr, b->tuple.saddr, 4);
	memcpy(&iph->daddr, b->tuple.daddr, 4);
	iph->check = ip_fast_csum(iph, iph->ihl);
	th->source = htons(b->tuple.sport);
	th->dest = htons(b->tuple.dport);
	th->seq = htonl(seq);
	th->ack_seq = htonl(1);
	th->doff = sizeof(*th) / 4;
	th->ack = 1;
	th->psh = 1;
	th->window = htons(65535);
	memcpy(th + 1, payload, plen);
	th->check = csum_tcpudp_magic(iph->saddr, iph->daddr, tcplen,
				      IPPROTO_TCP, csum_partial(th, tcplen, 0));
	len = BENCH_HDR + plen;
	if (len < ETH_ZLEN) {
		memset(f + len, 0, ETH_ZLEN - len);
		len = ETH_ZLEN;
	}
	return len;
}

static void bench_free(struct bench *b)
{
	u32 r;

	if (b->rec)
		for (r = 0; r <= b->cfg.records; r++)
			kfree(b->rec[r]);
	kfree(b->rec);
	kfree(b->sg);
	kfree(b->iv);
	aead_request_free(b->req);
	if (!IS_ERR_OR_NULL(b->aead))
		crypto_free_aead(b->aead);
	hw_crypto_key_free(b->key);
	if (b->eng)
		hw_engine_fini(b->eng);
	kfree(b->eng_mem);
	kfree(b->out);
	kvfree(b->flen);
	for (r = 0; b->frames && r < b->nframes; r++)
		kfree(b->frames[r]);
	kvfree(b->frames);
	vfree(b->eng_view);
	vfree(b->plain);
	vfree(b->wire);
}

static int bench_setup(struct bench *b, char *msg, size_t msz)
{
	u32 nrec = b->cfg.records + 1, r, i, off, n;
	u64 prng = 0x9e3779b97f4a7c15ULL;
	size_t esz;
	int err;

	b->tuple.family = 4;
	b->tuple.saddr[0] = 10;		/* the sender, 10.77.0.1:443 */
	b->tuple.saddr[1] = 77;
	b->tuple.saddr[3] = 1;
	b->tuple.daddr[0] = 10;
	b->tuple.daddr[1] = 77;
	b->tuple.daddr[3] = 2;
	b->tuple.sport = 443;
	b->tuple.dport = 50000;

	b->aead = crypto_alloc_aead("gcm(aes)", 0, 0);
	if (IS_ERR(b->aead)) {
		scnprintf(msg, msz, "crypto_alloc_aead(gcm(aes)) failed");
		return PTR_ERR(b->aead);
	}
	err = crypto_aead_setkey(b->aead, bench_key, sizeof(bench_key)) ?:
	      crypto_aead_setauthsize(b->aead, HW_TLS_TAG);
	if (err) {
		scnprintf(msg, msz, "gcm(aes) setkey/setauthsize failed");
		return err;
	}
	b->req = aead_request_alloc(b->aead, GFP_KERNEL);
	b->iv = kmalloc(16, GFP_KERNEL);
	b->rec = kcalloc(nrec, sizeof(*b->rec), GFP_KERNEL);
	b->sg = kcalloc(nrec, sizeof(*b->sg), GFP_KERNEL);
	b->wire_len = bench_woff(b, nrec);
	b->wire = vzalloc(b->wire_len);
	b->plain = vzalloc(b->wire_len);
	b->eng_view = vzalloc(b->wire_len);
	b->fstride = ALIGN(BENCH_HDR + b->cfg.frame, 64);
	b->nframes = 1 + DIV_ROUND_UP(b->wire_len - b->cfg.frame, b->cfg.frame);
	b->frames = kvcalloc(b->nframes, sizeof(*b->frames), GFP_KERNEL);
	for (i = 0; b->frames && i < b->nframes; i++) {
		b->frames[i] = kmalloc(b->fstride, GFP_KERNEL);
		if (!b->frames[i])
			goto nomem;
	}
	b->flen = kvcalloc(b->nframes, sizeof(*b->flen), GFP_KERNEL);
	b->out = kmalloc(b->fstride, GFP_KERNEL);
	esz = hw_engine_mem_size(1);
	b->eng_mem = kzalloc(esz, GFP_KERNEL);
	if (!b->req || !b->iv || !b->rec || !b->sg || !b->wire || !b->plain ||
	    !b->eng_view || !b->frames || !b->flen || !b->out || !b->eng_mem)
		goto nomem;
	aead_request_set_callback(b->req, CRYPTO_TFM_REQ_MAY_BACKLOG |
				  CRYPTO_TFM_REQ_MAY_SLEEP, crypto_req_done,
				  &b->wait);
	for (r = 0; r < nrec; r++) {
		n = BENCH_AAD + bench_plen(b, r) + HW_TLS_TAG;
		b->rec[r] = kmalloc(n, GFP_KERNEL);
		if (!b->rec[r])
			goto nomem;
		sg_init_one(&b->sg[r], b->rec[r], n);
		err = bench_make_record(b, r, &prng);
		if (err) {
			scnprintf(msg, msz, "gcm(aes) encrypt failed");
			return err;
		}
		cond_resched();
	}
	for (i = 0, off = 0; i < b->nframes; i++, off += n) {
		n = min(b->cfg.frame, b->wire_len - off);
		b->flen[i] = bench_build_frame(b, bench_frame(b, i),
					       BENCH_ISN + off, b->wire + off, n);
	}
	b->eng = hw_engine_init(b->eng_mem, esz, 1);
	err = hw_crypto_key_new(bench_key, sizeof(bench_key), &b->key);
	if (!b->eng || err) {
		scnprintf(msg, msz, "engine init or key failed");
		return err ?: -EINVAL;
	}
	return 0;
nomem:
	scnprintf(msg, msz, "out of memory");
	return -ENOMEM;
}

/* One pass of the engine over frames 1..; verify: copy out and check. */
static int bench_engine_pass(struct bench *b, bool verify, u64 *ns,
			     char *msg, size_t msz)
{
	struct hw_flow_params fp = {};
	struct hw_key_reap reap = {};
	struct hw_rx_completion c;
	struct hw_flow_info info;
	u32 h, i, marked = 0;
	u64 t0;
	int err;

	fp.tuple = b->tuple;
	fp.start_seq = BENCH_ISN;
	fp.start_rn = 0;
	fp.start_synced = true;
	memcpy(fp.salt, bench_salt, sizeof(fp.salt));
	err = hw_crypto_key_new(bench_key, sizeof(bench_key), &fp.key);
	if (err) {
		scnprintf(msg, msz, "hw_crypto_key_new failed");
		return err;
	}
	err = hw_engine_flow_add(b->eng, &fp, &h);
	if (err) {
		hw_crypto_key_free(fp.key);
		scnprintf(msg, msz, "hw_engine_flow_add failed");
		return err;
	}
	/* record 0, authenticated only (SHADOW -> SYNC): not timed */
	hw_engine_rx(b->eng, bench_frame(b, 0), b->flen[0], b->out, &c);

	t0 = ktime_get_ns();
	for (i = 1; i < b->nframes; i++) {
		hw_engine_rx(b->eng, bench_frame(b, i), b->flen[i], b->out, &c);
		if (hw_rx_decrypted(&c)) {
			marked++;
			if (verify)
				memcpy(b->eng_view + (c.tcp_seq - BENCH_ISN),
				       b->out + c.payload_off, c.payload_len);
		}
		cond_resched();
	}
	*ns = ktime_get_ns() - t0;

	err = hw_engine_flow_info(b->eng, h, &info);
	hw_engine_flow_del(b->eng, h, &reap);
	hw_key_reap_free(&reap);
	if (err) {
		scnprintf(msg, msz, "hw_engine_flow_info failed");
		return err;
	}
	if (marked != b->nframes - 1 ||
	    info.stats.decrypted_records != b->cfg.records ||
	    info.stats.auth_fail || info.state != HW_FS_SYNC) {
		scnprintf(msg, msz,
			  "engine: %u of %u frames decrypted, %llu of %u records, auth_fail %llu, state %s",
			  marked, b->nframes - 1,
			  info.stats.decrypted_records, b->cfg.records,
			  info.stats.auth_fail, hw_flow_state_name(info.state));
		return -EIO;
	}
	return 0;
}

/* gcm(aes) over records 1..N, in place; verify: compare plaintexts. */
static int bench_aead_pass(struct bench *b, bool verify, u64 *ns,
			   char *msg, size_t msz)
{
	u32 r, off, plen = b->cfg.size;
	u64 t0;
	int err;

	for (r = 1; r <= b->cfg.records; r++)	/* restore the ciphertext */
		memcpy(b->rec[r] + BENCH_AAD,
		       b->wire + bench_woff(b, r) + HW_TLS_PREFIX,
		       plen + HW_TLS_TAG);
	t0 = ktime_get_ns();
	for (r = 1; r <= b->cfg.records; r++) {
		bench_aead_prep(b, r);
		err = crypto_wait_req(crypto_aead_decrypt(b->req), &b->wait);
		if (err) {
			scnprintf(msg, msz, "gcm(aes) decrypt of record %u: %d",
				  r, err);
			return err;
		}
		cond_resched();
	}
	*ns = ktime_get_ns() - t0;
	if (!verify)
		return 0;
	for (r = 1; r <= b->cfg.records; r++) {
		off = bench_woff(b, r) + HW_TLS_PREFIX;
		if (memcmp(b->rec[r] + BENCH_AAD, b->plain + off, plen)) {
			scnprintf(msg, msz,
				  "gcm(aes) plaintext of record %u differs from the original",
				  r);
			return -EIO;
		}
		if (memcmp(b->eng_view + off, b->rec[r] + BENCH_AAD, plen)) {
			scnprintf(msg, msz,
				  "engine plaintext of record %u differs from gcm(aes)'s",
				  r);
			return -EIO;
		}
	}
	return 0;
}

/* The engine's bare costs over the same bytes: CTR, GHASH, TCP checksum. */
static void bench_split_pass(struct bench *b, struct bench_times *t)
{
	u32 r, i, plen = b->cfg.size;
	u8 ctr[16], state[16];
	const u8 *ct;
	u64 t0;

	t0 = ktime_get_ns();
	for (r = 1; r <= b->cfg.records; r++) {
		ct = b->wire + bench_woff(b, r) + HW_TLS_PREFIX;
		memcpy(ctr, bench_salt, 4);
		memcpy(ctr + 4, ct - 8, 8);
		hw_put_be32(ctr + 12, 2);
		hw_crypto_ctr_xor(b->key, ctr, ct, b->rec[r] + BENCH_AAD, plen);
		cond_resched();
	}
	t->ctr = ktime_get_ns() - t0;

	t0 = ktime_get_ns();
	for (r = 1; r <= b->cfg.records; r++) {
		ct = b->wire + bench_woff(b, r) + HW_TLS_PREFIX;
		memset(state, 0, sizeof(state));
		hw_crypto_ghash(b->key, state, ct, plen / HW_AES_BLOCK);
		b->csum_sink += state[0];
		cond_resched();
	}
	t->ghash = ktime_get_ns() - t0;

	t0 = ktime_get_ns();
	for (i = 1; i < b->nframes; i++) {
		u8 *th = bench_frame(b, i) + ETH_HLEN + sizeof(struct iphdr);

		b->csum_sink += (__force u32)csum_partial(th,
				b->flen[i] - ETH_HLEN - sizeof(struct iphdr), 0);
		cond_resched();
	}
	t->csum = ktime_get_ns() - t0;
}

static void bench_min(u64 *best, u64 v)
{
	if (!*best || v < *best)
		*best = v;
}

/* "x.yyy": ns * 1000 / bytes, three decimals */
static int bench_nspb(char *s, size_t n, u64 ns, u64 bytes)
{
	u64 v = div64_u64(ns * 1000, bytes);

	return scnprintf(s, n, "%llu.%03llu", div_u64(v, 1000),
			 v - div_u64(v, 1000) * 1000);
}

static int bench_run(const struct bench_cfg *cfg, char *out, size_t osz)
{
	struct bench_times best = {}, t;
	struct hw_crypto_key_mem km;
	u64 bytes = (u64)cfg->records * cfg->size, ratio;
	char a[24], e[24], c1[24], c2[24], c3[24], rest[24];
	struct bench *b;
	char msg[160] = "";
	unsigned int rep;
	int err, len;
	u64 r_ns;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->cfg = *cfg;
	err = bench_setup(b, msg, sizeof(msg));
	if (err)
		goto out;
	/* untimed verification pass (also warms the caches) */
	err = bench_engine_pass(b, true, &t.engine, msg, sizeof(msg)) ?:
	      bench_aead_pass(b, true, &t.aead, msg, sizeof(msg));
	if (err)
		goto out;
	for (rep = 0; rep < cfg->reps; rep++) {
		err = bench_engine_pass(b, false, &t.engine, msg, sizeof(msg)) ?:
		      bench_aead_pass(b, false, &t.aead, msg, sizeof(msg));
		if (err)
			goto out;
		bench_split_pass(b, &t);
		bench_min(&best.engine, t.engine);
		bench_min(&best.aead, t.aead);
		bench_min(&best.ctr, t.ctr);
		bench_min(&best.ghash, t.ghash);
		bench_min(&best.csum, t.csum);
	}
	r_ns = best.ctr + best.ghash + best.csum;
	r_ns = best.engine > r_ns ? best.engine - r_ns : 0;
	bench_nspb(e, sizeof(e), best.engine, bytes);
	bench_nspb(a, sizeof(a), best.aead, bytes);
	bench_nspb(c1, sizeof(c1), best.ctr, bytes);
	bench_nspb(c2, sizeof(c2), best.ghash, bytes);
	bench_nspb(c3, sizeof(c3), best.csum, bytes);
	bench_nspb(rest, sizeof(rest), r_ns, bytes);
	ratio = div64_u64(best.engine * 100, max_t(u64, best.aead, 1));
	len = scnprintf(out, osz,
			"bench records=%u size=%u frame=%u reps=%u: %u frames, %llu plaintext bytes timed (records 1..%u)\n",
			cfg->records, cfg->size, cfg->frame, cfg->reps,
			b->nframes - 1, bytes, cfg->records);
	len += scnprintf(out + len, osz - len,
			 "verify: ok (engine marked every frame; engine plaintext == gcm(aes) plaintext == original)\n");
	hw_crypto_key_mem(b->key, &km);
	len += scnprintf(out + len, osz - len,
			 "gcm(aes) driver: %s; engine backend: cipher %s, bulk CTR %s, shash %s (GHASH)\n",
			 crypto_aead_driver_name(b->aead), km.cipher_driver,
			 km.ctr_driver, km.ghash_driver);
	len += scnprintf(out + len, osz - len,
			 "engine:   %s ns/B (best %llu ns)\n", e, best.engine);
	len += scnprintf(out + len, osz - len,
			 "gcm(aes): %s ns/B (best %llu ns)\n", a, best.aead);
	len += scnprintf(out + len, osz - len,
			 "ratio engine/gcm(aes): %llu.%02llu\n",
			 div_u64(ratio, 100), ratio - div_u64(ratio, 100) * 100);
	len += scnprintf(out + len, osz - len,
			 "engine split, bare over the same bytes: ctr %s ns/B, ghash %s ns/B, tcp csum %s ns/B, rest (parse, record tracking, calls, copies) %s ns/B\n",
			 c1, c2, c3, rest);
out:
	if (err)
		scnprintf(out, osz, "bench records=%u size=%u frame=%u reps=%u: error %d: %s\n",
			  cfg->records, cfg->size, cfg->frame, cfg->reps, err,
			  msg);
	bench_free(b);
	kfree(b);
	return err;
}

static int bench_parse(char *buf, struct bench_cfg *c)
{
	unsigned int *p;
	char *tok, *val;
	int err;

	c->records = 64;
	c->size = HW_TLS_MAX_PLAIN;
	c->frame = 1448;
	c->reps = 3;
	while ((tok = strsep(&buf, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "records"))
			p = &c->records;
		else if (!strcmp(tok, "size"))
			p = &c->size;
		else if (!strcmp(tok, "frame"))
			p = &c->frame;
		else if (!strcmp(tok, "reps"))
			p = &c->reps;
		else
			return -EINVAL;
		err = kstrtouint(val, 0, p);
		if (err)
			return err;
	}
	if (!c->records || c->records > BENCH_MAX_RECORDS ||
	    c->size < HW_AES_BLOCK || c->size > HW_TLS_MAX_PLAIN ||
	    (u64)c->records * c->size > BENCH_MAX_BYTES ||
	    c->frame < BENCH_MIN_FRAME || c->frame > BENCH_MAX_FRAME ||
	    !c->reps || c->reps > BENCH_MAX_REPS)
		return -EINVAL;
	return 0;
}

static ssize_t bench_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	struct bench_cfg cfg;
	char buf[128];
	int err;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	err = bench_parse(buf, &cfg);
	if (err)
		return err;
	err = mutex_lock_interruptible(&bench_lock);
	if (err)
		return err;
	err = bench_run(&cfg, bench_result, sizeof(bench_result));
	mutex_unlock(&bench_lock);
	return err ? err : count;
}

static void bench_show_mem(struct seq_file *m)
{
	struct hw_crypto_key_mem km;
	struct hw_crypto_key *k;
	struct innova_tls_mem dm;
	size_t slot, parts, kslab;

	innova_tls_mem(&dm);
	slot = dm.max_flows ? dm.engine / dm.max_flows : 0;
	seq_printf(m, "mem engine: struct hw_flow %zu B (record %zu, gcm %zu, chain %zu, reorder %zu, keys %zu, stats %zu, rest %zu)\n",
		   sizeof(struct hw_flow), sizeof(struct hw_record),
		   sizeof(struct hw_gcm_stream), sizeof(struct hw_chain),
		   sizeof(struct hw_reorder), sizeof(struct hw_flow_keys),
		   sizeof_field(struct hw_flow, st),
		   sizeof(struct hw_flow) - sizeof(struct hw_record) -
		   sizeof(struct hw_gcm_stream) - sizeof(struct hw_chain) -
		   sizeof(struct hw_reorder) - sizeof(struct hw_flow_keys) -
		   sizeof_field(struct hw_flow, st));
	seq_printf(m, "mem engine: %zu B per flow slot with its hash buckets (hw_engine_mem_size(%u) = %zu B per port, preallocated, max_flows=%u)\n",
		   slot, dm.max_flows, dm.engine, dm.max_flows);
	seq_printf(m, "mem driver: struct innova_tls_flow %zu B (kmalloc %zu); per port: struct innova_tls_port %zu B, scratch %zu B\n",
		   dm.flow, dm.flow_slab, dm.port, dm.scratch);
	if (hw_crypto_key_new(bench_key, sizeof(bench_key), &k)) {
		seq_puts(m, "mem key: hw_crypto_key_new failed\n");
		return;
	}
	hw_crypto_key_mem(k, &km);
	hw_crypto_key_free(k);
	parts = km.key + km.ghash + km.cipher + km.ctr;
	kslab = km.key_slab + km.ghash_slab + km.cipher_slab + km.ctr_slab;
	seq_printf(m, "mem key: struct hw_crypto_key %zu B (kmalloc %zu) + ghash tfm %s %zu B (kmalloc %zu; GHASH key %zu B) + cipher tfm %s %zu B (kmalloc %zu; AES key schedule %zu B) + bulk CTR tfm %s %zu B (kmalloc %zu) = %zu B (kmalloc %zu)\n",
		   km.key, km.key_slab, km.ghash_driver, km.ghash,
		   km.ghash_slab, km.ghash_key, km.cipher_driver, km.cipher,
		   km.cipher_slab, km.aes_key, km.ctr_driver, km.ctr,
		   km.ctr_slab, parts, kslab);
	seq_printf(m, "mem per installed flow (one key; two during a key update): %zu B asked, %zu B in kmalloc buckets, + the engine slot %zu B preallocated\n",
		   parts + dm.flow, kslab + dm.flow_slab, slot);
}

static int bench_show(struct seq_file *m, void *v)
{
	int err = mutex_lock_interruptible(&bench_lock);

	if (err)
		return err;
	if (bench_result[0])
		seq_puts(m, bench_result);
	else
		seq_puts(m, "no bench run yet: echo \"records=64 size=16384 frame=1448 reps=3\" > bench\n");
	mutex_unlock(&bench_lock);
	bench_show_mem(m);
	return 0;
}

static int bench_open(struct inode *inode, struct file *file)
{
	return single_open(file, bench_show, inode->i_private);
}

static const struct file_operations bench_fops = {
	.owner		= THIS_MODULE,
	.open		= bench_open,
	.read		= seq_read,
	.write		= bench_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

void innova_bench_debugfs_add(struct dentry *root)
{
	debugfs_create_file("bench", 0600, root, NULL, &bench_fops);
}
