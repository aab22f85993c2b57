// SPDX-License-Identifier: GPL-2.0
/* The one-line JSON report, /proc/net/tls_stat deltas, errno names, logging. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include "innova_tls.h"

double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *errno_name(int e)
{
	/* glibc >= 2.32 knows every name; keep a fallback for odd libcs. */
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

void err_errno(char *err, size_t errlen, const char *what, int e)
{
	snprintf(err, errlen, "%s: %s (%s)", what, errno_name(e), strerror(e));
}

void logf_(const struct options *o, const char *fmt, ...)
{
	va_list ap;

	if (o && o->quiet)
		return;
	va_start(ap, fmt);
	fputs("innova-tls: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/*
 * /proc/net/tls_stat is per network namespace; absent without the tls module.
 * INNOVA_TLS_STAT overrides the path (used by selftest.sh to check the format).
 */
void tls_stat_read(struct tls_stat *s)
{
	const char *path = getenv("INNOVA_TLS_STAT");
	FILE *f = fopen(path && *path ? path : "/proc/net/tls_stat", "r");
	char name[64];
	unsigned long long v;

	memset(s, 0, sizeof(*s));
	if (!f)
		return;
	s->present = true;
	while (s->n < TLS_STAT_MAX && fscanf(f, "%63s %llu", name, &v) == 2) {
		snprintf(s->name[s->n], sizeof(s->name[0]), "%s", name);
		s->val[s->n++] = v;
	}
	fclose(f);
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_tls_stat(FILE *f, const struct tls_stat *b, const struct tls_stat *a)
{
	if (!b->present || !a->present) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	for (unsigned i = 0; i < a->n; i++) {
		long long before = 0;

		for (unsigned j = 0; j < b->n; j++)
			if (!strcmp(b->name[j], a->name[i]))
				before = (long long)b->val[j];
		/* Gauges (TlsCurr*) may go down: signed delta. */
		fprintf(f, "%s\"%s\":%lld", i ? "," : "", a->name[i], (long long)a->val[i] - before);
	}
	fputc('}', f);
}

void report_json(FILE *f, const struct run_result *r)
{
	fprintf(f, "{\"role\":\"%s\",\"ok\":%s,\"flows\":%u,\"bytes\":%llu,\"records\":%llu,"
		"\"rekey_markers\":%llu,\"seconds\":%.6f,\"cpu_user\":%.6f,\"cpu_sys\":%.6f,",
		r->role, r->ok ? "true" : "false", r->flows, (unsigned long long)r->bytes,
		(unsigned long long)r->records, (unsigned long long)r->rekey_markers,
		r->seconds, r->cpu_user, r->cpu_sys);
	fprintf(f, "\"%s\":\"%s\",\"cipher\":\"%s\",\"tls_version\":\"%s\",\"ktls\":%s,\"bad_offset\":",
		r->mode_key, r->mode, r->cipher, r->tls_version ? r->tls_version : "1.2",
		r->ktls < 0 ? "null" : r->ktls ? "true" : "false");
	if (r->bad_offset >= 0)
		fprintf(f, "%lld", (long long)r->bad_offset);
	else
		fputs("null", f);
	/* Only runs that use these options carry the keys, so other reports stay as they were. */
	if (r->malformed)
		fprintf(f, ",\"malformed\":\"%s\",\"malformed_at\":%llu", r->malformed,
			(unsigned long long)r->malformed_at);
	if (r->expect_errno)
		fprintf(f, ",\"expect_error\":\"%s\"", errno_name(r->expect_errno));
	if (r->error_errno)
		fprintf(f, ",\"error_errno\":\"%s\"", errno_name(r->error_errno));
	else if (r->expect_errno)
		fputs(",\"error_errno\":null", f);
	if (r->key_source)
		fprintf(f, ",\"key_source\":\"%s\",\"connect_seconds\":%.6f", r->key_source,
			r->connect_seconds);
	if (r->ku_send) {
		fprintf(f, ",\"key_updates_sent\":%llu,\"key_update_tx\":\"%s\",\"key_update_note\":",
			(unsigned long long)r->ku_sent, r->ku_tx ? r->ku_tx : "none");
		if (r->ku_note)
			json_string(f, r->ku_note);
		else
			fputs("null", f);
	}
	if (r->ku_recv)
		fprintf(f, ",\"key_updates_received\":%llu,\"rekeys_installed\":%llu,\"key_expired_seen\":%llu",
			(unsigned long long)r->ku_received, (unsigned long long)r->rekeys_installed,
			(unsigned long long)r->key_expired_seen);
	if (r->ku_wrong_at)
		fprintf(f, ",\"key_update_wrong_key\":%llu", (unsigned long long)r->ku_wrong_at);
	fputs(",\"tls_stat\":", f);
	json_tls_stat(f, &r->before, &r->after);
	fputs(",\"error\":", f);
	if (r->error)
		json_string(f, r->error);
	else
		fputs("null", f);
	fputs("}\n", f);
	fflush(f);
}

/*
 * Exactly one JSON line per run: whoever reports first (normal end or the
 * watchdog) wins. The watchdog exists so a stuck peer, handshake or kernel
 * path can never hang a test past --timeout.
 */
static atomic_flag reported = ATOMIC_FLAG_INIT;
static struct run_result watchdog_result;
static unsigned watchdog_sec;

bool report_once(const struct run_result *r)
{
	if (atomic_flag_test_and_set(&reported))
		return false;
	report_json(stdout, r);
	return true;
}

static void *watchdog(void *arg)
{
	static char msg[128];
	(void)arg;
	sleep(watchdog_sec);
	snprintf(msg, sizeof(msg), "timeout: run did not finish within --timeout %u s (ETIMEDOUT)", watchdog_sec);
	watchdog_result.error = msg;
	watchdog_result.ok = false;
	watchdog_result.seconds = watchdog_sec;
	cpu_times(&watchdog_result.cpu_user, &watchdog_result.cpu_sys);
	tls_stat_read(&watchdog_result.after);
	if (report_once(&watchdog_result)) {
		fprintf(stderr, "innova-tls: %s\n", msg);
		_exit(3);
	}
	return NULL;
}

void watchdog_start(const struct run_result *tmpl, unsigned timeout_sec)
{
	pthread_t t;

	watchdog_result = *tmpl;
	watchdog_sec = timeout_sec;
	if (!pthread_create(&t, NULL, watchdog, NULL))
		pthread_detach(t);
}

void cpu_times(double *user, double *sys)
{
	struct rusage ru;

	*user = *sys = 0;
	if (!getrusage(RUSAGE_SELF, &ru)) {
		*user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
		*sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	}
}
