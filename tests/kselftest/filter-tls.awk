# Cut the kernel's tools/testing/selftests/net/tls.c down to what the
# Innova NIC can offload on receive, at build time (the 6.1 harness has no
# -f/-v/-t filters, and a SKIP in its fixture setup still runs the test
# body with zeroed fds, so variants cannot be skipped at run time).
#   awk [-v TLS13=1] [-v REKEY=1] -f filter-tls.awk tls.c > tls_innova.c   (dropped items on stderr)
# TLS13=1 (a kernel with the TLS 1.3 series, KVER=6.12-tls13) keeps the
# TLS 1.3 AES-GCM-128/256 variants as well; REKEY=1 (a tls.c whose
# tls_crypto_info_init() takes a key: the lane's own tree, with the
# series' patch 7) keeps the rekey tests.
# The file is read as top-level chunks (a function, a fixture or variant
# block, a declaration, with the comment right above it). Dropped:
#  - FIXTURE_VARIANT_ADD blocks other than TLS 1.2 with AES-GCM-128/256
#    (tls_err's variants name no cipher: they use AES-GCM-128), and nopad;
#  - TEST/TEST_F bodies that name TLS_1_3_VERSION: the TLS 1.3 only tests
#    (no_pad, recvmsg_nopad_retry_iov) and the rekey tests (TLS 1.3 key
#    update), whose RX is never offloaded. Debian's 6.1 and 6.12 copies
#    carry rekey tests backported without the 4-argument
#    tls_crypto_info_init() they call, and 6.1 kernels have no TLS rekey:
#    as shipped they do not build. A 4-argument call drops a test too;
#  - static helpers and variables that nothing kept uses any more (the key
#    update helpers), so the file builds without unused warnings.
function flush() {
	if (chunk == "")
		return
	n++
	text[n] = chunk
	chunk = ""
}
function body_drop(t) {
	if (t ~ /^[^\n]*FIXTURE_VARIANT_ADD\(/ || t ~ /\nFIXTURE_VARIANT_ADD\(/) {
		# TLS13=1: a kernel with the project's TLS 1.3 series offloads
		# TLS 1.3 AES-GCM too
		if (t !~ /TLS_1_2_VERSION/ && !(TLS13 && t ~ /TLS_1_3_VERSION/))
			return TLS13 ? "not TLS 1.2 or 1.3" : "not TLS 1.2"
		if (t ~ /\.cipher_type[ \t]*=/ &&
		    t !~ /\.cipher_type[ \t]*=[ \t]*TLS_CIPHER_AES_GCM_(128|256)[ \t]*,/)
			return "cipher not AES-GCM-128/256"
		if (t ~ /\.nopad[ \t]*=[ \t]*true/)
			return "nopad (TLS 1.3)"
		return ""
	}
	if (t ~ /(^|\n)TEST(_F)?\(/) {
		# REKEY=1: the tree's tls_crypto_info_init() takes a key (the
		# series' patch 7) and its kernel has TLS 1.3 KeyUpdate: the
		# rekey tests build and run
		if (REKEY && title(t) ~ /rekey/)
			return ""
		if (t ~ /TLS_1_3_VERSION/)
			return "TLS 1.3 only / rekey"
		if (!REKEY && t ~ /tls_crypto_info_init\([^;)]*,[^;)]*,[^;)]*,[^;)]*\)/)
			return "4-argument tls_crypto_info_init (rekey)"
	}
	return ""
}
function title(t,   l) {
	l = t
	while (l ~ /^(\/\*|\*|[ \t]*\*|\n)/ && index(l, "\n"))
		l = substr(l, index(l, "\n") + 1)
	sub(/\n.*/, "", l)
	return l
}
# The name a static definition defines: the first identifier followed by
# "(", "[", "=" or ";" once comments are gone ("" for constructors).
function static_name(t,   s) {
	s = t
	gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, " ", s)
	gsub(/\n/, " ", s)
	if (s !~ /^[ \t]*static[ \t]/ || s ~ /__attribute__/)
		return ""
	if (!match(s, /[A-Za-z_][A-Za-z0-9_]*[ \t]*[(\[=;]/))
		return ""
	s = substr(s, RSTART, RLENGTH)
	sub(/[ \t]*[(\[=;]$/, "", s)
	return s
}
{
	line = $0
	chunk = chunk line "\n"
	o = gsub(/\{/, "{", line)
	c = gsub(/\}/, "}", line)
	depth += o - c
	if (depth == 0 && (o + c > 0 || $0 ~ /;[ \t]*$/ || $0 ~ /^[ \t]*$/ || $0 ~ /^#/))
		flush()
}
END {
	flush()
	for (i = 1; i <= n; i++) {
		why = body_drop(text[i])
		if (why != "") {
			drop[i] = 1
			printf "filter-tls: dropped %s: %s\n", title(text[i]), why > "/dev/stderr"
		}
	}
	# static definitions nothing kept refers to any more, to a fixpoint
	do {
		changed = 0
		for (i = 1; i <= n; i++) {
			if (drop[i] || (name = static_name(text[i])) == "")
				continue
			re = "(^|[^A-Za-z0-9_])" name "([^A-Za-z0-9_]|$)"
			used = 0
			for (j = 1; j <= n && !used; j++)
				if (j != i && !drop[j] && text[j] ~ re)
					used = 1
			if (!used) {
				drop[i] = 1; changed = 1
				printf "filter-tls: dropped %s: unused once the above are gone\n", name > "/dev/stderr"
			}
		}
	} while (changed)
	for (i = 1; i <= n; i++)
		if (!drop[i])
			printf "%s", text[i]
}
