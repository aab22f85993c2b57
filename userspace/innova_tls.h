/* SPDX-License-Identifier: GPL-2.0 */
/*
 * innova-tls: TLS 1.2 (and, with --tls13, TLS 1.3) sender/receiver harness
 * for the Innova kTLS RX offload tests. Shared declarations for all
 * translation units.
 */
#ifndef INNOVA_TLS_H
#define INNOVA_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <stdint.h>
#include <sys/socket.h>
#include <openssl/ssl.h>
#include <linux/tls.h>

/* Older libc headers lack these (values from linux/socket.h, linux/tcp.h). */
#ifndef SOL_TLS
#define SOL_TLS 282
#endif
#ifndef TCP_ULP
#define TCP_ULP 31
#endif

#define MAX_RECORD      16384u
#define MAX_FLOWS       1024
#define SEED_MAX_FLOWS  16384   /* --flows limit with --seed-keys */
#define MAX_CCS_MARKS   64
#define MAX_PAUSES      16
#define ERRBUF_LEN      512

/* TLS record content types (RFC 5246 §6.2.1). */
enum { RT_CCS = 20, RT_ALERT = 21, RT_HANDSHAKE = 22, RT_APPDATA = 23 };

/* ---- ciphers (tls_keys.c) ---- */
enum cipher_id { CIPHER_AES128GCM, CIPHER_AES256GCM, CIPHER_AES128CCM, CIPHER_CHACHA20, CIPHER_COUNT };

struct cipher_desc {
	enum cipher_id id;
	const char *name;          /* CLI name */
	const char *openssl_name;  /* TLS 1.2 cipher suite, OpenSSL spelling */
	const char *openssl_name13;/* TLS 1.3 cipher suite (--tls13), NULL: not offered */
	uint16_t kernel_type;      /* TLS_CIPHER_* */
	size_t key_len;
	size_t fixed_iv_len;       /* salt (GCM/CCM) or whole IV (ChaCha) */
	size_t explicit_nonce_len; /* bytes of nonce carried in each record */
	size_t info_len;           /* sizeof(struct tls12_crypto_info_*) */
};

const struct cipher_desc *cipher_by_name(const char *name);
const struct cipher_desc *cipher_by_id(enum cipher_id id);

/* Every supported tls12_crypto_info_* in one place, sized by desc->info_len. */
union ktls_crypto_info {
	struct tls_crypto_info info;
	struct tls12_crypto_info_aes_gcm_128 gcm128;
	struct tls12_crypto_info_aes_gcm_256 gcm256;
	struct tls12_crypto_info_aes_ccm_128 ccm128;
	struct tls12_crypto_info_chacha20_poly1305 chacha;
};

/* Raw per-direction record-protection state, independent of the kernel ABI. */
struct record_keys {
	const struct cipher_desc *cipher;
	bool tls13;            /* TLS 1.3 record layer: fixed_iv is the whole 12-byte IV */
	uint8_t key[32];
	uint8_t fixed_iv[12];
	uint8_t nonce_iv[8];   /* first explicit nonce (TX); informational on RX */
	uint64_t seq;          /* record sequence number of the next record */
	/* TLS 1.3: the traffic secret these keys came from (KeyUpdate); never printed */
	uint8_t secret[64];
	size_t secret_len;
};

/*
 * Tracks record sequence numbers from OpenSSL's message callback. TLS 1.2:
 * a direction's numbering starts at its ChangeCipherSpec. TLS 1.3: at the
 * first record after that direction's Finished (application traffic keys);
 * rd/wr_ccs_seen then mean "application keys in use".
 */
#define TLS13_SECRET_MAX 64
struct seq_tracker {
	bool tls13;
	bool rd_ccs_seen, wr_ccs_seen;
	uint64_t rd_seq, wr_seq;       /* next record number per direction */
	uint64_t rd_app_records;       /* application-data records read */
	uint64_t rd_key_updates, wr_key_updates;   /* TLS 1.3 KeyUpdate messages read / written */
	/* TLS 1.3 application traffic secrets (keylog callback); never printed, wiped after use. */
	uint8_t client_secret[TLS13_SECRET_MAX], server_secret[TLS13_SECRET_MAX];
	size_t client_secret_len, server_secret_len;
};

/* Attach to ssl (msg callback and app data); tls13: count records the TLS 1.3 way. */
void seq_tracker_attach(SSL *ssl, struct seq_tracker *t, bool tls13);
/* Wipe the secrets the tracker holds. */
void seq_tracker_wipe(struct seq_tracker *t);
/* SSL_CTX keylog callback storing the TLS 1.3 traffic secrets in the SSL's tracker. */
void tls13_keylog_cb(const SSL *ssl, const char *line);

enum key_dir { KEYS_FOR_READ, KEYS_FOR_WRITE };
int derive_record_keys(SSL *ssl, const struct cipher_desc *c, enum key_dir dir,
		       uint64_t seq, struct record_keys *out, char *err, size_t errlen);
size_t build_crypto_info(const struct record_keys *k, union ktls_crypto_info *ci);
/* TCP_ULP "tls" + TLS_RX/TLS_TX; on failure fills err (with errno name) and returns -errno. */
int ktls_install(int fd, const struct record_keys *k, bool rx, char *err, size_t errlen);
/* Second and later TLS_RX/TLS_TX (a KeyUpdate's next key, no ULP step): 0 or -errno. */
int ktls_set_key(int fd, const struct record_keys *k, bool rx);
/* HKDF-Expand-Label(secret, label, "", out_len), RFC 8446 §7.1; digest "SHA256"/"SHA384". 0 or -1. */
int tls13_hkdf_expand_label(const char *digest, const uint8_t *secret, size_t secret_len,
			    const char *label, uint8_t *out, size_t out_len);
/* Read back rec_seq of the installed TLS_RX/TLS_TX state (getsockopt); -1 if unavailable. */
int ktls_get_rec_seq(int fd, const struct cipher_desc *c, bool rx, uint64_t *seq);
/* Hand-off checks after the handshake; returns 0 or -1 with err filled. */
int ssl_check_no_buffered_input(SSL *ssl, char *err, size_t errlen);

/* ---- userspace model of the kernel record layer (record_sim.c) ---- */
/* Encrypt one record into out (must hold len + 5 + 8 + 16); returns wire length. */
size_t sim_seal_record(struct record_keys *k, uint8_t type, const uint8_t *pt, size_t len, uint8_t *out);
/*
 * Decrypt one record read from fd; returns plaintext length, SIM_EOF at a clean
 * EOF, or -1 with err filled and errno set to what kTLS recvmsg() would fail with.
 */
#define SIM_EOF (-2)
ssize_t sim_open_record(int fd, struct record_keys *k, uint8_t *type, uint8_t *pt, char *err, size_t errlen);
/* The same in two steps, for records already in memory: the framing checks of tls_rx_msg_size() on
 * the 5-byte header (body length, or -1 with err/errno), then decrypting hdr + body. */
ssize_t sim_check_header(const struct record_keys *k, const uint8_t hdr[5], char *err, size_t errlen);
ssize_t sim_open_body(struct record_keys *k, const uint8_t hdr[5], const uint8_t *body, size_t len,
		      uint8_t *type, uint8_t *pt, char *err, size_t errlen);

/* ---- data pattern (pattern.c) ---- */
struct pattern {
	uint64_t key;
};
void pattern_init(struct pattern *p, uint64_t seed, unsigned flow);
void pattern_fill(const struct pattern *p, uint64_t offset, uint8_t *buf, size_t len);
/* Returns -1 if buf matches, else the index within buf of the first bad byte. */
ssize_t pattern_check(const struct pattern *p, uint64_t offset, const uint8_t *buf, size_t len);

/* Small PRNG for record sizes etc. */
uint64_t splitmix64(uint64_t *state);

/* ---- arguments (args.c) ---- */
enum role { ROLE_NONE, ROLE_RECV, ROLE_SEND, ROLE_SELFTEST_ERRORS, ROLE_SELFTEST_KEYUPDATE };
enum rx_mode { RX_MANUAL, RX_OPENSSL, RX_USER, RX_SIM };
enum tx_mode { TX_USER, TX_KTLS, TX_SIM };
/* send --key-update: when TLS 1.3 KeyUpdates go out (keyupdate.c). */
enum ku_kind { KU_OFF, KU_EVERY, KU_RANDOM, KU_BURST };
#define KU_INTERVAL_MAX 20000u   /* records between updates: 1..20000 */
#define KU_BURST_MAX    64u      /* KeyUpdates back to back in one burst */
/* send --malformed: what replaces data record K (see send.c). */
enum malformed_kind { MAL_NONE, MAL_VERSION, MAL_OVERSIZE, MAL_TYPE0, MAL_SPLIT_BADLEN, MAL_COUNT };

struct options {
	enum role role;
	char addr[128];
	enum rx_mode rx_mode;
	enum tx_mode tx_mode;
	const struct cipher_desc *cipher;
	uint32_t rec_min, rec_max;     /* equal for a fixed size */
	uint64_t bytes;                /* payload per flow */
	bool bytes_set;
	uint64_t seed;
	bool seed_keys_set;            /* --seed-keys: keys from (seed_keys, client port), no handshake */
	uint64_t seed_keys;
	unsigned flows;
	unsigned timeout_sec;
	unsigned rx_delay_ms;          /* manual: wait before TLS_RX */
	bool quiet;
	bool tls13;                    /* --tls13: TLS 1.3 handshake and record layer */
	uint64_t ccs_at[MAX_CCS_MARKS];
	unsigned n_ccs_at;
	int64_t corrupt_at;            /* hidden test hook: -1 = off */
	/* recv */
	unsigned read_delay_us;        /* pause between receive calls */
	int expect_errno;              /* 0: any error fails the run */
	/* send */
	uint16_t sport;                /* local port to bind, 0 = ephemeral */
	uint64_t pause_at[MAX_PAUSES]; /* --pause-at: payload offsets, ascending */
	unsigned n_pause_at;
	enum malformed_kind malformed;
	uint64_t malformed_at;         /* 1-based data record it replaces */
	/* send --key-update (TLS 1.3): every N records, random MIN-MAX, or bursts of K every N */
	enum ku_kind ku_kind;
	uint32_t ku_min, ku_max;       /* interval in data records (equal unless random) */
	uint32_t ku_burst;             /* KeyUpdates per due point (1 unless burst) */
	/* recv (TLS 1.3) */
	uint64_t ku_wrong_at;          /* --key-update-wrong-key K: 1-based update given a wrong key, 0 = off */
	bool ku_lazy;                  /* --key-update-lazy: install only after EKEYEXPIRED */
};

extern const char *const rx_mode_names[];
extern const char *const tx_mode_names[];
extern const char *const malformed_names[];

/* Returns 0 on success, 2 on a usage error (message already printed), 1 for --help. */
int parse_args(int argc, char **argv, struct options *o);
void print_usage(FILE *f);

/* ---- networking (net.c) ---- */
int parse_sockaddr(const char *s, struct sockaddr_storage *ss, socklen_t *len, char *err, size_t errlen);
int net_listen(const struct options *o, char *err, size_t errlen);
int net_accept(int lfd, unsigned timeout_sec, char *err, size_t errlen);
int net_connect(const struct options *o, char *err, size_t errlen);
void net_set_timeouts(int fd, unsigned timeout_sec);
int connected_pair(int family, int *a, int *b, char *err, size_t errlen);

/* ---- OpenSSL contexts (tls_ctx.c) ---- */
SSL_CTX *make_server_ctx(const struct options *o, char *err, size_t errlen);
SSL_CTX *make_client_ctx(const struct options *o, char *err, size_t errlen);
/* Append OpenSSL's error queue (or a SSL_get_error reason) to err. */
void ssl_err_append(char *err, size_t errlen, SSL *ssl, int ret);

/* ---- reporting (report.c) ---- */
#define TLS_STAT_MAX 32
struct tls_stat {
	bool present;
	unsigned n;
	char name[TLS_STAT_MAX][64];
	unsigned long long val[TLS_STAT_MAX];
};
void tls_stat_read(struct tls_stat *s);

struct run_result {
	const char *role;
	bool ok;
	unsigned flows;
	uint64_t bytes, records, rekey_markers;
	double seconds, cpu_user, cpu_sys;
	const char *mode_key, *mode;
	const char *cipher;
	const char *tls_version;       /* "1.2" or "1.3" */
	int ktls;                      /* kernel kTLS carried the data: 1/0, -1 = unknown */
	int64_t bad_offset;            /* first mismatching payload byte, -1 = none */
	const char *malformed;         /* send --malformed KIND, NULL = not used */
	uint64_t malformed_at;
	int expect_errno;              /* recv --expect-error, 0 = not used */
	int error_errno;               /* errno of the failed receive call, 0 = none */
	const char *key_source;        /* "seed" with --seed-keys, NULL = handshake (key absent) */
	double connect_seconds;        /* --seed-keys: all connections open, TLS installed */
	/* TLS 1.3 KeyUpdate: send with --key-update, recv with --tls13 (keys absent otherwise) */
	bool ku_send, ku_recv;
	uint64_t ku_sent, ku_received, rekeys_installed, key_expired_seen;
	const char *ku_tx;             /* send: "user", "sim" or "ktls": what carried the KeyUpdates */
	const char *ku_note;           /* send: why kTLS TX fell back to SSL_write, NULL = it did not */
	uint64_t ku_wrong_at;          /* recv --key-update-wrong-key, 0 = not used */
	struct tls_stat before, after;
	const char *error;             /* NULL when ok (unless an expected error happened) */
};
void report_json(FILE *f, const struct run_result *r);
/* Print r unless a report was already printed; true if this call printed. */
bool report_once(const struct run_result *r);
/* After timeout_sec, print tmpl as a timeout failure and _exit(3). */
void watchdog_start(const struct run_result *tmpl, unsigned timeout_sec);
/* Process CPU time (all threads) in seconds. */
void cpu_times(double *user, double *sys);
const char *errno_name(int e);
/* snprintf-append with errno name and text: "<what>: EBADMSG (Bad message)". */
void err_errno(char *err, size_t errlen, const char *what, int e);
void logf_(const struct options *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
double now_sec(void);

/* ---- --seed-keys: no handshake, keys derived from (seed, client port) (seeded.c) ---- */
/* HKDF-SHA256 derivation of the client-write TLS 1.2 keys; 0 or -1 with err filled. */
int seed_derive_keys(uint64_t seed, uint16_t client_port, const struct cipher_desc *c,
		     struct record_keys *out, char *err, size_t errlen);
int run_recv_seeded(const struct options *o);
int run_send_seeded(const struct options *o);

/* ---- TLS 1.3 KeyUpdate (keyupdate.c) ---- */
#define KEY_UPDATE_MSG_LEN 5
extern const uint8_t key_update_msg[KEY_UPDATE_MSG_LEN];   /* key_update, length 1, update_not_requested */
/* Sender schedule: how many KeyUpdates go before the next data record. */
struct ku_sched {
	const struct options *o;
	uint64_t rng;
	uint64_t next;                 /* data records sent when the next update is due */
};
void ku_sched_init(struct ku_sched *s, const struct options *o, unsigned flow);
unsigned ku_due(struct ku_sched *s, uint64_t records_sent);
/*
 * RFC 8446 §7.2/§7.3: secret = HKDF-Expand-Label(secret, "traffic upd", "", Hash.length), then key
 * and iv from it; record number 0. k must hold a TLS 1.3 secret. 0 or -1 with err filled.
 */
int tls13_update_keys(struct record_keys *k, char *err, size_t errlen);
/* A received handshake record: 0 if it is exactly one KeyUpdate, else -1 with err filled. */
int ku_check_record(const uint8_t *p, size_t len, char *err, size_t errlen);
/* kernel counters: /proc/net/tls_stat names TlsTxRekeyOk (TX rekey supported) */
bool kernel_tls_stat_has(const char *name);
int run_selftest_keyupdate(void);

/* ---- roles ---- */
int run_recv(const struct options *o);
int run_send(const struct options *o);
int run_selftest_errors(void);

#endif
