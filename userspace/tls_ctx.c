// SPDX-License-Identifier: GPL-2.0
/*
 * OpenSSL contexts: TLS 1.2 only with one ECDHE-ECDSA suite, or (--tls13) TLS
 * 1.3 only with one suite; ephemeral self-signed cert.
 */
#include <errno.h>
#include <string.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include "innova_tls.h"

void ssl_err_append(char *err, size_t errlen, SSL *ssl, int ret)
{
	size_t n = strlen(err);
	unsigned long e = ERR_get_error();

	if (e) {
		snprintf(err + n, errlen - n, ": %s", ERR_reason_error_string(e) ?
			 ERR_reason_error_string(e) : ERR_error_string(e, NULL));
	} else if (ssl) {
		int code = SSL_get_error(ssl, ret);

		if (code == SSL_ERROR_SYSCALL && errno)
			err_errno(err + n, errlen - n, "", errno);
		else if (code == SSL_ERROR_ZERO_RETURN || code == SSL_ERROR_SYSCALL)
			snprintf(err + n, errlen - n, ": connection closed by peer");
		else
			snprintf(err + n, errlen - n, ": SSL_get_error=%d", code);
	}
	ERR_clear_error();
}

/* Ephemeral P-256 key + self-signed cert, never written anywhere (no secrets in git). */
static int add_ephemeral_cert(SSL_CTX *ctx)
{
	EVP_PKEY *pkey = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	X509_NAME *name;
	int ok = 0;

	if (!pkey || !x)
		goto out;
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_gmtime_adj(X509_getm_notBefore(x), -3600);
	X509_gmtime_adj(X509_getm_notAfter(x), 7 * 24 * 3600);
	X509_set_pubkey(x, pkey);
	name = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"innova-tls test", -1, -1, 0);
	X509_set_issuer_name(x, name);
	if (!X509_sign(x, pkey, EVP_sha256()))
		goto out;
	ok = SSL_CTX_use_certificate(ctx, x) == 1 && SSL_CTX_use_PrivateKey(ctx, pkey) == 1 &&
	     SSL_CTX_check_private_key(ctx) == 1;
out:
	X509_free(x);
	EVP_PKEY_free(pkey);
	return ok ? 0 : -1;
}

static SSL_CTX *make_ctx(const struct options *o, bool server, char *err, size_t errlen)
{
	SSL_CTX *ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
	uint64_t opts = SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
			SSL_OP_IGNORE_UNEXPECTED_EOF;

	if (!ctx) {
		snprintf(err, errlen, "SSL_CTX_new failed");
		goto fail;
	}
	/*
	 * TLS 1.2: the only version the NIC (and the kernel's device path)
	 * offloads. --tls13: the software-fallback case, keys from the keylog
	 * callback, no session tickets (no post-handshake record moves the
	 * sequence numbers).
	 */
	if (!SSL_CTX_set_min_proto_version(ctx, o->tls13 ? TLS1_3_VERSION : TLS1_2_VERSION) ||
	    !SSL_CTX_set_max_proto_version(ctx, o->tls13 ? TLS1_3_VERSION : TLS1_2_VERSION)) {
		snprintf(err, errlen, "cannot pin TLS %s", o->tls13 ? "1.3" : "1.2");
		goto fail;
	}
	if (o->tls13) {
		if (!o->cipher->openssl_name13 || !SSL_CTX_set_ciphersuites(ctx, o->cipher->openssl_name13)) {
			snprintf(err, errlen, "OpenSSL does not offer TLS 1.3 suite %s",
				 o->cipher->openssl_name13 ? o->cipher->openssl_name13 : o->cipher->name);
			goto fail;
		}
		if (!SSL_CTX_set_num_tickets(ctx, 0)) {
			snprintf(err, errlen, "cannot disable TLS 1.3 session tickets");
			goto fail;
		}
		SSL_CTX_set_keylog_callback(ctx, tls13_keylog_cb);
	} else if (!SSL_CTX_set_cipher_list(ctx, o->cipher->openssl_name)) {
		snprintf(err, errlen, "OpenSSL does not offer cipher %s", o->cipher->openssl_name);
		goto fail;
	}
	if (server && o->rx_mode == RX_OPENSSL)
		opts |= SSL_OP_ENABLE_KTLS;
	SSL_CTX_set_options(ctx, opts);
	/* read_ahead off: OpenSSL must not slurp records past the handshake (kTLS hand-off). */
	SSL_CTX_set_read_ahead(ctx, 0);
	SSL_CTX_set_mode(ctx, SSL_MODE_AUTO_RETRY);
	if (server && add_ephemeral_cert(ctx)) {
		snprintf(err, errlen, "cannot create ephemeral certificate");
		goto fail;
	}
	if (!server)
		SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);   /* test tool: see --help */
	return ctx;
fail:
	ssl_err_append(err, errlen, NULL, 0);
	SSL_CTX_free(ctx);
	return NULL;
}

SSL_CTX *make_server_ctx(const struct options *o, char *err, size_t errlen)
{
	return make_ctx(o, true, err, errlen);
}

SSL_CTX *make_client_ctx(const struct options *o, char *err, size_t errlen)
{
	return make_ctx(o, false, err, errlen);
}
