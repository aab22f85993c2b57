# innova-tls's own smoke test, now on a kernel with kTLS: manual and OpenSSL
# kTLS receive modes, kTLS send, and the bad-input cases (wrong key length,
# unknown cipher, TLS_RX twice -> EBUSY, TLS_RX before the ULP) over loopback.
modprobe tls || die "modprobe tls"
/innova/bin/selftest.sh /innova/bin/innova-tls > /tmp/selftest.tap 2>&1
rc=$?
grep -E '^not ok|SKIP' /tmp/selftest.tap | sed 's/^/# /'
log "$(grep -c '^ok' /tmp/selftest.tap) ok, $(grep -c '^not ok' /tmp/selftest.tap) not ok"
[ $rc -eq 0 ] || die "selftest.sh failed"
