#!/bin/sh
# Signs a token request (spec 4.1 / 5.1) with plain openssl and prints the curl command that sends it.
# Usage: sign-token-request.sh KEY.pem CLIENT_ID FQDN PLATFORM_URL (--uuid UUID | --chain-url URL)
# KEY.pem is the client's RSA key (SHA1withRSA) or EC key (SHA1withECDSA, DER): openssl picks by key type.
# Signature-256 carries SHA256withRSA / SHA256withECDSA over the same bytes (the platform's extension of spec 5.1).
# BODY_FILE and TIMESTAMP may be set to sign a given body or at a given time (tests do).
set -eu
[ $# -eq 6 ] || { echo "usage: $0 KEY.pem CLIENT_ID FQDN PLATFORM_URL --uuid UUID|--chain-url URL" >&2; exit 2; }
key=$1 client_id=$2 fqdn=$3 platform=$4
case $5 in
  --uuid) cert_header="SignatureCertUUID: $6" ;;
  --chain-url) cert_header="SignatureCertChainUrl: $6" ;;
  *) echo "expected --uuid or --chain-url, not $5" >&2; exit 2 ;;
esac
body=${BODY_FILE:-$(mktemp)}
if [ -z "${BODY_FILE:-}" ]; then
  ts=${TIMESTAMP:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}
  # Exactly these bytes are signed and sent (no newline at the end): curl --data-binary keeps them as they are.
  printf '{"client_id":"%s","fqdn":"%s","timestamp":"%s"}' "$client_id" "$fqdn" "$ts" >"$body"
fi
signature=$(openssl dgst -sha1 -sign "$key" "$body" | openssl base64 -A)
signature256=$(openssl dgst -sha256 -sign "$key" "$body" | openssl base64 -A)
echo "curl -sS --fail-with-body -X POST '$platform/platform/management/token/issue/' \\"
echo "  -H 'Content-Type: application/json' -H 'Signature: $signature' -H 'Signature-256: $signature256' \\"
echo "  -H '$cert_header' --data-binary @$body"
