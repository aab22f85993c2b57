// SPDX-License-Identifier: GPL-2.0
/* innova-tls entry point: parse arguments, dispatch to the role. */
#include <signal.h>
#include "innova_tls.h"

int main(int argc, char **argv)
{
	struct options o;
	int rc = parse_args(argc, argv, &o);

	if (rc == 1)
		return 0;           /* --help */
	if (rc)
		return 2;
	/* Peer resets must surface as EPIPE/ECONNRESET in the report, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	switch (o.role) {
	case ROLE_RECV:
		return o.seed_keys_set ? run_recv_seeded(&o) : run_recv(&o);
	case ROLE_SEND:
		return o.seed_keys_set ? run_send_seeded(&o) : run_send(&o);
	case ROLE_SELFTEST_ERRORS:
		return run_selftest_errors();
	case ROLE_SELFTEST_KEYUPDATE:
		return run_selftest_keyupdate();
	default:
		return 2;
	}
}
