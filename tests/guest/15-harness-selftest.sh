# innova-tls's own smoke test, now on a kernel with kTLS: manual and OpenSSL
# kTLS receive modes, kTLS send, and the bad-input cases (wrong key length,
# unknown cipher, TLS_RX twice -> EBUSY, TLS_RX before the ULP) over loopback.
# The guest has kTLS (tls.ko, or built in), so a kTLS case that skips is a
# failure here, not a pass: selftest.sh skips them where kTLS is missing.
modprobe tls || die "modprobe tls"
/innova/bin/selftest.sh /innova/bin/innova-tls > /tmp/selftest.tap 2>&1
rc=$?
grep -E '^not ok|SKIP' /tmp/selftest.tap | sed 's/^/# /'
okn=$(grep -c '^ok' /tmp/selftest.tap)
log "$okn ok, $(grep -c '^not ok' /tmp/selftest.tap) not ok, $(grep -c '# SKIP' /tmp/selftest.tap) skipped"
[ $rc -eq 0 ] || die "selftest.sh failed"
# (the reason after "# SKIP" names kTLS or its ULP: "no kTLS", "tls ULP
# not registered here"; "no python3" for a JSON check is not kTLS's)
ktls_skips=$(sed -n 's/.*# SKIP//p' /tmp/selftest.tap | grep -ic 'tls')
[ "$ktls_skips" = 0 ] || die "$ktls_skips kTLS case(s) skipped on a kernel with kTLS"
[ "$okn" -gt 0 ] || die "selftest.sh ran no case"
passed "innova-tls selftest: $okn cases ok, no kTLS case skipped"
