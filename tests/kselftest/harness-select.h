/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run one test of a kselftest harness binary: KSFT_ONLY=fixture.variant.test
 * (the name the harness prints, e.g. tls.12_aes_gcm.nonblocking or
 * global.non_established). The 6.1 harness has no -r/-t/-v filters, and
 * tests/kselftest/guest.sh reruns single tests to tell a timing-sensitive
 * test from a NIC failure.
 *
 * build.sh replaces tls.c's last line, TEST_HARNESS_MAIN, by
 *	#include "harness-select.h"
 *	TEST_HARNESS_MAIN
 *	#undef main
 *	KSFT_SELECT_MAIN
 * so the harness's main() is renamed and called from ours once the
 * fixture, variant and test lists hold only the chosen test. Only the list
 * fields every harness version since 5.x has are touched (name, tests,
 * variant, prev, next). Without KSFT_ONLY nothing changes.
 */
#ifndef INNOVA_HARNESS_SELECT_H
#define INNOVA_HARNESS_SELECT_H

static void ksft_select_only(const char *only)
{
	struct __fixture_metadata *f;
	struct __fixture_variant_metadata *v;
	struct __test_metadata *t;
	char name[512];

	for (f = __fixture_list; f; f = f->next) {
		v = f->variant;
		do {
			for (t = f->tests; t; t = t->next) {
				snprintf(name, sizeof(name), "%s%s%s.%s", f->name,
					 v && v->name[0] ? "." : "", v ? v->name : "",
					 t->name);
				if (strcmp(name, only))
					continue;
				__fixture_list = f;
				f->prev = f;
				f->next = NULL;
				f->tests = t;
				t->prev = t;
				t->next = NULL;
				if (v) {
					f->variant = v;
					v->prev = v;
					v->next = NULL;
				}
				return;
			}
		} while (v && (v = v->next));
	}
	fprintf(stderr, "KSFT_ONLY=%s: no such test\n", only);
	exit(KSFT_FAIL);
}

#define main ksft_harness_main
#define KSFT_SELECT_MAIN						\
	int main(int argc, char **argv)					\
	{								\
		const char *only = getenv("KSFT_ONLY");			\
									\
		if (only && *only)					\
			ksft_select_only(only);				\
		return ksft_harness_main(argc, argv);			\
	}
#endif /* INNOVA_HARNESS_SELECT_H */
