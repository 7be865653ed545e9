#!/bin/sh
# Checks a received hook (spec 5.2) with curl, jq and openssl; exit 0 = accept, otherwise answer 400.
# Usage: verify-hook.sh BODY_FILE SIGNATURE CERT_URL PLATFORM_DOMAIN [CA_FILE]
# Stricter than spec 5.2 about the URL's spelling: only the exact form https://<name>.PLATFORM_DOMAIN/platform/hooks/certificate/
# (the one the platform sends) passes; upper-case scheme or host, :443, doubled slashes and dot segments, which spec 5.2
# and the kits accept, are refused here.
# CERT_DOC (a file) replaces the download and NOW_MS (epoch milliseconds) the clock, for tests.
set -eu
body=$1 signature=$2 url=$3 domain=$4 ca=${5:-}
fail() { echo "refused: $1" >&2; exit 1; }
printf "%s\n" "$url" | grep -Eq "^https://([a-z0-9-]+\.)+$(echo "$domain" | sed 's/\./\\./g')/platform/hooks/certificate/\$" \
  || fail "certificate URL not allowed"
host=$(printf "%s\n" "$url" | cut -d/ -f3) dir=$(mktemp -d) now_ms=${NOW_MS:-$(date +%s%3N)}
now=$((now_ms / 1000))
trap 'rm -rf "$dir"' EXIT
doc=${CERT_DOC:-$dir/doc.json}
[ -n "${CERT_DOC:-}" ] || curl -sSf --proto =https --max-redirs 0 --max-filesize 65536 -m 5 -o "$doc" "$url" \
  || fail "certificate download failed"
jq -er '.certificate | strings' "$doc" >"$dir/chain.pem" 2>/dev/null || fail "no certificate in the document"
openssl x509 -in "$dir/chain.pem" -out "$dir/leaf.pem" 2>/dev/null || fail "certificate malformed"
# The host must be one of its DNS SANs: openssl's -verify_hostname alone would accept the subject CN when it has none.
openssl x509 -in "$dir/leaf.pem" -noout -ext subjectAltName 2>/dev/null | tr ',' '\n' | sed -n 's/^ *DNS://p' \
  | grep -Fixq -e "$host" -e "*.${host#*.}" || fail "$host is not among the certificate's DNS names (SANs)"
openssl verify -auth_level 2 -attime "$now" -verify_hostname "$host" -purpose sslserver ${ca:+-CAfile "$ca"} \
  -untrusted "$dir/chain.pem" "$dir/leaf.pem" >/dev/null 2>&1 || fail "certificate not valid for $host"
openssl x509 -in "$dir/leaf.pem" -noout -pubkey >"$dir/pub.pem"
printf '%s' "$signature" | openssl base64 -d -A >"$dir/sig" 2>/dev/null || fail "signature not Base64"
openssl dgst -sha256 -verify "$dir/pub.pem" -signature "$dir/sig" "$body" >/dev/null 2>&1 || fail "signature mismatch"
ts=$(jq -er '.signature_timestamp | strings' "$body" 2>/dev/null) || fail "no signature_timestamp"
printf "%s\n" "$ts" | grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$' || fail "timestamp malformed"
# exact to the millisecond: 120.001 s is outside
skew=$(( now_ms - $(date -u -d "$ts" +%s) * 1000 )); [ "${skew#-}" -le 120000 ] || fail "timestamp outside 120 s"
echo "verified"
