// SPDX-License-Identifier: GPL-2.0
/* Command line parsing and usage text. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "innova_tls.h"

const char *const rx_mode_names[] = { "manual", "openssl", "user", "sim" };
const char *const tx_mode_names[] = { "user", "ktls", "sim" };
const char *const malformed_names[] = { "none", "version", "oversize", "type0", "split-badlen" };

/* The errnos --expect-error accepts: what kTLS (or the sim model, or TCP) can fail a read with. */
static const struct {
	const char *name;
	int e;
} expect_errnos[] = {
	{ "EBADMSG", EBADMSG }, { "EMSGSIZE", EMSGSIZE }, { "EINVAL", EINVAL }, { "EIO", EIO },
	{ "ECONNRESET", ECONNRESET }, { "EPIPE", EPIPE }, { "EPROTO", EPROTO }, { "ENOMEM", ENOMEM },
	{ "EBUSY", EBUSY }, { "EKEYEXPIRED", EKEYEXPIRED },
};

void print_usage(FILE *f)
{
	fputs(
"usage: innova-tls recv --listen ADDR:PORT [options]\n"
"       innova-tls send --connect ADDR:PORT [options]\n"
"       innova-tls selftest-errors\n"
"       innova-tls selftest-keyupdate\n"
"\n"
"TLS 1.2 (ECDHE-ECDSA) test traffic with byte-exact verification, for kTLS RX\n"
"offload tests (TLS 1.3 with --tls13). ADDR is an IPv4 or IPv6 literal: 10.0.0.1:4433, [fd00::1]:4433.\n"
"The receiver is the TLS server and makes an ephemeral self-signed P-256\n"
"certificate in memory at startup. The sender does NOT verify it: this is a\n"
"test tool, not a secure client.\n"
"\n"
"common options:\n"
"  --cipher C         aes128gcm (default) | aes256gcm | aes128ccm | chacha20\n"
"                     (CCM and ChaCha20 exist to prove NIC fallback to software)\n"
"  --tls13            TLS 1.3 instead of 1.2 (both ends must say it): handshake\n"
"                     TLS 1.3 only, no session tickets, suite TLS_AES_128_GCM_SHA256\n"
"                     (aes128gcm), TLS_AES_256_GCM_SHA384 (aes256gcm) or\n"
"                     TLS_CHACHA20_POLY1305_SHA256 (chacha20; aes128ccm is refused);\n"
"                     kTLS keys from the application traffic secrets (HKDF-Expand-\n"
"                     Label), installed as TLS_1_3_VERSION. The NIC offloads only\n"
"                     TLS 1.2, so kTLS RX stays in software. Every rx/tx mode\n"
"                     works; --malformed is TLS 1.2 only\n"
"  --bytes N          payload bytes per flow, suffix k/M/G = 2^10/2^20/2^30; send\n"
"                     default 1M; recv checks the exact total only when given\n"
"                     (every received byte is verified either way)\n"
"  --seed S           data pattern seed (default 1); data = f(seed, flow, offset)\n"
"  --flows N          concurrent connections, each verified (default 1, at most 1024;\n"
"                     16384 with --seed-keys); recv tells the flows apart by their\n"
"                     first 8 payload bytes\n"
"  --seed-keys SEED   (both ends) no TLS handshake: each connection's TLS 1.2 key,\n"
"                     salt, IV and rec_seq = HKDF-SHA256(SEED, client TCP port), as\n"
"                     kernel selftests use fixed keys. aes128gcm/aes256gcm only; rx\n"
"                     modes manual/sim, tx modes ktls (the default here)/sim. The\n"
"                     receiver sets TLS_RX, then writes one plaintext ready byte\n"
"                     ('R'); the sender sends records only after reading it. All\n"
"                     flows open at once (sender: at most 128 not yet ready), data\n"
"                     sent round-robin one record per flow, one thread, epoll.\n"
"                     Reports add \"key_source\":\"seed\",\"connect_seconds\"\n"
"  --timeout SEC      give up after SEC seconds overall and per blocking call (default 120)\n"
"  --quiet            no progress/diagnostics on stderr (errors still go in the JSON)\n"
"\n"
"recv options:\n"
"  --rx-mode M        manual  (default) derive the keys, TCP_ULP tls + TLS_RX,\n"
"                              recvmsg with TLS_GET_RECORD_TYPE; type 20 = rekey marker\n"
"                     openssl SSL_OP_ENABLE_KTLS, fail unless OpenSSL enabled kTLS RX\n"
"                     user    plain SSL_read (baseline)\n"
"                     sim     like manual, but the records are decrypted by a userspace\n"
"                              model of kTLS (for hosts without kTLS)\n"
"  --rx-delay MS      (manual, sim) wait MS ms after the handshake before setting TLS_RX,\n"
"                     so the peer's first records are already queued in the socket\n"
"  --read-delay-us N  sleep N us (0..1000000) between receive calls (any rx mode): a\n"
"                     lagging reader, so the kernel's record parser trails the NIC\n"
"  --expect-error E   pass only if every byte received before an error verifies and\n"
"                     the receive call then fails with errno E: EBADMSG, EMSGSIZE,\n"
"                     EINVAL, EIO, ECONNRESET, EPIPE, EPROTO or ENOMEM (\"ok\":true,\n"
"                     \"error\" still says what happened, \"error_errno\" names it). A\n"
"                     clean end or another failure fails the run. With --bytes, that\n"
"                     many bytes must arrive before the error. rx-mode user sees\n"
"                     OpenSSL errors, which carry no errno (only TCP ones do)\n"
"  (--tls13) every rx mode follows the sender's KeyUpdates: manual derives the next\n"
"                     secret (HKDF-Expand-Label \"traffic upd\") and sets TLS_RX again\n"
"                     (rec_seq 0); a kernel that refuses it (before 6.14: EBUSY) fails\n"
"                     the run with \"rekey unsupported by this kernel\"; sim rekeys its\n"
"                     model; user/openssl leave it to OpenSSL. Reports add\n"
"                     \"key_updates_received\",\"rekeys_installed\",\"key_expired_seen\"\n"
"  --key-update-wrong-key K\n"
"                     (--tls13, rx-mode manual/sim) at the K-th KeyUpdate install a\n"
"                     wrong next key (one key bit flipped): the next record must fail\n"
"                     with EBADMSG (use --expect-error EBADMSG to pass on it)\n"
"  --key-update-lazy  (--tls13, rx-mode manual) install the next key only after a\n"
"                     receive call failed with EKEYEXPIRED (the kernel pauses\n"
"                     decryption at a KeyUpdate since 6.14); a read that returns\n"
"                     anything else first fails the run\n"
"\n"
"send options:\n"
"  --tx-mode M        user (default) SSL_write, one record per call\n"
"                     ktls  derive keys, TCP_ULP tls + TLS_TX, one send() per record\n"
"                     sim   like ktls, records sealed by the userspace model\n"
"  --record-size R    N (1..16384, default 16384) or random[:MIN-MAX] (seeded)\n"
"  --ccs-at K[,K..]   (ktls/sim) before the K-th data record (1-based) send a 1-byte\n"
"                     record of content type 20, the emulated NIC's rekey marker;\n"
"                     only rx-mode manual/sim receivers accept it\n"
"  --malformed KIND[@K]\n"
"                     (tx-mode sim only: kTLS TX seals every byte written) in place\n"
"                     of data record K (1-based, default 3) write a malformed record,\n"
"                     then stop and close (no close_notify). KIND, and what Linux\n"
"                     kTLS RX and rx-mode sim fail with:\n"
"                     version       sealed record, header version 03 01    [EINVAL]\n"
"                     oversize      length 16641 (> 2^14 + any TLS 1.2 AEAD\n"
"                                   overhead), then 16641 filler bytes   [EMSGSIZE]\n"
"                     type0         sealed record of content type 0, in the\n"
"                                   AAD too, so the tag verifies          [EBADMSG]\n"
"                     split-badlen  17 03 03 as its own TCP segment, ~50 ms,\n"
"                                   then length 00 00 and filler          [EBADMSG]\n"
"  --key-update SPEC  (--tls13) TLS 1.3 KeyUpdates (update_not_requested) between\n"
"                     data records; SPEC: N (after every N data records), random:MIN-MAX\n"
"                     (seeded by --seed: MIN..MAX records between updates) or\n"
"                     burst:K/N (K updates back to back after every N records);\n"
"                     N, MIN, MAX 1..20000, K 1..64. None after the last record.\n"
"                     tx-mode user: SSL_key_update; sim: the model seals the KeyUpdate\n"
"                     and derives the next keys; ktls: TLS_SET_RECORD_TYPE 22 + a\n"
"                     second TLS_TX where the kernel counts TlsTxRekeyOk (6.14+ uAPI),\n"
"                     else the whole flow falls back to SSL_write (\"key_update_tx\":\n"
"                     \"user\", \"key_update_note\" says why). Reports add\n"
"                     \"key_updates_sent\",\"key_update_tx\",\"key_update_note\"\n"
"  --sport PORT       bind the client socket to local PORT (SO_REUSEADDR) before\n"
"                     connecting, e.g. to reconnect on the same 4-tuple; --flows 1\n"
"  --pause-at B[,B..] (--flows 1) before the first data record that starts at or\n"
"                     after payload byte B, stop sending until SIGUSR1 (resume) or\n"
"                     SIGUSR2 (resume, skip the later pauses); says \"send: paused at\n"
"                     byte B (record N)\" on stderr even with --quiet. The stream then\n"
"                     stands at a record boundary, e.g. for a test to inject there.\n"
"                     --timeout bounds the run, pauses included. Up to 16, ascending,\n"
"                     k/M/G allowed\n"
"\n"
"Output: one JSON line on stdout at exit ({\"role\":...,\"ok\":...,\"tls_stat\":{delta of\n"
"/proc/net/tls_stat} or null,...,\"error\":null|\"...\"}); with --malformed also\n"
"\"malformed\",\"malformed_at\", with --expect-error \"expect_error\"; \"error_errno\"\n"
"names the errno a receive call failed with (null/absent if none).\n"
"Exit: 0 ok, 1 run failed, 2 bad arguments, 3 timeout.\n", f);
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "innova-tls: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n\n");
	print_usage(stderr);
	return 2;
}

/* Unsigned integer with optional binary suffix; rejects junk and overflow. */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end == 'k' || *end == 'K')
		shift = 10, end++;
	else if (*end == 'M')
		shift = 20, end++;
	else if (*end == 'G')
		shift = 30, end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return (errno || *end) ? -1 : 0;
}

static int parse_record_size(const char *s, struct options *o)
{
	uint64_t a, b;

	if (!strncmp(s, "random", 6)) {
		o->rec_min = 1;
		o->rec_max = MAX_RECORD;
		if (!s[6])
			return 0;
		if (s[6] != ':')
			return -1;
		char tmp[64], *dash;

		snprintf(tmp, sizeof(tmp), "%s", s + 7);
		dash = strchr(tmp, '-');
		if (!dash)
			return -1;
		*dash = 0;
		if (parse_u64(tmp, &a) || parse_u64(dash + 1, &b) || a < 1 || b > MAX_RECORD || a > b)
			return -1;
		o->rec_min = (uint32_t)a;
		o->rec_max = (uint32_t)b;
		return 0;
	}
	if (parse_u64(s, &a) || a < 1 || a > MAX_RECORD)
		return -1;
	o->rec_min = o->rec_max = (uint32_t)a;
	return 0;
}

/*
 * "A[,B..]": each number through parse (parse_u64, parse_size), appended
 * to out[*n] (at most max); ascending: each above the one before. Values
 * already there (a repeated option) count. 0, or -1 for a bad or empty list.
 */
static int parse_list(const char *s, int (*parse)(const char *, uint64_t *), bool ascending,
		      uint64_t *out, unsigned max, unsigned *n)
{
	char tmp[1024], *save = NULL;
	uint64_t k;

	snprintf(tmp, sizeof(tmp), "%s", s);
	for (char *tok = strtok_r(tmp, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n >= max || parse(tok, &k) || (ascending && *n && k <= out[*n - 1]))
			return -1;
		out[(*n)++] = k;
	}
	return *n ? 0 : -1;
}

/* --ccs-at K[,K..]: 1-based record numbers */
static int parse_ccs_list(const char *s, struct options *o)
{
	unsigned first = o->n_ccs_at;

	if (parse_list(s, parse_u64, false, o->ccs_at, MAX_CCS_MARKS, &o->n_ccs_at))
		return -1;
	for (unsigned i = first; i < o->n_ccs_at; i++)
		if (o->ccs_at[i] < 1)
			return -1;
	return 0;
}

/* --key-update N | random:MIN-MAX | burst:K/N, every number of records in 1..20000 */
static int parse_key_update(const char *s, struct options *o)
{
	char tmp[64], *sep;
	uint64_t a, b;

	if (strlen(s) >= sizeof(tmp))
		return -1;
	o->ku_burst = 1;
	if (!strncmp(s, "random:", 7)) {
		snprintf(tmp, sizeof(tmp), "%s", s + 7);
		sep = strchr(tmp, '-');
		if (!sep)
			return -1;
		*sep = 0;
		if (parse_u64(tmp, &a) || parse_u64(sep + 1, &b) || a < 1 || b > KU_INTERVAL_MAX || a > b)
			return -1;
		o->ku_kind = KU_RANDOM;
	} else if (!strncmp(s, "burst:", 6)) {
		snprintf(tmp, sizeof(tmp), "%s", s + 6);
		sep = strchr(tmp, '/');
		if (!sep)
			return -1;
		*sep = 0;
		if (parse_u64(tmp, &b) || b < 1 || b > KU_BURST_MAX)
			return -1;
		o->ku_burst = (uint32_t)b;
		if (parse_u64(sep + 1, &a) || a < 1 || a > KU_INTERVAL_MAX)
			return -1;
		b = a;
		o->ku_kind = KU_BURST;
	} else {
		if (parse_u64(s, &a) || a < 1 || a > KU_INTERVAL_MAX)
			return -1;
		b = a;
		o->ku_kind = KU_EVERY;
	}
	o->ku_min = (uint32_t)a;
	o->ku_max = (uint32_t)b;
	return 0;
}

static int parse_mode(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

/* KIND[@K]: K is the 1-based data record the malformed one replaces (default 3). */
static int parse_malformed(const char *s, struct options *o)
{
	char kind[32];
	const char *at = strchr(s, '@');
	size_t n = at ? (size_t)(at - s) : strlen(s);
	int m;

	if (n >= sizeof(kind))
		return -1;
	memcpy(kind, s, n);
	kind[n] = 0;
	m = parse_mode(kind, malformed_names + 1, MAL_COUNT - 1);
	if (m < 0)
		return -1;
	o->malformed = (enum malformed_kind)(m + 1);
	o->malformed_at = 3;
	if (at && (parse_u64(at + 1, &o->malformed_at) || o->malformed_at < 1))
		return -1;
	return 0;
}

static int parse_expect_error(const char *s, struct options *o)
{
	for (size_t i = 0; i < sizeof(expect_errnos) / sizeof(expect_errnos[0]); i++) {
		if (!strcasecmp(s, expect_errnos[i].name)) {
			o->expect_errno = expect_errnos[i].e;
			return 0;
		}
	}
	return -1;
}

static int bad_expect_error(const char *s)
{
	char msg[256];
	size_t n;

	n = (size_t)snprintf(msg, sizeof(msg), "unknown --expect-error '%.64s' (one of", s);
	for (size_t i = 0; i < sizeof(expect_errnos) / sizeof(expect_errnos[0]) && n < sizeof(msg); i++)
		n += (size_t)snprintf(msg + n, sizeof(msg) - n, " %s", expect_errnos[i].name);
	if (n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, ")");
	return usage_error("%s", msg);
}

enum { OPT_LISTEN = 256, OPT_CONNECT, OPT_CIPHER, OPT_RXMODE, OPT_TXMODE, OPT_RECSIZE, OPT_BYTES,
       OPT_SEED, OPT_FLOWS, OPT_TIMEOUT, OPT_QUIET, OPT_CCS, OPT_CORRUPT, OPT_RXDELAY,
       OPT_MALFORMED, OPT_EXPECTERR, OPT_SPORT, OPT_READDELAY, OPT_TLS13, OPT_SEEDKEYS,
       OPT_KEYUPDATE, OPT_KU_WRONG, OPT_KU_LAZY, OPT_PAUSE };

int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "connect", required_argument, NULL, OPT_CONNECT },
		{ "cipher", required_argument, NULL, OPT_CIPHER },
		{ "tls13", no_argument, NULL, OPT_TLS13 },
		{ "rx-mode", required_argument, NULL, OPT_RXMODE },
		{ "tx-mode", required_argument, NULL, OPT_TXMODE },
		{ "record-size", required_argument, NULL, OPT_RECSIZE },
		{ "bytes", required_argument, NULL, OPT_BYTES },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "seed-keys", required_argument, NULL, OPT_SEEDKEYS },
		{ "flows", required_argument, NULL, OPT_FLOWS },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "quiet", no_argument, NULL, OPT_QUIET },
		{ "ccs-at", required_argument, NULL, OPT_CCS },
		{ "rx-delay", required_argument, NULL, OPT_RXDELAY },
		{ "read-delay-us", required_argument, NULL, OPT_READDELAY },
		{ "expect-error", required_argument, NULL, OPT_EXPECTERR },
		{ "malformed", required_argument, NULL, OPT_MALFORMED },
		{ "sport", required_argument, NULL, OPT_SPORT },
		{ "pause-at", required_argument, NULL, OPT_PAUSE },
		{ "key-update", required_argument, NULL, OPT_KEYUPDATE },
		{ "key-update-wrong-key", required_argument, NULL, OPT_KU_WRONG },
		{ "key-update-lazy", no_argument, NULL, OPT_KU_LAZY },
		{ "corrupt-at", required_argument, NULL, OPT_CORRUPT }, /* hidden: verifier test hook */
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool rx_set = false, tx_set = false, rec_set = false, read_delay_set = false;
	const char *flows_arg = NULL;
	uint64_t v, flows = 1;
	int c, m;

	memset(o, 0, sizeof(*o));
	o->rx_mode = RX_MANUAL;
	o->tx_mode = TX_USER;
	o->cipher = cipher_by_id(CIPHER_AES128GCM);
	o->rec_min = o->rec_max = MAX_RECORD;
	o->bytes = 1u << 20;
	o->seed = 1;
	o->flows = 1;
	o->timeout_sec = 120;
	o->corrupt_at = -1;

	if (argc < 2)
		return usage_error("%s", "missing role (recv, send or selftest-errors)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		print_usage(stdout);
		return 1;
	}
	if (!strcmp(argv[1], "recv"))
		o->role = ROLE_RECV;
	else if (!strcmp(argv[1], "send"))
		o->role = ROLE_SEND;
	else if (!strcmp(argv[1], "selftest-errors"))
		o->role = ROLE_SELFTEST_ERRORS;
	else if (!strcmp(argv[1], "selftest-keyupdate"))
		o->role = ROLE_SELFTEST_KEYUPDATE;
	else
		return usage_error("unknown role '%s'", argv[1]);

	optind = 2;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_LISTEN:
		case OPT_CONNECT:
			if ((c == OPT_LISTEN) != (o->role == ROLE_RECV))
				return usage_error("%s", c == OPT_LISTEN ? "--listen is for recv" : "--connect is for send");
			if (strlen(optarg) >= sizeof(o->addr))
				return usage_error("address too long: %s", optarg);
			strcpy(o->addr, optarg);
			break;
		case OPT_CIPHER:
			o->cipher = cipher_by_name(optarg);
			if (!o->cipher)
				return usage_error("unknown cipher '%s'", optarg);
			break;
		case OPT_RXMODE:
			m = parse_mode(optarg, rx_mode_names, 4);
			if (m < 0)
				return usage_error("unknown --rx-mode '%s'", optarg);
			o->rx_mode = (enum rx_mode)m;
			rx_set = true;
			break;
		case OPT_TXMODE:
			m = parse_mode(optarg, tx_mode_names, 3);
			if (m < 0)
				return usage_error("unknown --tx-mode '%s'", optarg);
			o->tx_mode = (enum tx_mode)m;
			tx_set = true;
			break;
		case OPT_RECSIZE:
			if (parse_record_size(optarg, o))
				return usage_error("bad --record-size '%s' (1..16384 or random[:MIN-MAX])", optarg);
			rec_set = true;
			break;
		case OPT_BYTES:
			if (parse_size(optarg, &o->bytes))
				return usage_error("bad --bytes '%s'", optarg);
			o->bytes_set = true;
			break;
		case OPT_SEED:
			if (parse_u64(optarg, &o->seed))
				return usage_error("bad --seed '%s'", optarg);
			break;
		case OPT_FLOWS:
			/* The limit depends on --seed-keys, which may come later. */
			if (parse_u64(optarg, &flows) || flows < 1 || flows > SEED_MAX_FLOWS)
				return usage_error("bad --flows '%s' (1..1024, 1..16384 with --seed-keys)", optarg);
			flows_arg = optarg;
			break;
		case OPT_SEEDKEYS:
			if (parse_u64(optarg, &o->seed_keys))
				return usage_error("bad --seed-keys '%s' (an unsigned 64-bit number)", optarg);
			o->seed_keys_set = true;
			break;
		case OPT_TIMEOUT:
			if (parse_u64(optarg, &v) || v < 1 || v > 86400)
				return usage_error("bad --timeout '%s' (1..86400)", optarg);
			o->timeout_sec = (unsigned)v;
			break;
		case OPT_QUIET:
			o->quiet = true;
			break;
		case OPT_TLS13:
			o->tls13 = true;
			break;
		case OPT_CCS:
			if (parse_ccs_list(optarg, o))
				return usage_error("bad --ccs-at '%s' (K[,K...], K >= 1)", optarg);
			break;
		case OPT_PAUSE:
			/* payload byte offsets, strictly ascending, k/M/G allowed */
			if (parse_list(optarg, parse_size, true, o->pause_at, MAX_PAUSES, &o->n_pause_at))
				return usage_error("bad --pause-at '%s' (B[,B...] ascending byte offsets, at most 16)", optarg);
			break;
		case OPT_RXDELAY:
			if (parse_u64(optarg, &v) || v > 60000)
				return usage_error("bad --rx-delay '%s' (0..60000 ms)", optarg);
			o->rx_delay_ms = (unsigned)v;
			break;
		case OPT_READDELAY:
			if (parse_u64(optarg, &v) || v > 1000000)
				return usage_error("bad --read-delay-us '%s' (0..1000000)", optarg);
			o->read_delay_us = (unsigned)v;
			read_delay_set = true;
			break;
		case OPT_EXPECTERR:
			if (parse_expect_error(optarg, o))
				return bad_expect_error(optarg);
			break;
		case OPT_MALFORMED:
			if (parse_malformed(optarg, o))
				return usage_error("bad --malformed '%s' (version|oversize|type0|split-badlen"
						   "[@K], K >= 1)", optarg);
			break;
		case OPT_KEYUPDATE:
			if (parse_key_update(optarg, o))
				return usage_error("bad --key-update '%s' (N, random:MIN-MAX or burst:K/N; N, MIN, MAX "
						   "1..20000, MIN <= MAX, K 1..64)", optarg);
			break;
		case OPT_KU_WRONG:
			if (parse_u64(optarg, &o->ku_wrong_at) || o->ku_wrong_at < 1)
				return usage_error("bad --key-update-wrong-key '%s' (K >= 1)", optarg);
			break;
		case OPT_KU_LAZY:
			o->ku_lazy = true;
			break;
		case OPT_SPORT:
			if (parse_u64(optarg, &v) || v < 1 || v > 65535)
				return usage_error("bad --sport '%s' (1..65535)", optarg);
			o->sport = (uint16_t)v;
			break;
		case OPT_CORRUPT:
			if (parse_u64(optarg, &v) || v > INT64_MAX)
				return usage_error("bad --corrupt-at '%s'", optarg);
			o->corrupt_at = (int64_t)v;
			break;
		case 'h':
			print_usage(stdout);
			return 1;
		case ':':
			return usage_error("option %s needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);

	if (o->role == ROLE_SELFTEST_ERRORS || o->role == ROLE_SELFTEST_KEYUPDATE)
		return 0;
	if (!o->seed_keys_set && flows > MAX_FLOWS)
		return usage_error("bad --flows '%s' (1..1024 with a TLS handshake per flow; up to 16384 "
				   "with --seed-keys)", flows_arg);
	o->flows = (unsigned)flows;
	if (!o->addr[0])
		return usage_error("%s", o->role == ROLE_RECV ? "recv needs --listen ADDR:PORT"
							       : "send needs --connect ADDR:PORT");
	{
		struct sockaddr_storage ss;
		socklen_t len;
		char err[ERRBUF_LEN];

		if (parse_sockaddr(o->addr, &ss, &len, err, sizeof(err)))
			return usage_error("%s", err);
	}
	if (o->role == ROLE_RECV && (tx_set || rec_set || o->n_ccs_at || o->corrupt_at >= 0 ||
				     o->malformed || o->sport || o->n_pause_at))
		return usage_error("%s", "--tx-mode/--record-size/--ccs-at/--corrupt-at/--malformed/--sport/"
				   "--pause-at are send options");
	if (o->n_pause_at && o->flows > 1)
		return usage_error("%s", "--pause-at needs --flows 1 (one stream to hold)");
	if (o->role == ROLE_SEND && (rx_set || o->rx_delay_ms || read_delay_set || o->expect_errno))
		return usage_error("%s", "--rx-mode/--rx-delay/--read-delay-us/--expect-error are recv options");
	if (o->rx_delay_ms && o->rx_mode != RX_MANUAL && o->rx_mode != RX_SIM)
		return usage_error("%s", "--rx-delay needs --rx-mode manual or sim");
	if (o->n_ccs_at && o->tx_mode == TX_USER)
		return usage_error("%s", "--ccs-at needs --tx-mode ktls or sim (OpenSSL cannot send a bare type-20 record)");
	if (o->malformed && o->tx_mode != TX_SIM)
		return usage_error("%s", "--malformed needs --tx-mode sim (kTLS TX and OpenSSL seal every byte "
				   "written, so a raw malformed record cannot go through them)");
	if (o->tls13 && !o->cipher->openssl_name13)
		return usage_error("--tls13 does not support --cipher %s (aes128gcm, aes256gcm or chacha20: "
				   "TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256)",
				   o->cipher->name);
	if (o->tls13 && o->malformed)
		return usage_error("%s", "--malformed is TLS 1.2 only (its framing limits and errnos are 1.2's): "
				   "not with --tls13");
	if (o->role == ROLE_RECV && o->ku_kind)
		return usage_error("%s", "--key-update is a send option (a TLS 1.3 receiver always follows KeyUpdates)");
	if (o->role == ROLE_SEND && (o->ku_wrong_at || o->ku_lazy))
		return usage_error("%s", "--key-update-wrong-key/--key-update-lazy are recv options");
	if ((o->ku_kind || o->ku_wrong_at || o->ku_lazy) && !o->tls13)
		return usage_error("%s", "--key-update* need --tls13 (KeyUpdate is TLS 1.3's rekey)");
	if (o->ku_wrong_at && o->rx_mode != RX_MANUAL && o->rx_mode != RX_SIM)
		return usage_error("%s", "--key-update-wrong-key needs --rx-mode manual or sim (OpenSSL derives its own keys)");
	if (o->ku_lazy && o->rx_mode != RX_MANUAL)
		return usage_error("%s", "--key-update-lazy needs --rx-mode manual (it waits for the kernel's EKEYEXPIRED)");
	if (o->sport && o->flows > 1)
		return usage_error("%s", "--sport needs --flows 1 (one local port is one connection)");
	if (o->seed_keys_set) {
		if (o->role == ROLE_SEND && !tx_set)
			o->tx_mode = TX_KTLS;
		if (o->tls13)
			return usage_error("%s", "--seed-keys is TLS 1.2 only: not with --tls13");
		if (o->cipher->id != CIPHER_AES128GCM && o->cipher->id != CIPHER_AES256GCM)
			return usage_error("--seed-keys supports --cipher aes128gcm or aes256gcm, not %s",
					   o->cipher->name);
		if (o->role == ROLE_RECV && o->rx_mode != RX_MANUAL && o->rx_mode != RX_SIM)
			return usage_error("--seed-keys needs --rx-mode manual or sim (there is no OpenSSL session "
					   "for rx-mode %s)", rx_mode_names[o->rx_mode]);
		if (o->role == ROLE_SEND && o->tx_mode == TX_USER)
			return usage_error("%s", "--seed-keys needs --tx-mode ktls or sim (there is no OpenSSL "
					   "session for tx-mode user)");
		if (o->n_ccs_at || o->malformed || o->sport || o->rx_delay_ms || read_delay_set || o->expect_errno ||
		    o->n_pause_at)
			return usage_error("%s", "--ccs-at/--malformed/--sport/--rx-delay/--read-delay-us/--expect-error/"
					   "--pause-at are not supported with --seed-keys");
	}
	return 0;
}
