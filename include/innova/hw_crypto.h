/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Innova hardware model: crypto backend interface.
 *
 * One opaque key object per (flow, key epoch).  The engine does all GCM
 * framing itself (J0, counters, sub-block offsets, GHASH padding and length
 * block, tag compare); the backend only supplies these primitives.
 *
 * Backends: module/hw/crypto_kernel.c (Linux crypto API) and
 * tests/host/crypto_openssl.c (OpenSSL libcrypto).
 *
 * Every data call returns 0 or a negative errno.  On an error the output
 * and the GHASH state are undefined: the engine then marks nothing that
 * went through the failed call and stops decrypting the flow until resync.
 *
 * Context rules (kernel):
 *   hw_crypto_key_new()   process context, may sleep (allocates).
 *   hw_crypto_key_free()  process context (the engine never calls it; keys
 *                         retired by the engine are handed back to the
 *                         caller in a struct hw_key_reap).
 *   all others            any context incl. softirq/NAPI, never sleep,
 *                         never allocate.
 */
#ifndef INNOVA_HW_CRYPTO_H
#define INNOVA_HW_CRYPTO_H

#include <innova/hw_port.h>

#define HW_AES_BLOCK	16

struct hw_crypto_key;

/*
 * Expand an AES-128/256 key (keylen 16 or 32) and precompute the GHASH key
 * H = AES_K(0^128).  Returns 0 and sets *out, or -EINVAL (bad length) /
 * -ENOMEM.  The caller's key bytes are not retained.
 */
int hw_crypto_key_new(const u8 *key, unsigned int keylen,
		      struct hw_crypto_key **out);

/* Zeroize and free.  NULL is accepted. */
void hw_crypto_key_free(struct hw_crypto_key *k);

/* Keys alive (created and not yet freed): leak accounting. */
unsigned int hw_crypto_key_count(void);

/* out = AES_K(in), one block (used for E_K(J0) and partial CTR blocks). */
int hw_crypto_aes_block(struct hw_crypto_key *k, const u8 in[HW_AES_BLOCK],
			u8 out[HW_AES_BLOCK]);

/*
 * out[i] = in[i] ^ keystream, keystream starting at counter block ctr
 * (16 bytes, last 4 bytes a big-endian 32-bit counter that the backend
 * increments; the engine guarantees it does not wrap).  len may be any
 * value; in and out may alias exactly; both point into frame buffers
 * (never the stack).
 */
int hw_crypto_ctr_xor(struct hw_crypto_key *k, const u8 ctr[HW_AES_BLOCK],
		      const u8 *in, u8 *out, unsigned int len);

/*
 * GHASH_H over nblocks whole 16-byte blocks: for each block X,
 * state = (state ^ X) * H.  state is the 16-byte GHASH accumulator in
 * GCM's byte order.
 */
int hw_crypto_ghash(struct hw_crypto_key *k, u8 state[HW_AES_BLOCK],
		    const u8 *data, unsigned int nblocks);

/*
 * Decryption's inner loop in one pass ("stitched" AES-GCM): GHASH the
 * nblocks whole ciphertext blocks at in into state, and write
 * in ^ keystream (counter block ctr, as hw_crypto_ctr_xor()) to out.
 * Same result as hw_crypto_ghash() over in followed by
 * hw_crypto_ctr_xor(); in and out may alias exactly.
 */
int hw_crypto_ctr_xor_ghash(struct hw_crypto_key *k,
			    const u8 ctr[HW_AES_BLOCK], const u8 *in, u8 *out,
			    unsigned int nblocks, u8 state[HW_AES_BLOCK]);

#ifdef __KERNEL__
/*
 * Kernel backend only, for measurement (module/bench.c): what one key
 * holds.  Sizes are the bytes asked for and, in *_slab, the kmalloc
 * buckets they land in.
 */
struct hw_crypto_key_mem {
	size_t key, key_slab;		/* struct hw_crypto_key */
	size_t ghash, ghash_slab;	/* the GHASH shash tfm with its key */
	size_t cipher, cipher_slab;	/* the cipher tfm with its context */
	size_t ctr, ctr_slab;		/* the bulk CTR skcipher, or 0 */
	size_t ghash_key;		/* of which the GHASH key (context) */
	size_t aes_key;			/* and the AES key schedule */
	const char *cipher_driver;	/* e.g. "aes-aesni" */
	const char *ghash_driver;	/* e.g. "__ghash-pclmulqdqni" */
	const char *ctr_driver;		/* "__ctr-aes-aesni" or "none" */
};

void hw_crypto_key_mem(struct hw_crypto_key *k, struct hw_crypto_key_mem *m);

/* Bytes in kmalloc buckets held by all keys alive (module accounting). */
unsigned long hw_crypto_key_bytes(void);
#endif

#endif /* INNOVA_HW_CRYPTO_H */
