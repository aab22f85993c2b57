// SPDX-License-Identifier: GPL-2.0
/*
 * Innova hardware model: kernel crypto backend (Linux 6.1).
 *
 *   single blocks (H, E_K(J0), partial CTR blocks): lib/crypto aes_encrypt()
 *   CTR keystream:  synchronous "ctr(aes)" skcipher (AES-NI when usable)
 *   GHASH:          gf128mul 4k table with an explicit 16-byte state -- the
 *                   same arithmetic as the "ghash-generic" shash, but the
 *                   shash keeps its accumulator inside a private desc layout
 *                   and the engine needs the state per record, across frames.
 *
 * hw_crypto_key_new()/hw_crypto_key_free(): process context (GFP_KERNEL).
 * Everything else: any context including softirq; no sleeping, no
 * allocation (the skcipher request lives on the stack).
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/scatterlist.h>
#include <crypto/aes.h>
#include <crypto/gf128mul.h>
#include <crypto/skcipher.h>
#include <innova/hw_crypto.h>

struct hw_crypto_key {
	struct crypto_aes_ctx aes;
	struct crypto_sync_skcipher *ctr;
	struct gf128mul_4k *ghash;
};

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
	err = aes_expandkey(&k->aes, key, keylen);
	if (err)
		goto fail;
	k->ctr = crypto_alloc_sync_skcipher("ctr(aes)", 0, 0);
	if (IS_ERR(k->ctr)) {
		err = PTR_ERR(k->ctr);
		k->ctr = NULL;
		goto fail;
	}
	err = crypto_sync_skcipher_setkey(k->ctr, key, keylen);
	if (err)
		goto fail;
	aes_encrypt(&k->aes, (u8 *)&h, zero);
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
	if (k->ctr)
		crypto_free_sync_skcipher(k->ctr);
	if (k->ghash)
		gf128mul_free_4k(k->ghash);	/* kfree_sensitive */
	kfree_sensitive(k);			/* zeroizes the AES schedule */
}

void hw_crypto_aes_block(struct hw_crypto_key *k, const u8 in[HW_AES_BLOCK],
			 u8 out[HW_AES_BLOCK])
{
	aes_encrypt(&k->aes, out, in);
}

void hw_crypto_ctr_xor(struct hw_crypto_key *k, const u8 ctr[HW_AES_BLOCK],
		       const u8 *in, u8 *out, unsigned int len)
{
	SYNC_SKCIPHER_REQUEST_ON_STACK(req, k->ctr);
	struct scatterlist sin, sout;
	u8 iv[HW_AES_BLOCK];
	int err;

	memcpy(iv, ctr, sizeof(iv));
	sg_init_one(&sin, in, len);
	sg_init_one(&sout, out, len);
	skcipher_request_set_sync_tfm(req, k->ctr);
	skcipher_request_set_callback(req, 0, NULL, NULL);
	skcipher_request_set_crypt(req, &sin, &sout, len, iv);
	err = crypto_skcipher_encrypt(req);
	skcipher_request_zero(req);
	/* a sync ctr(aes) cannot fail on valid lengths; never mark garbage */
	WARN_ON_ONCE(err);
}

void hw_crypto_ghash(struct hw_crypto_key *k, u8 state[HW_AES_BLOCK],
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
}

/* GHASH first: with in == out the CTR pass overwrites the ciphertext. */
void hw_crypto_ctr_xor_ghash(struct hw_crypto_key *k,
			     const u8 ctr[HW_AES_BLOCK], const u8 *in, u8 *out,
			     unsigned int nblocks, u8 state[HW_AES_BLOCK])
{
	hw_crypto_ghash(k, state, in, nblocks);
	hw_crypto_ctr_xor(k, ctr, in, out, nblocks * HW_AES_BLOCK);
}
