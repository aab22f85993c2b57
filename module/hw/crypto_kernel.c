// SPDX-License-Identifier: GPL-2.0
/*
 * Innova hardware model: kernel crypto backend.
 *
 *   AES blocks:  the single-block "aes" cipher (aes-aesni where the CPU has
 *                AES-NI, else the generic one), for E_K(J0), the partial
 *                CTR blocks and, without AES-NI, block by block with
 *                crypto_xor_cpy(), the CTR keystream of whole blocks.
 *   Bulk CTR:    with AES-NI, whole blocks go through the "__ctr-aes-aesni"
 *                skcipher, many per FPU section (the cipher pays one per
 *                block), in requests that never cross a page of the frame
 *                buffers: its scatterlist walk then maps each in one step
 *                and never needs its bounce buffer, a GFP_ATOMIC allocation
 *                that could fail in NAPI. Blocks across a page end, frames
 *                outside the linear map and no-SIMD contexts take the
 *                cipher. This costs a second copy of the AES key schedule
 *                per key (module parameter bulk_ctr=0: one copy, slower).
 *   GHASH:       the PCLMULQDQ "__ghash-pclmulqdqni" shash where the CPU
 *                has it (16 bytes of key per flow), else the crypto API's
 *                "ghash" shash (ghash-generic, a 4 KiB table per key).
 *                The engine keeps the GHASH state per record across frames
 *                while a shash keeps it in its descriptor, so each call
 *                starts a fresh descriptor and XORs the state into the
 *                first block: GHASH continued from S over X1..Xn equals
 *                GHASH from zero over (X1 ^ S), X2..Xn. Only init, update
 *                and final are used, never the descriptor's layout.
 *                Where SIMD may not be used (a softirq that interrupted a
 *                kernel FPU section) the same product is computed with
 *                gf128mul_lle(): slow, table-less and never failing.
 *
 * hw_crypto_key_new()/hw_crypto_key_free(): process context (GFP_KERNEL).
 * Everything else: any context including softirq; no sleeping, no
 * allocation.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <asm/simd.h>
#include <crypto/aes.h>
#include <crypto/algapi.h>
#include <crypto/gf128mul.h>
#include <crypto/hash.h>
#include <crypto/internal/cipher.h>
#include <crypto/internal/simd.h>
#include <crypto/skcipher.h>
#include <linux/scatterlist.h>
#include <innova/hw_crypto.h>

#include "compat.h"	/* unaligned accessors */

/* crypto_cipher is exported for in-kernel template users only */
MODULE_IMPORT_NS(CRYPTO_INTERNAL);

struct hw_crypto_key {
	struct crypto_cipher *aes;
	struct crypto_sync_skcipher *ctr;	/* bulk CTR, or NULL */
	struct crypto_shash *ghash;
	bool ghash_simd;	/* ghash needs crypto_simd_usable() */
	unsigned long mem;	/* counted in hw_crypto_key_bytes() */
	be128 h;		/* GHASH key, for the no-SIMD path */
};

/*
 * The x86 AES-NI CTR: many blocks per FPU section (the "aes" cipher pays
 * one per block). Internal (no cryptd): callers check SIMD first.
 */
#define HW_CTR_AESNI	"__ctr-aes-aesni"

/* The x86 PCLMULQDQ GHASH: internal (no cryptd), so callers check SIMD. */
#define HW_GHASH_CLMUL	"__ghash-pclmulqdqni"

static struct crypto_shash *hw_ghash_alloc(bool *simd)
{
	static bool loaded;
	struct crypto_shash *t;

	t = crypto_alloc_shash(HW_GHASH_CLMUL, CRYPTO_ALG_INTERNAL,
			       CRYPTO_ALG_INTERNAL);
	if (PTR_ERR_OR_ZERO(t) == -ENOENT && !READ_ONCE(loaded)) {
		/*
		 * Its module (ghash-clmulni-intel) is found by the public
		 * name only; it refuses to load on CPUs without PCLMULQDQ.
		 */
		WRITE_ONCE(loaded, true);
		request_module("crypto-ghash");
		t = crypto_alloc_shash(HW_GHASH_CLMUL, CRYPTO_ALG_INTERNAL,
				       CRYPTO_ALG_INTERNAL);
	}
	if (!IS_ERR(t)) {
		*simd = true;
		return t;
	}
	*simd = false;
	return crypto_alloc_shash("ghash", 0, 0);
}

static atomic_t hw_crypto_nkeys = ATOMIC_INIT(0);
static atomic_long_t hw_crypto_nbytes = ATOMIC_LONG_INIT(0);

/* Counts what a finished key holds; hw_crypto_key_free() takes it back. */
static void hw_crypto_key_account(struct hw_crypto_key *k)
{
	struct hw_crypto_key_mem m;

	hw_crypto_key_mem(k, &m);
	k->mem = m.key_slab + m.ghash_slab + m.cipher_slab + m.ctr_slab;
	atomic_long_add(k->mem, &hw_crypto_nbytes);
}

unsigned long hw_crypto_key_bytes(void)
{
	return atomic_long_read(&hw_crypto_nbytes);
}

unsigned int hw_crypto_key_count(void)
{
	return atomic_read(&hw_crypto_nkeys);
}

/* state = GHASH continued over nblocks, bit by bit with h: no SIMD, no table */
static void hw_ghash_soft(struct hw_crypto_key *k, u8 state[HW_AES_BLOCK],
			  const u8 *data, unsigned int nblocks)
{
	be128 acc, x;

	memcpy(&acc, state, sizeof(acc));
	while (nblocks--) {
		memcpy(&x, data, sizeof(x));
		be128_xor(&acc, &acc, &x);
		gf128mul_lle(&acc, &k->h);
		data += HW_AES_BLOCK;
	}
	memcpy(state, &acc, sizeof(acc));
	memzero_explicit(&x, sizeof(x));
	memzero_explicit(&acc, sizeof(acc));
}

/* The same through the shash: a fresh descriptor, state folded into X1. */
static int hw_ghash_shash(struct hw_crypto_key *k, u8 state[HW_AES_BLOCK],
			  const u8 *data, unsigned int nblocks)
{
	SHASH_DESC_ON_STACK(desc, k->ghash);
	u8 first[HW_AES_BLOCK];
	int err;

	desc->tfm = k->ghash;
	crypto_xor_cpy(first, data, state, HW_AES_BLOCK);
	err = crypto_shash_init(desc);
	if (!err)
		err = crypto_shash_update(desc, first, HW_AES_BLOCK);
	if (!err && nblocks > 1)
		err = crypto_shash_update(desc, data + HW_AES_BLOCK,
					  (nblocks - 1) * HW_AES_BLOCK);
	if (!err)
		err = crypto_shash_final(desc, state);
	shash_desc_zero(desc);
	memzero_explicit(first, sizeof(first));
	return err;
}

static bool hw_bulk_ctr = true;
module_param_named(bulk_ctr, hw_bulk_ctr, bool, 0644);
MODULE_PARM_DESC(bulk_ctr, "AES-NI: CTR of whole blocks many at a time (keys made from now on)");

/*
 * len (whole blocks) of CTR through the skcipher; cb is advanced past
 * them. in and out lie within one page each, so the skcipher's walk maps
 * each in one step and never needs its bounce buffer (an allocation).
 */
static int hw_ctr_bulk(struct hw_crypto_key *k, u8 cb[HW_AES_BLOCK],
		       const u8 *in, u8 *out, unsigned int len)
{
	SYNC_SKCIPHER_REQUEST_ON_STACK(req, k->ctr);
	struct scatterlist si, so;
	int err;

	sg_init_one(&si, in, len);
	sg_init_one(&so, out, len);
	skcipher_request_set_sync_tfm(req, k->ctr);
	skcipher_request_set_callback(req, 0, NULL, NULL);
	skcipher_request_set_crypt(req, &si, in == out ? &si : &so, len, cb);
	err = crypto_skcipher_encrypt(req);
	skcipher_request_zero(req);
	return err;
}

/* one block (or the tail) of CTR through the single-block cipher */
static void hw_ctr_one(struct hw_crypto_key *k, u8 cb[HW_AES_BLOCK],
		       const u8 *in, u8 *out, unsigned int n)
{
	u8 ks[HW_AES_BLOCK];

	crypto_cipher_encrypt_one(k->aes, ks, cb);
	crypto_xor_cpy(out, in, ks, n);
	put_unaligned_be32(get_unaligned_be32(cb + 12) + 1, cb + 12);
	memzero_explicit(ks, sizeof(ks));
}

static int hw_ctr(struct hw_crypto_key *k, const u8 ctr[HW_AES_BLOCK],
		  const u8 *in, u8 *out, unsigned int len)
{
	bool bulk = k->ctr && crypto_simd_usable() && virt_addr_valid(in) &&
		    virt_addr_valid(out);
	u8 cb[HW_AES_BLOCK];
	unsigned int n;
	int err = 0;

	memcpy(cb, ctr, HW_AES_BLOCK);
	while (len && !err) {
		n = 0;
		if (bulk) {
			n = min3(len, (unsigned int)(PAGE_SIZE - offset_in_page(in)),
				 (unsigned int)(PAGE_SIZE - offset_in_page(out)));
			n &= ~(HW_AES_BLOCK - 1);
		}
		if (n) {
			err = hw_ctr_bulk(k, cb, in, out, n);
		} else {
			/* a block across a page end, the tail, or no bulk */
			n = min_t(unsigned int, len, HW_AES_BLOCK);
			hw_ctr_one(k, cb, in, out, n);
		}
		in += n;
		out += n;
		len -= n;
	}
	memzero_explicit(cb, sizeof(cb));
	return err;
}

/*
 * Make the bulk CTR and check it against the single-block cipher over
 * three blocks and the counter it leaves: any disagreement refuses the
 * key at setup. Its buffer is heap memory: scatterlists need it.
 */
static int hw_ctr_new(struct hw_crypto_key *k, const u8 *key,
		      unsigned int keylen)
{
	struct crypto_sync_skcipher *t;
	u8 *buf, cb1[HW_AES_BLOCK], cb2[HW_AES_BLOCK];
	unsigned int i;
	int err;

	t = crypto_alloc_sync_skcipher(HW_CTR_AESNI, CRYPTO_ALG_INTERNAL,
				       CRYPTO_ALG_INTERNAL);
	if (IS_ERR(t))
		return 0;	/* per block, as without AES-NI */
	err = crypto_sync_skcipher_setkey(t, key, keylen);
	if (err) {
		crypto_free_sync_skcipher(t);
		return err;
	}
	if (!crypto_simd_usable()) {
		crypto_free_sync_skcipher(t);
		return 0;
	}
	buf = kmalloc(6 * HW_AES_BLOCK, GFP_KERNEL);
	if (!buf) {
		crypto_free_sync_skcipher(t);
		return -ENOMEM;
	}
	for (i = 0; i < 3 * HW_AES_BLOCK; i++)
		buf[i] = (u8)(i * 13 + 5);
	memcpy(buf + 3 * HW_AES_BLOCK, buf, 3 * HW_AES_BLOCK);
	for (i = 0; i < HW_AES_BLOCK; i++)
		cb1[i] = (u8)(0x3c ^ i);
	put_unaligned_be32(0xfffffff0u, cb1 + 12);
	memcpy(cb2, cb1, sizeof(cb1));
	for (i = 0; i < 3; i++)
		hw_ctr_one(k, cb1, buf + i * HW_AES_BLOCK,
			   buf + i * HW_AES_BLOCK, HW_AES_BLOCK);
	k->ctr = t;
	err = hw_ctr_bulk(k, cb2, buf + 3 * HW_AES_BLOCK,
			  buf + 3 * HW_AES_BLOCK, 3 * HW_AES_BLOCK);
	if (!err && (crypto_memneq(buf, buf + 3 * HW_AES_BLOCK,
				   3 * HW_AES_BLOCK) ||
		     crypto_memneq(cb1, cb2, sizeof(cb1))))
		err = -EINVAL;
	if (err)
		pr_warn_once("innova: CTR %s disagrees with the cipher (%d): key refused\n",
			     HW_CTR_AESNI, err);
	kfree_sensitive(buf);
	memzero_explicit(cb1, sizeof(cb1));
	memzero_explicit(cb2, sizeof(cb2));
	return err;
}

/*
 * Both GHASH paths over the same non-zero state and three blocks must
 * agree, or the key is refused: a shash whose semantics differ from the
 * engine's (the state folded into the first block) fails here, at setup,
 * never on the wire.
 */
static int hw_ghash_selftest(struct hw_crypto_key *k)
{
	u8 a[HW_AES_BLOCK], b[HW_AES_BLOCK], data[3 * HW_AES_BLOCK];
	unsigned int i;
	int err;

	if (k->ghash_simd && !crypto_simd_usable())
		return 0;	/* only the soft path could run now anyway */
	for (i = 0; i < sizeof(data); i++)
		data[i] = (u8)(i * 7 + 1);
	for (i = 0; i < sizeof(a); i++)
		a[i] = (u8)(0xa5 ^ i);
	memcpy(b, a, sizeof(a));
	hw_ghash_soft(k, a, data, 3);
	err = hw_ghash_shash(k, b, data, 3);
	if (!err && crypto_memneq(a, b, sizeof(a)))
		err = -EINVAL;
	if (err)
		pr_warn_once("innova: GHASH %s disagrees with gf128mul (%d): key refused\n",
			     crypto_shash_driver_name(k->ghash), err);
	memzero_explicit(a, sizeof(a));
	memzero_explicit(b, sizeof(b));
	return err;
}

int hw_crypto_key_new(const u8 *key, unsigned int keylen,
		      struct hw_crypto_key **out)
{
	static const u8 zero[HW_AES_BLOCK];
	struct hw_crypto_key *k;
	const char *aes_driver;
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
	crypto_cipher_encrypt_one(k->aes, (u8 *)&k->h, zero);
	aes_driver = crypto_tfm_alg_driver_name(crypto_cipher_tfm(k->aes));
	if (hw_bulk_ctr && !strcmp(aes_driver, "aes-aesni")) {
		err = hw_ctr_new(k, key, keylen);
		if (err)
			goto fail;
	}
	k->ghash = hw_ghash_alloc(&k->ghash_simd);
	if (IS_ERR(k->ghash)) {
		err = PTR_ERR(k->ghash);
		k->ghash = NULL;
		goto fail;
	}
	err = crypto_shash_setkey(k->ghash, (const u8 *)&k->h, sizeof(k->h));
	if (err)
		goto fail;
	err = hw_ghash_selftest(k);
	if (err)
		goto fail;
	hw_crypto_key_account(k);
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
	atomic_long_sub(k->mem, &hw_crypto_nbytes);
	crypto_free_cipher(k->aes);		/* zeroizes its key schedule */
	crypto_free_sync_skcipher(k->ctr);	/* NULL-safe, the same */
	crypto_free_shash(k->ghash);	/* NULL-safe; zeroizes its key */
	kfree_sensitive(k);		/* and h */
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
	return hw_ctr(k, ctr, in, out, len);
}

int hw_crypto_ghash(struct hw_crypto_key *k, u8 state[HW_AES_BLOCK],
		    const u8 *data, unsigned int nblocks)
{
	if (!nblocks)
		return 0;
	if (k->ghash_simd && !crypto_simd_usable()) {
		hw_ghash_soft(k, state, data, nblocks);
		return 0;
	}
	return hw_ghash_shash(k, state, data, nblocks);
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

/* what the crypto API allocates for a tfm with its context (crypto_ctxsize) */
static size_t hw_tfm_size(struct crypto_tfm *tfm, size_t front)
{
	return front + sizeof(*tfm) + tfm->__crt_alg->cra_ctxsize +
	       (crypto_tfm_alg_alignmask(tfm) & ~(crypto_tfm_ctx_alignment() - 1));
}

void hw_crypto_key_mem(struct hw_crypto_key *k, struct hw_crypto_key_mem *m)
{
	struct crypto_tfm *ct = crypto_cipher_tfm(k->aes);
	struct crypto_tfm *gt = crypto_shash_tfm(k->ghash);

	m->key = sizeof(*k);
	m->ghash = hw_tfm_size(gt, offsetof(struct crypto_shash, base));
	m->cipher = hw_tfm_size(ct, 0);
	m->key_slab = kmalloc_size_roundup(m->key);
	m->ghash_slab = kmalloc_size_roundup(m->ghash);
	m->cipher_slab = kmalloc_size_roundup(m->cipher);
	m->cipher_driver = crypto_tfm_alg_driver_name(ct);
	m->ctr = 0;
	m->ctr_slab = 0;
	m->ctr_driver = "none";
	if (k->ctr) {
		struct crypto_tfm *xt = crypto_skcipher_tfm(&k->ctr->base);

		m->ctr = hw_tfm_size(xt, offsetof(struct crypto_skcipher, base));
		m->ctr_slab = kmalloc_size_roundup(m->ctr);
		m->ctr_driver = crypto_tfm_alg_driver_name(xt);
	}
	m->ghash_driver = crypto_tfm_alg_driver_name(gt);
	m->ghash_key = gt->__crt_alg->cra_ctxsize;
	m->aes_key = ct->__crt_alg->cra_ctxsize;
}
