// SPDX-License-Identifier: GPL-2.0
/*
 * Innova hardware model: kernel crypto backend.
 *
 *   AES blocks:  the single-block "aes" cipher (aes-aesni where the CPU has
 *                AES-NI, else the generic one), for E_K(J0), the partial
 *                CTR blocks and, block by block with crypto_xor_cpy(), the
 *                CTR keystream of whole blocks
 *   GHASH:       gf128mul 4k table with an explicit 16-byte state -- the
 *                same arithmetic as the "ghash-generic" shash, but the
 *                shash keeps its accumulator inside a private desc layout
 *                and the engine needs the state per record, across frames.
 *
 * Why not the "ctr(aes)" skcipher: its scatterlist walk allocates a bounce
 * buffer (GFP_ATOMIC) whenever a 16-byte block straddles a page boundary
 * of the frame buffers, so it can fail in NAPI. The sync ctr(aes) instance
 * is the ctr template over this same single-block cipher, so calling the
 * cipher directly costs the same per block without the walk, and nothing
 * here allocates or can fail once the key exists.
 *
 * hw_crypto_key_new()/hw_crypto_key_free(): process context (GFP_KERNEL).
 * Everything else: any context including softirq; no sleeping, no
 * allocation.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <crypto/aes.h>
#include <crypto/algapi.h>
#include <crypto/gf128mul.h>
#include <crypto/internal/cipher.h>
#include <innova/hw_crypto.h>

#include "compat.h"	/* unaligned accessors */

/* crypto_cipher is exported for in-kernel template users only */
MODULE_IMPORT_NS(CRYPTO_INTERNAL);

struct hw_crypto_key {
	struct crypto_cipher *aes;
	struct gf128mul_4k *ghash;
};

static atomic_t hw_crypto_nkeys = ATOMIC_INIT(0);

unsigned int hw_crypto_key_count(void)
{
	return atomic_read(&hw_crypto_nkeys);
}

int hw_crypto_key_new(const u8 *key, unsigned int keylen,
		      struct hw_crypto_key **out)
{
	static const u8 zero[HW_AES_BLOCK];
	struct hw_crypto_key *k;
	be128 h;
	int err;

	if (keylen != AES_KEYSIZE_128 && keylen != AES_KEYSIZE_256)
		return -EINVAL;
	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return -ENOMEM;
	atomic_inc(&hw_crypto_nkeys);	/* hw_crypto_key_free() takes it back */
	k->aes = crypto_alloc_cipher("aes", 0, 0);
	if (IS_ERR(k->aes)) {
		err = PTR_ERR(k->aes);
		k->aes = NULL;
		goto fail;
	}
	err = crypto_cipher_setkey(k->aes, key, keylen);
	if (err)
		goto fail;
	crypto_cipher_encrypt_one(k->aes, (u8 *)&h, zero);
	k->ghash = gf128mul_init_4k_lle(&h);
	memzero_explicit(&h, sizeof(h));
	if (!k->ghash) {
		err = -ENOMEM;
		goto fail;
	}
	*out = k;
	return 0;
fail:
	hw_crypto_key_free(k);
	return err;
}

void hw_crypto_key_free(struct hw_crypto_key *k)
{
	if (!k)
		return;
	atomic_dec(&hw_crypto_nkeys);
	crypto_free_cipher(k->aes);		/* zeroizes its key schedule */
	if (k->ghash)
		gf128mul_free_4k(k->ghash);	/* kfree_sensitive */
	kfree_sensitive(k);
}

int hw_crypto_aes_block(struct hw_crypto_key *k, const u8 in[HW_AES_BLOCK],
			u8 out[HW_AES_BLOCK])
{
	crypto_cipher_encrypt_one(k->aes, out, in);
	return 0;
}

int hw_crypto_ctr_xor(struct hw_crypto_key *k, const u8 ctr[HW_AES_BLOCK],
		      const u8 *in, u8 *out, unsigned int len)
{
	u8 cb[HW_AES_BLOCK], ks[HW_AES_BLOCK];
	u32 c = get_unaligned_be32(ctr + 12);
	unsigned int n;

	memcpy(cb, ctr, 12);
	while (len) {
		put_unaligned_be32(c++, cb + 12);
		crypto_cipher_encrypt_one(k->aes, ks, cb);
		n = min_t(unsigned int, len, HW_AES_BLOCK);
		crypto_xor_cpy(out, in, ks, n);
		in += n;
		out += n;
		len -= n;
	}
	memzero_explicit(ks, sizeof(ks));
	memzero_explicit(cb, sizeof(cb));
	return 0;
}

int hw_crypto_ghash(struct hw_crypto_key *k, u8 state[HW_AES_BLOCK],
		    const u8 *data, unsigned int nblocks)
{
	be128 acc, x;

	memcpy(&acc, state, sizeof(acc));
	while (nblocks--) {
		memcpy(&x, data, sizeof(x));
		be128_xor(&acc, &acc, &x);
		gf128mul_4k_lle(&acc, k->ghash);
		data += HW_AES_BLOCK;
	}
	memcpy(state, &acc, sizeof(acc));
	memzero_explicit(&x, sizeof(x));
	memzero_explicit(&acc, sizeof(acc));
	return 0;
}

/* GHASH first: with in == out the CTR pass overwrites the ciphertext. */
int hw_crypto_ctr_xor_ghash(struct hw_crypto_key *k,
			    const u8 ctr[HW_AES_BLOCK], const u8 *in, u8 *out,
			    unsigned int nblocks, u8 state[HW_AES_BLOCK])
{
	int err = hw_crypto_ghash(k, state, in, nblocks);

	return err ? err : hw_crypto_ctr_xor(k, ctr, in, out,
					     nblocks * HW_AES_BLOCK);
}

void hw_crypto_key_mem(struct hw_crypto_key *k, struct hw_crypto_key_mem *m)
{
	struct crypto_tfm *tfm = crypto_cipher_tfm(k->aes);

	m->key = sizeof(*k);
	m->ghash = sizeof(*k->ghash);
	/* what the crypto API allocates for a cipher tfm (crypto_ctxsize) */
	m->cipher = sizeof(*tfm) + tfm->__crt_alg->cra_ctxsize +
		    (crypto_tfm_alg_alignmask(tfm) &
		     ~(crypto_tfm_ctx_alignment() - 1));
	m->key_slab = kmalloc_size_roundup(m->key);
	m->ghash_slab = kmalloc_size_roundup(m->ghash);
	m->cipher_slab = kmalloc_size_roundup(m->cipher);
	m->cipher_driver = crypto_tfm_alg_driver_name(tfm);
}
