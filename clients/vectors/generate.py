#!/usr/bin/env python3
"""Regenerates the shared test vectors of the integrator kits (see README.md in this folder).

Run it from anywhere with Python 3.11+ and `cryptography`:

    python3 clients/vectors/generate.py

Everything is written next to this file. The output is deterministic except the key material and the signatures made
with it (new keys on every run), so a regeneration changes the PEM files, the served documents and the signature
values, and nothing else. The output is checked in; CI never regenerates it. After a regeneration run every kit's
vector tests (crypto-common's KitVectorsTest, the Python and Node kits' tests) before committing.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

OUT = Path(__file__).resolve().parent

PLATFORM_DOMAINS = ["platform.test", "staging-platform.test"]
HOOK_HOST = "hooks.platform.test"
HOOK_PATH = "/platform/hooks/certificate/"
HOOK_URL = f"https://{HOOK_HOST}{HOOK_PATH}"
CLIENT_FQDN = "client.example.test"
TOLERANCE = 120

# Every hook case is verified at this moment unless it says otherwise.
NOW = dt.datetime(2026, 6, 1, 12, 0, 30, tzinfo=dt.timezone.utc)
# The validity of every certificate that is meant to be valid: a window that contains every case's `now`.
VALID_FROM = dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc)
VALID_TO = dt.datetime(2045, 1, 1, tzinfo=dt.timezone.utc)


def iso(t: dt.datetime) -> str:
    return t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# ----------------------------------------------------------------------------------------------------------- keys
def rsa_key(bits: int = 2048) -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=bits)


def ec_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def key_pem(key: Any) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


# --------------------------------------------------------------------------------------------------- certificates
def serial_for(label: str) -> int:
    """A positive serial derived from the certificate's role, so regenerations keep serials stable."""
    return int.from_bytes(hashlib.sha256(label.encode()).digest()[:16], "big") >> 1 or 1


def name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Platform Kit Vectors")])


def ca_cert(label: str, subject: str, key: Any, issuer: x509.Certificate | None, issuer_key: Any,
            path_length: int | None) -> x509.Certificate:
    builder = (x509.CertificateBuilder()
               .subject_name(name(subject))
               .issuer_name(issuer.subject if issuer else name(subject))
               .public_key(key.public_key())
               .serial_number(serial_for(label))
               .not_valid_before(VALID_FROM)
               .not_valid_after(VALID_TO)
               .add_extension(x509.BasicConstraints(ca=True, path_length=path_length), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                            data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                            crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False))
    signer_pub = (issuer_key if issuer else key).public_key()
    builder = builder.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(signer_pub), critical=False)
    return builder.sign(issuer_key if issuer else key, hashes.SHA256())


def leaf_cert(label: str, public_key: Any, dns_names: list[str], issuer: x509.Certificate | None, issuer_key: Any,
              not_before: dt.datetime = VALID_FROM, not_after: dt.datetime = VALID_TO,
              purposes: list[x509.ObjectIdentifier] | None = None) -> x509.Certificate:
    """An end-entity certificate; self-signed when issuer is None (issuer_key is then the leaf's own key)."""
    is_rsa = isinstance(public_key, rsa.RSAPublicKey)
    purposes = purposes or [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
    subject = name(dns_names[0])
    builder = (x509.CertificateBuilder()
               .subject_name(subject)
               .issuer_name(issuer.subject if issuer else subject)
               .public_key(public_key)
               .serial_number(serial_for(label))
               .not_valid_before(not_before)
               .not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False,
                                            key_encipherment=is_rsa, data_encipherment=False, key_agreement=False,
                                            key_cert_sign=False, crl_sign=False, encipher_only=False,
                                            decipher_only=False), critical=True)
               .add_extension(x509.ExtendedKeyUsage(purposes), critical=False)
               .add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in dns_names]), critical=False)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
               .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                   issuer_key.public_key()), critical=False))
    return builder.sign(issuer_key, hashes.SHA256())


def cert_pem(*certs: x509.Certificate) -> bytes:
    return b"".join(c.public_bytes(serialization.Encoding.PEM) for c in certs)


# ------------------------------------------------------------------------------------------------------- writing
def write(relative: str, data: bytes) -> str:
    path = OUT / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return relative


def write_json(relative: str, document: Any) -> None:
    write(relative, (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def serve_chain(file: str, *certs: x509.Certificate) -> str:
    """The certificate document a platform host answers with: {"certificate": "<PEM chain>"}."""
    return write(f"served/{file}", json.dumps({"certificate": cert_pem(*certs).decode("ascii")}).encode("ascii"))


# ---------------------------------------------------------------------------------------------------------- hooks
def hook_body(signature_timestamp: Any, user_id: str = "u42", text: str = "hi") -> bytes:
    """A spec 2.2 hook body, compact, with signature_timestamp last (a JSON value given as Python; None omits it)."""
    message_body = json.dumps({"text": text, "type": "TEXT", "data": {"quick_replies": []}},
                              separators=(",", ":"), ensure_ascii=False)
    fields: dict[str, Any] = {"user_id": user_id, "conversation_number": 1, "message_body": message_body,
                              "message_id": 123, "sender": "user", "timestamp": "2026-06-01T11:59:58.000Z",
                              "metadata": {}}
    if signature_timestamp is not None:
        fields["signature_timestamp"] = signature_timestamp
    return json.dumps(fields, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def hook_sign(key: rsa.RSAPrivateKey, body: bytes) -> str:
    return b64(key.sign(body, padding.PKCS1v15(), hashes.SHA256()))


def main() -> None:
    for folder in ("pki", "served"):
        shutil.rmtree(OUT / folder, ignore_errors=True)

    # --- the platform's PKI: root -> intermediate -> hooks.platform.test
    root_key, inter_key = ec_key(), ec_key()
    root = ca_cert("root", "Kit Vectors Root CA", root_key, None, None, None)
    inter = ca_cert("intermediate", "Kit Vectors Intermediate CA", inter_key, root, root_key, 0)
    write("pki/root.pem", cert_pem(root))
    write("pki/intermediate.pem", cert_pem(inter))

    hook_key, rotated_key, stranger_key = rsa_key(), rsa_key(), rsa_key()
    write("pki/hook.key.pem", key_pem(hook_key))
    write("pki/hook-rotated.key.pem", key_pem(rotated_key))
    write("pki/stranger.key.pem", key_pem(stranger_key))

    def issued(label: str, public_key: Any, dns: list[str] | None = None, **kw: Any) -> x509.Certificate:
        return leaf_cert(label, public_key, dns or [HOOK_HOST], inter, inter_key, **kw)

    hook_leaf = issued("hook", hook_key.public_key())
    rotated_leaf = issued("hook-rotated", rotated_key.public_key())
    write("pki/hook-chain.pem", cert_pem(hook_leaf, inter))
    write("pki/hook-chain-rotated.pem", cert_pem(rotated_leaf, inter))

    other_root_key, other_inter_key = ec_key(), ec_key()
    other_root = ca_cert("unknown-root", "Unknown Root CA", other_root_key, None, None, None)
    other_inter = ca_cert("unknown-intermediate", "Unknown Intermediate CA", other_inter_key, other_root,
                          other_root_key, 0)
    write("pki/unknown-root.pem", cert_pem(other_root))

    ec_leaf_key = ec_key()
    weak_key = rsa_key(1024)
    variants = {
        "expired": issued("hook-expired", hook_key.public_key(), not_before=VALID_FROM,
                          not_after=NOW - dt.timedelta(seconds=1)),
        "expires-at-now": issued("hook-expires-at-now", hook_key.public_key(), not_before=VALID_FROM, not_after=NOW),
        "not-yet-valid": issued("hook-not-yet-valid", hook_key.public_key(), not_before=NOW + dt.timedelta(seconds=1),
                                not_after=VALID_TO),
        "valid-from-now": issued("hook-valid-from-now", hook_key.public_key(), not_before=NOW, not_after=VALID_TO),
        "wrong-san": issued("hook-wrong-san", hook_key.public_key(), ["other.platform.test"]),
        "wildcard": issued("hook-wildcard", hook_key.public_key(), ["*.platform.test"]),
        "wildcard-too-deep": issued("hook-wildcard-deep", hook_key.public_key(), ["*.test"]),
        "ec": issued("hook-ec", ec_leaf_key.public_key()),
        "rsa1024": issued("hook-rsa1024", weak_key.public_key()),
        "code-signing": issued("hook-code-signing", hook_key.public_key(), purposes=[ExtendedKeyUsageOID.CODE_SIGNING]),
    }
    for label, cert in variants.items():
        write(f"pki/hook-{label}-chain.pem", cert_pem(cert, inter))
    unknown_leaf = leaf_cert("hook-unknown-root", hook_key.public_key(), [HOOK_HOST], other_inter, other_inter_key)
    write("pki/hook-unknown-root-chain.pem", cert_pem(unknown_leaf, other_inter))
    self_signed = leaf_cert("hook-self-signed", hook_key.public_key(), [HOOK_HOST], None, hook_key)
    write("pki/hook-self-signed.pem", cert_pem(self_signed))

    served = {
        "good": serve_chain("hook-chain.json", hook_leaf, inter),
        "rotated": serve_chain("hook-chain-rotated.json", rotated_leaf, inter),
        "leaf-only": serve_chain("hook-leaf-only.json", hook_leaf),
        "with-root": serve_chain("hook-chain-with-root.json", hook_leaf, inter, root),
        "unknown-root": serve_chain("hook-unknown-root.json", unknown_leaf, other_inter),
        "self-signed": serve_chain("hook-self-signed.json", self_signed),
    }
    for label, cert in variants.items():
        served[label] = serve_chain(f"hook-{label}.json", cert, inter)
    staging_leaf = issued("hook-staging", hook_key.public_key(), ["hooks.staging-platform.test"])
    write("pki/hook-staging-chain.pem", cert_pem(staging_leaf, inter))
    served["staging"] = serve_chain("hook-staging.json", staging_leaf, inter)
    leaf_pem = cert_pem(hook_leaf).decode("ascii")
    served["no-certificate"] = write("served/no-certificate.json", json.dumps({"cert": leaf_pem}).encode())
    served["certificate-not-string"] = write("served/certificate-not-string.json", b'{"certificate":42}')
    served["not-json"] = write("served/not-json.txt", b"<html><body>Not here</body></html>\n")
    served["garbage-pem"] = write("served/garbage-pem.json", json.dumps(
        {"certificate": "-----BEGIN CERTIFICATE-----\nZ2FyYmFnZSwgbm90IERFUg==\n-----END CERTIFICATE-----\n"}).encode())
    served["private-key"] = write("served/private-key-not-certificate.json", json.dumps(
        {"certificate": key_pem(ec_key()).decode("ascii")}).encode())
    served["duplicate-certificate"] = write("served/duplicate-certificate.json", (
        '{"certificate":"x","certificate":' + json.dumps(cert_pem(hook_leaf, inter).decode("ascii")) + "}").encode())
    served["extra-fields"] = write("served/hook-chain-extra-fields.json", json.dumps(
        {"certificate": cert_pem(hook_leaf, inter).decode("ascii"), "expires": "later"}).encode())

    cases: list[dict[str, Any]] = []

    def case(case_name: str, description: str, expected: str, fetches: int, *, body: bytes | None = None,
             signature: str | None | bool = True, url: str | None = HOOK_URL, serve: str | None = "good",
             now: dt.datetime | str = NOW, prime: dict[str, Any] | None = None, key: Any = None,
             serve_url: str = HOOK_URL) -> None:
        """signature=True signs `body` with `key` (default the platform's key); a string is used as is; None is
        a missing header. `serve` names the document the normalised HOOK_URL answers with (None: nothing)."""
        now_text = now if isinstance(now, str) else iso(now)
        if body is None:
            body = hook_body(now_text[:19] + "Z")
        if signature is True:
            signature = hook_sign(key or hook_key, body)
        cases.append({
            "name": case_name,
            "description": description,
            "now": now_text,
            "headers": {"signature": signature, "signature-certificate-url": url},
            "body_b64": b64(body),
            "served": {serve_url: served[serve]} if serve else {},
            "prime": prime,
            "expected": expected,
            "fetches": fetches,
        })

    def ts(offset: int) -> str:
        return iso(NOW + dt.timedelta(seconds=offset))

    good_body = hook_body(iso(NOW))
    good_sig = hook_sign(hook_key, good_body)

    # --- accepted hooks
    case("good", "A hook signed by the platform's key, certificate URL in its plain form.", "OK", 1,
         body=good_body, signature=good_sig)
    case("good-explicit-port-443", "The URL names port 443; the download goes to the normalised URL.", "OK", 1,
         url=f"https://{HOOK_HOST}:443{HOOK_PATH}")
    case("good-doubled-slash", "A doubled slash before the path is accepted after normalisation (spec 5.2 step 1).",
         "OK", 1, url=f"https://{HOOK_HOST}/{HOOK_PATH}")
    case("good-upper-case-scheme-and-host", "Scheme and host compare case-insensitively; the host is lower-cased.",
         "OK", 1, url=f"HTTPS://Hooks.Platform.TEST{HOOK_PATH}")
    case("good-dot-segments", "Dot-segments are removed before the path is compared.", "OK", 1,
         url=f"https://{HOOK_HOST}/platform/hooks/x/../certificate/")
    staging_url = f"https://hooks.staging-platform.test{HOOK_PATH}"
    case("good-staging-domain", "A subdomain of the second platform domain, with a leaf for that host.", "OK", 1,
         url=staging_url, serve="staging", serve_url=staging_url)
    case("good-non-ascii-body", "The body carries non-ASCII text (UTF-8); the signature covers its exact bytes.",
         "OK", 1, body=hook_body(iso(NOW), user_id="ü-42", text="Grüße, 日本 🙂"))
    case("good-chain-with-root", "The served chain includes the root after the intermediate.", "OK", 1,
         serve="with-root")
    case("good-document-extra-fields", "Fields beside 'certificate' in the served document are ignored.", "OK", 1,
         serve="extra-fields")
    case("good-wildcard-san", "The leaf names *.platform.test, which covers hooks.platform.test.", "OK", 1,
         serve="wildcard")
    case("good-leaf-expires-at-now", "The leaf's Not After is exactly `now`: still valid (inclusive).", "OK", 1,
         serve="expires-at-now")
    case("good-leaf-valid-from-now", "The leaf's Not Before is exactly `now`: valid.", "OK", 1,
         serve="valid-from-now")

    # --- the body and the signature
    tampered = bytearray(good_body)
    i = good_body.index(b'"u42"') + 3
    tampered[i] ^= 0x01  # "u42" -> "u43"
    case("tampered-body", "One byte of the good body flipped, the good signature kept.", "SIGNATURE_MISMATCH", 1,
         body=bytes(tampered), signature=good_sig)
    case("body-with-trailing-newline", "The good signature over the good body plus a newline: raw bytes differ.",
         "SIGNATURE_MISMATCH", 1, body=good_body + b"\n", signature=good_sig)
    case("body-re-serialised", "The good body parsed and pretty-printed again: same JSON, other bytes.",
         "SIGNATURE_MISMATCH", 1, body=json.dumps(json.loads(good_body), indent=2).encode(), signature=good_sig)
    case("wrong-key", "Signed by a key that is not the certificate's.", "SIGNATURE_MISMATCH", 1, key=stranger_key)
    case("sha1-instead-of-sha256", "Signed with SHA1withRSA by the right key; hooks are SHA256withRSA.",
         "SIGNATURE_MISMATCH", 1, signature=b64(hook_key.sign(good_body, padding.PKCS1v15(), hashes.SHA1())),
         body=good_body)
    case("signature-missing", "No signature header. The certificate is downloaded first (checks run in the"
         " spec's order: URL, certificate, signature, timestamp).", "SIGNATURE_MALFORMED", 1, signature=None)
    case("signature-empty", "An empty signature header.", "SIGNATURE_MALFORMED", 1, signature="")
    case("signature-unpadded", "The good signature without its '=' padding.", "SIGNATURE_MALFORMED", 1,
         body=good_body, signature=good_sig.rstrip("="))
    # the URL-safe alphabet: needs a signature with '+' or '/' in it
    urlsafe_body, n = good_body, 0
    urlsafe_sig = good_sig
    while "+" not in urlsafe_sig and "/" not in urlsafe_sig:
        n += 1
        urlsafe_body = hook_body(iso(NOW), user_id=f"u{42 + n}")
        urlsafe_sig = hook_sign(hook_key, urlsafe_body)
    case("signature-url-safe-alphabet", "The signature in the URL-safe Base64 alphabet ('-' and '_').",
         "SIGNATURE_MALFORMED", 1, body=urlsafe_body,
         signature=urlsafe_sig.replace("+", "-").replace("/", "_"))
    raw = base64.b64decode(good_sig)
    assert len(raw) == 256 and good_sig.endswith("==")
    # 256 bytes -> 344 characters ending '==': the last data character carries 4 unused bits, which must be zero.
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    last = alphabet.index(good_sig[-3])
    non_canonical = good_sig[:-3] + alphabet[last | 1] + "=="
    assert non_canonical != good_sig and base64.b64decode(non_canonical) == raw
    case("signature-non-canonical-padding-bits", "The good signature with non-zero unused bits before the '=':"
         " decodes to the same bytes, but strict Base64 refuses it.", "SIGNATURE_MALFORMED", 1, body=good_body,
         signature=non_canonical)
    case("signature-with-line-break", "The good signature with a line break inside (MIME style).",
         "SIGNATURE_MALFORMED", 1, body=good_body, signature=good_sig[:76] + "\n" + good_sig[76:])
    case("signature-with-leading-space", "The good signature with a leading space.", "SIGNATURE_MALFORMED", 1,
         body=good_body, signature=" " + good_sig)
    case("signature-not-base64", "Not Base64 at all.", "SIGNATURE_MALFORMED", 1, signature="not base64!")
    case("signature-wrong-length", "Canonical Base64 of 255 bytes: an RSA-2048 signature is exactly 256.",
         "SIGNATURE_MALFORMED", 1, body=good_body, signature=b64(raw[:255]))

    # --- the timestamp window
    for offset, expected in ((-120, "OK"), (120, "OK"), (-121, "TIMESTAMP_OUT_OF_WINDOW"),
                             (121, "TIMESTAMP_OUT_OF_WINDOW")):
        word = "old" if offset < 0 else "ahead"
        label = ("edge-" if expected == "OK" else ("stale-" if offset < 0 else "future-")) + f"{abs(offset)}s"
        if expected == "OK":
            label = f"timestamp-{abs(offset)}s-{word}"
        case(label, f"signature_timestamp {abs(offset)} s {word} of `now`; the window is 120 s inclusive.",
             expected, 1, body=hook_body(ts(offset)))
    case("timestamp-120.001s-old", "`now` is 1 ms past the second: the signature_timestamp is 120.001 s old,"
         " outside the 120 s window (exact to the millisecond; the clock is not rounded down to whole seconds).",
         "TIMESTAMP_OUT_OF_WINDOW", 1, body=hook_body(ts(-120)), now=iso(NOW)[:19] + ".001Z")
    case("timestamp-with-milliseconds", "signature_timestamp with milliseconds: not of the form"
         " YYYY-MM-DDThh:mm:ssZ.", "TIMESTAMP_MALFORMED", 1, body=hook_body(iso(NOW)[:19] + ".000Z"))
    case("timestamp-without-z", "signature_timestamp without the Z.", "TIMESTAMP_MALFORMED", 1,
         body=hook_body(iso(NOW)[:19]))
    case("timestamp-offset", "signature_timestamp with +00:00 instead of Z.", "TIMESTAMP_MALFORMED", 1,
         body=hook_body(iso(NOW)[:19] + "+00:00"))
    case("timestamp-impossible-date", "A well-shaped but impossible date (31 June).", "TIMESTAMP_MALFORMED", 1,
         body=hook_body("2026-06-31T12:00:30Z"))
    case("timestamp-number", "signature_timestamp as epoch seconds (a JSON number).", "TIMESTAMP_MALFORMED", 1,
         body=hook_body(int(NOW.timestamp())))
    case("timestamp-missing", "The body has no signature_timestamp.", "TIMESTAMP_MALFORMED", 1,
         body=hook_body(None))
    dup = good_body[:-1] + b',"signature_timestamp":"2000-01-01T00:00:00Z"}'
    case("timestamp-duplicate-key", "signature_timestamp twice (the JSON is refused: parsers differ on which"
         " value wins).", "TIMESTAMP_MALFORMED", 1, body=dup)
    case("body-not-json", "A signed body that is not JSON.", "TIMESTAMP_MALFORMED", 1,
         body=b"signature_timestamp=" + iso(NOW).encode())
    case("body-duplicate-nested-key", "A duplicate key in a nested object: the whole body is refused.",
         "TIMESTAMP_MALFORMED", 1,
         body=good_body.replace(b'"metadata":{}', b'"metadata":{"a":1,"a":2}'))

    # --- the certificate URL (refused before any download)
    for label, url, code in (
            ("url-missing", None, "CERT_URL_MALFORMED"),
            ("url-empty", "", "CERT_URL_MALFORMED"),
            ("url-http", f"http://{HOOK_HOST}{HOOK_PATH}", "CERT_URL_SCHEME"),
            ("url-bare-platform-domain", f"https://platform.test{HOOK_PATH}", "CERT_URL_HOST"),
            ("url-wrong-host", f"https://hooks.evilplatform.test{HOOK_PATH}", "CERT_URL_HOST"),
            ("url-platform-domain-as-prefix", f"https://hooks.platform.test.evil.test{HOOK_PATH}", "CERT_URL_HOST"),
            ("url-ip-address", f"https://127.0.0.1{HOOK_PATH}", "CERT_URL_HOST"),
            ("url-trailing-dot-host", f"https://hooks.platform.test.{HOOK_PATH}", "CERT_URL_HOST"),
            ("url-path-other", f"https://{HOOK_HOST}/platform/hooks/cert/", "CERT_URL_PATH"),
            ("url-path-no-trailing-slash", f"https://{HOOK_HOST}/platform/hooks/certificate", "CERT_URL_PATH"),
            ("url-path-upper-case", f"https://{HOOK_HOST}/PLATFORM/hooks/certificate/", "CERT_URL_PATH"),
            ("url-path-longer", f"https://{HOOK_HOST}{HOOK_PATH}other", "CERT_URL_PATH"),
            ("url-path-encoded-dot", f"https://{HOOK_HOST}/platform/hooks/x/%2e%2e/certificate/",
             "CERT_URL_MALFORMED"),
            ("url-query", f"https://{HOOK_HOST}{HOOK_PATH}?v=2", "CERT_URL_MALFORMED"),
            ("url-fragment", f"https://{HOOK_HOST}{HOOK_PATH}#x", "CERT_URL_MALFORMED"),
            ("url-userinfo", f"https://user@{HOOK_HOST}{HOOK_PATH}", "CERT_URL_MALFORMED"),
            ("url-port-8443", f"https://{HOOK_HOST}:8443{HOOK_PATH}", "CERT_URL_PORT"),
            ("url-host-before-path-before-port", f"https://hooks.evil.test:8443/x/", "CERT_URL_HOST"),
            ("url-path-before-port", f"https://{HOOK_HOST}:8443/x/", "CERT_URL_PATH"),
    ):
        case(label, f"Certificate URL {url!r}: refused before any download.", code, 0, url=url)
    case("url-before-signature", "Both the URL (http) and the signature (missing) are wrong: the URL is checked"
         " first.", "CERT_URL_SCHEME", 0, url=f"http://{HOOK_HOST}{HOOK_PATH}", signature=None)

    # --- the download and the document
    case("certificate-unreachable", "The URL answers nothing usable (here: not found).", "CERT_FETCH_FAILED", 1,
         serve=None)
    case("document-without-certificate", "The document has no 'certificate' field.", "CERT_MALFORMED", 1,
         serve="no-certificate")
    case("document-certificate-not-string", "'certificate' is a number.", "CERT_MALFORMED", 1,
         serve="certificate-not-string")
    case("document-not-json", "The URL answers HTML.", "CERT_MALFORMED", 1, serve="not-json")
    case("document-duplicate-certificate", "'certificate' twice in the document.", "CERT_MALFORMED", 1,
         serve="duplicate-certificate")
    case("certificate-garbage-pem", "A CERTIFICATE block whose content is not DER.", "CERT_MALFORMED", 1,
         serve="garbage-pem")
    case("certificate-is-a-private-key", "The document holds a PRIVATE KEY block, not a certificate.",
         "CERT_MALFORMED", 1, serve="private-key")

    # --- the certificate
    case("leaf-expired", "The leaf expired one second before `now`.", "CERT_EXPIRED", 1, serve="expired")
    case("leaf-not-yet-valid", "The leaf is valid from one second after `now`.", "CERT_NOT_YET_VALID", 1,
         serve="not-yet-valid")
    case("leaf-wrong-san", "The leaf names other.platform.test, not the URL's host.", "CERT_NAME_MISMATCH", 1,
         serve="wrong-san")
    case("leaf-wildcard-too-broad", "The leaf names *.test, which does not cover hooks.platform.test.",
         "CERT_NAME_MISMATCH", 1, serve="wildcard-too-deep")
    case("chain-unknown-root", "Leaf and intermediate from a PKI whose root is not an anchor.", "CERT_UNTRUSTED", 1,
         serve="unknown-root")
    case("chain-self-signed-leaf", "A self-signed leaf for the right name and key.", "CERT_UNTRUSTED", 1,
         serve="self-signed")
    case("chain-without-intermediate", "Only the leaf is served; the intermediate is missing.", "CERT_UNTRUSTED", 1,
         serve="leaf-only")
    case("leaf-code-signing-only", "The leaf's extended key usage allows code signing only.", "CERT_CHAIN_INVALID",
         1, serve="code-signing")
    case("leaf-ec-key", "The leaf has an EC key: hooks are SHA256withRSA only.", "CERT_KEY_UNSUPPORTED", 1,
         serve="ec")
    case("leaf-rsa-1024", "The leaf's RSA key has 1024 bits; at least 2048 are required.", "CERT_KEY_UNSUPPORTED",
         1, serve="rsa1024", key=weak_key)
    case("certificate-before-signature", "The signature is missing and the leaf expired: the certificate is"
         " checked first.", "CERT_EXPIRED", 1, serve="expired", signature=None)
    case("signature-before-timestamp", "Wrong key and a stale timestamp: the signature is checked first.",
         "SIGNATURE_MISMATCH", 1, body=hook_body(ts(-3600)), key=stranger_key)

    # --- rotation: the same verifier first verifies `prime` (with the old certificate), then the case
    prime_now = NOW - dt.timedelta(seconds=60)

    def prime(at: dt.datetime | None) -> dict[str, Any]:
        body = hook_body(iso(at or NOW))
        p: dict[str, Any] = {"headers": {"signature": hook_sign(hook_key, body), "signature-certificate-url": HOOK_URL},
                             "body_b64": b64(body), "served": {HOOK_URL: served["good"]}}
        if at is not None:
            p["now"] = iso(at)
        return p

    case("rotated-certificate", "The cached certificate (primed 60 s before) is replaced at the URL by a new key's;"
         " the first hook signed by the new key fails with the cached one, the verifier downloads once more and"
         " it verifies.", "OK", 2, key=rotated_key, serve="rotated", prime=prime(prime_now))
    case("rotated-but-url-serves-old", "Signed by a new key while the URL still serves the old chain: one"
         " re-download, still a mismatch.", "SIGNATURE_MISMATCH", 2, key=rotated_key, prime=prime(prime_now))
    case("tampered-with-cached-certificate", "A tampered hook after a good one 60 s before: one re-download (the"
         " verifier cannot tell tampering from rotation), then the mismatch.", "SIGNATURE_MISMATCH", 2,
         body=bytes(tampered), signature=good_sig, prime=prime(prime_now))
    case("rotated-within-refetch-interval", "As rotated-certificate, but the cached certificate was downloaded at"
         " `now` (prime without its own `now`): a certificate younger than 30 s is not downloaded again, so"
         " the new key's hook fails.", "SIGNATURE_MISMATCH", 1, key=rotated_key, serve="rotated", prime=prime(None))
    case("cached-certificate-reused", "A good hook after a good one 60 s before: the cached certificate is used,"
         " no second download.", "OK", 1, prime=prime(prime_now))

    write_json("hooks.json", {"platform_domains": PLATFORM_DOMAINS, "anchors": ["pki/root.pem"],
                              "tolerance_seconds": TOLERANCE, "refetch_after_seconds": 30, "cases": cases})

    signed_requests()
    cert_urls()
    print(f"hooks.json: {len(cases)} cases")


# ------------------------------------------------------------------------------------------------ signed requests
def signed_requests() -> None:
    rsa_client, ec_client, other_rsa = rsa_key(), ec_key(), rsa_key()
    write("pki/client-rsa.key.pem", key_pem(rsa_client))
    write("pki/client-ec.key.pem", key_pem(ec_client))
    write("pki/client-other-rsa.key.pem", key_pem(other_rsa))
    write("pki/client-rsa.cert.pem", cert_pem(leaf_cert("client-rsa", rsa_client.public_key(), [CLIENT_FQDN], None,
                                                        rsa_client)))
    write("pki/client-ec.cert.pem", cert_pem(leaf_cert("client-ec", ec_client.public_key(), [CLIENT_FQDN], None,
                                                       ec_client)))

    token = {"client_id": "c-1a2b3c", "fqdn": CLIENT_FQDN, "timestamp": iso(NOW)}
    minified = json.dumps(token, separators=(",", ":")).encode()
    pretty = (json.dumps(token, indent=2) + "\n").encode()
    non_ascii = json.dumps({"client_id": "clïent-日本-✓", "fqdn": CLIENT_FQDN, "timestamp": iso(NOW)},
                           separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    escaped = json.dumps({"client_id": "clïent-日本-✓", "fqdn": CLIENT_FQDN, "timestamp": iso(NOW)},
                         separators=(",", ":")).encode("ascii")

    def rsa_sig(key: rsa.RSAPrivateKey, body: bytes, digest: Any = None) -> str:
        return b64(key.sign(body, padding.PKCS1v15(), digest or hashes.SHA1()))

    def ec_sig(body: bytes, digest: Any = None) -> str:
        return b64(ec_client.sign(body, ec.ECDSA(digest or hashes.SHA1())))

    rsa_files = {"algorithm": "SHA1withRSA", "private_key": "pki/client-rsa.key.pem",
                 "certificate": "pki/client-rsa.cert.pem"}
    ec_files = {"algorithm": "SHA1withECDSA", "private_key": "pki/client-ec.key.pem",
                "certificate": "pki/client-ec.cert.pem"}
    cases: list[dict[str, Any]] = []

    def case(case_name: str, description: str, files: dict[str, str], body: bytes, signature: str,
             expected: str) -> None:
        cases.append({"name": case_name, "description": description, **files, "body_b64": b64(body),
                      "signature_b64": signature, "expected": expected})

    case("token-rsa-minified", "Spec 2.1 token request, minified; SHA1withRSA is deterministic: reproduce"
         " signature_b64 exactly.", rsa_files, minified, rsa_sig(rsa_client, minified), "OK")
    case("token-rsa-pretty", "The same request pretty-printed with a final newline: other bytes, other signature.",
         rsa_files, pretty, rsa_sig(rsa_client, pretty), "OK")
    case("token-rsa-non-ascii", "client_id with non-ASCII characters sent as UTF-8.", rsa_files, non_ascii,
         rsa_sig(rsa_client, non_ascii), "OK")
    case("token-rsa-non-ascii-escaped", "The same request with the characters as \\u escapes: other bytes.",
         rsa_files, escaped, rsa_sig(rsa_client, escaped), "OK")
    case("token-ec-minified", "SHA1withECDSA (DER-encoded, as Java's SHA1withECDSA): not deterministic; sign and"
         " verify with the certificate, and verify this signature.", ec_files, minified, ec_sig(minified), "OK")
    case("token-ec-non-ascii", "SHA1withECDSA over the UTF-8 body with non-ASCII characters.", ec_files, non_ascii,
         ec_sig(non_ascii), "OK")
    case("rsa-pretty-signature-on-minified-body", "The pretty body's signature sent with the minified body.",
         rsa_files, minified, rsa_sig(rsa_client, pretty), "SIGNATURE_MISMATCH")
    tampered = minified.replace(b"c-1a2b3c", b"c-1a2b3d")
    case("rsa-tampered-body", "One character of client_id changed after signing.", rsa_files, tampered,
         rsa_sig(rsa_client, minified), "SIGNATURE_MISMATCH")
    case("rsa-other-key", "Signed by another RSA key than the certificate's.", rsa_files, minified,
         rsa_sig(other_rsa, minified), "SIGNATURE_MISMATCH")
    case("rsa-sha256-where-sha1-expected", "SHA256withRSA by the right key, checked as SHA1withRSA.", rsa_files,
         minified, rsa_sig(rsa_client, minified, hashes.SHA256()), "SIGNATURE_MISMATCH")
    good_rsa = rsa_sig(rsa_client, minified)
    case("rsa-signature-unpadded", "The good signature without '=' padding.", rsa_files, minified,
         good_rsa.rstrip("="), "SIGNATURE_MALFORMED")
    case("rsa-signature-truncated", "Canonical Base64 of the first 255 bytes of the good signature.", rsa_files,
         minified, b64(base64.b64decode(good_rsa)[:255]), "SIGNATURE_MALFORMED")
    case("rsa-signature-empty", "An empty signature.", rsa_files, minified, "", "SIGNATURE_MALFORMED")
    case("ec-tampered-body", "An ECDSA signature over the minified body sent with another body.", ec_files, tampered,
         ec_sig(minified), "SIGNATURE_MISMATCH")
    case("ec-sha256-where-sha1-expected", "SHA256withECDSA by the right key, checked as SHA1withECDSA.", ec_files,
         minified, ec_sig(minified, hashes.SHA256()), "SIGNATURE_MISMATCH")
    # Signature-256, this platform's extension of spec 5.1: SHA256withRSA / SHA256withECDSA over the same bytes.
    rsa256_files = {**rsa_files, "algorithm": "SHA256withRSA"}
    ec256_files = {**ec_files, "algorithm": "SHA256withECDSA"}
    case("token-rsa-sha256-minified", "Signature-256: SHA256withRSA is deterministic too: reproduce signature_b64"
         " exactly.", rsa256_files, minified, rsa_sig(rsa_client, minified, hashes.SHA256()), "OK")
    case("token-rsa-sha256-non-ascii", "Signature-256 (SHA256withRSA) over the UTF-8 body with non-ASCII"
         " characters.", rsa256_files, non_ascii, rsa_sig(rsa_client, non_ascii, hashes.SHA256()), "OK")
    case("token-ec-sha256-minified", "Signature-256: SHA256withECDSA (DER), not deterministic: sign and verify with"
         " the certificate, and verify this signature.", ec256_files, minified, ec_sig(minified, hashes.SHA256()),
         "OK")
    case("token-ec-sha256-pretty", "Signature-256 (SHA256withECDSA) over the pretty-printed body.", ec256_files,
         pretty, ec_sig(pretty, hashes.SHA256()), "OK")
    case("rsa-sha1-where-sha256-expected", "SHA1withRSA by the right key sent as Signature-256.", rsa256_files,
         minified, rsa_sig(rsa_client, minified), "SIGNATURE_MISMATCH")
    case("ec-sha1-where-sha256-expected", "SHA1withECDSA by the right key sent as Signature-256.", ec256_files,
         minified, ec_sig(minified), "SIGNATURE_MISMATCH")
    case("rsa-sha256-tampered-body", "A SHA256withRSA signature over the minified body sent with another body.",
         rsa256_files, tampered, rsa_sig(rsa_client, minified, hashes.SHA256()), "SIGNATURE_MISMATCH")
    case("rsa-sha256-other-key", "SHA256withRSA by another RSA key than the certificate's.", rsa256_files, minified,
         rsa_sig(other_rsa, minified, hashes.SHA256()), "SIGNATURE_MISMATCH")
    case("ec-sha256-tampered-body", "A SHA256withECDSA signature over the minified body sent with another body.",
         ec256_files, tampered, ec_sig(minified, hashes.SHA256()), "SIGNATURE_MISMATCH")
    good_rsa256 = rsa_sig(rsa_client, minified, hashes.SHA256())
    case("rsa-sha256-signature-unpadded", "The good Signature-256 without '=' padding.", rsa256_files, minified,
         good_rsa256.rstrip("="), "SIGNATURE_MALFORMED")
    der256 = base64.b64decode(ec_sig(minified, hashes.SHA256()))
    case("ec-sha256-signature-trailing-byte", "A good SHA256withECDSA DER signature with one byte appended.",
         ec256_files, minified, b64(der256 + b"\x00"), "SIGNATURE_MALFORMED")
    der = base64.b64decode(ec_sig(minified))
    r, s = decode_dss_signature(der)
    case("ec-signature-raw-r-s", "The signature as raw r||s (64 bytes, IEEE P1363) instead of DER.", ec_files,
         minified, b64(r.to_bytes(32, "big") + s.to_bytes(32, "big")), "SIGNATURE_MALFORMED")
    case("ec-signature-trailing-byte", "A good DER signature with one byte appended.", ec_files, minified,
         b64(der + b"\x00"), "SIGNATURE_MALFORMED")
    case("ec-signature-with-rsa-key", "An RSA signature where the certificate's key is EC.", ec_files, minified,
         good_rsa, "SIGNATURE_MALFORMED")
    write_json("signed-requests.json", {"cases": cases})
    print(f"signed-requests.json: {len(cases)} cases")


# ---------------------------------------------------------------------------------------------- certificate URLs
def cert_urls() -> None:
    """Each case's expected outcome is derived from crypto-common's HookCertUrlRule / ManagementCertUrlRule (shared
    front half: UrlParts); crypto-common's KitVectorsTest runs every case through them."""
    h = HOOK_HOST
    p = HOOK_PATH
    long_label = "a" * 64
    long_host = ".".join(["a" * 60] * 4) + ".platform.test"  # 258 characters
    hook: list[tuple[str | None, str, str | None]] = [
        # accepted, with the normalised URL the verifier downloads
        (f"https://{h}{p}", "OK", f"https://{h}{p}"),
        (f"HTTPS://HOOKS.Platform.Test{p}", "OK", f"https://{h}{p}"),
        (f"https://{h}:443{p}", "OK", f"https://{h}{p}"),
        (f"https://{h}/{p}", "OK", f"https://{h}{p}"),
        (f"https://{h}/platform//hooks///certificate/", "OK", f"https://{h}{p}"),
        (f"https://{h}/platform/hooks/x/../certificate/", "OK", f"https://{h}{p}"),
        (f"https://{h}/./platform/hooks/certificate/", "OK", f"https://{h}{p}"),
        (f"https://{h}/../platform/hooks/certificate/", "OK", f"https://{h}{p}"),
        (f"https://{h}/platform/hooks/certificate/.", "OK", f"https://{h}{p}"),
        (f"https://{h}/platform/hooks/certificate/x/..", "OK", f"https://{h}{p}"),
        (f"https://a.b.platform.test{p}", "OK", f"https://a.b.platform.test{p}"),
        (f"https://hooks.staging-platform.test{p}", "OK", f"https://hooks.staging-platform.test{p}"),
        (f"https://x-1.platform.test{p}", "OK", f"https://x-1.platform.test{p}"),
        (f"https://1a.platform.test{p}", "OK", f"https://1a.platform.test{p}"),
        # malformed
        (None, "CERT_URL_MALFORMED", None),
        ("", "CERT_URL_MALFORMED", None),
        ("   ", "CERT_URL_MALFORMED", None),
        (f"https://{h}/platform/hooks/{'a' * 2030}/", "CERT_URL_MALFORMED", None),
        (f" https://{h}{p}", "CERT_URL_MALFORMED", None),
        (f"https://{h}{p} ", "CERT_URL_MALFORMED", None),
        (f"https://{h}/platform/hooks/certificate/\t", "CERT_URL_MALFORMED", None),
        (f"https://hööks.platform.test{p}", "CERT_URL_MALFORMED", None),
        (f"https://{h}\\platform\\hooks\\certificate\\", "CERT_URL_MALFORMED", None),
        (f"{h}{p}", "CERT_URL_MALFORMED", None),
        (f"://{h}{p}", "CERT_URL_MALFORMED", None),
        (f"https:/{h}{p}", "CERT_URL_MALFORMED", None),
        (f"https:{h}{p}", "CERT_URL_MALFORMED", None),
        (f"https://{h}{p}#frag", "CERT_URL_MALFORMED", None),
        (f"https://{h}{p}?", "CERT_URL_MALFORMED", None),
        (f"https://{h}{p}?a=b", "CERT_URL_MALFORMED", None),
        (f"https://user@{h}{p}", "CERT_URL_MALFORMED", None),
        (f"https://user:pw@{h}{p}", "CERT_URL_MALFORMED", None),
        (f"https://{p}", "CERT_URL_MALFORMED", None),
        (f"https://:443{p}", "CERT_URL_MALFORMED", None),
        (f"https://%68ooks.platform.test{p}", "CERT_URL_MALFORMED", None),
        (f"https://hooks..platform.test{p}", "CERT_URL_MALFORMED", None),
        (f"https://-hooks.platform.test{p}", "CERT_URL_MALFORMED", None),
        (f"https://hooks-.platform.test{p}", "CERT_URL_MALFORMED", None),
        (f"https://ho_oks.platform.test{p}", "CERT_URL_MALFORMED", None),
        (f"https://{long_label}.platform.test{p}", "CERT_URL_MALFORMED", None),
        (f"https://{long_host}{p}", "CERT_URL_MALFORMED", None),
        (f"https://{h}/platform/hooks/certificate;x/", "CERT_URL_MALFORMED", None),
        (f"https://{h}/platform/hooks/x/..;/certificate/", "CERT_URL_MALFORMED", None),
        (f"https://{h}/platform/hooks/%2e%2e/certificate/", "CERT_URL_MALFORMED", None),
        (f"https://{h}/platform/hooks/%2E/certificate/", "CERT_URL_MALFORMED", None),
        (f"https://{h}/platform%2fhooks/certificate/", "CERT_URL_MALFORMED", None),
        (f"https://{h}/platform/hooks/certificate/%5c", "CERT_URL_MALFORMED", None),
        (f"https://{h}/platform/hooks/certificate/%25", "CERT_URL_MALFORMED", None),
        (f"https://{h}/platform/hooks/certificate/%00", "CERT_URL_MALFORMED", None),
        (f"https://{h}/platform/hooks/certificate/%C3%A9", "CERT_URL_MALFORMED", None),
        (f"https://{h}/platform/hooks/certificate/%zz", "CERT_URL_MALFORMED", None),
        (f"https://{h}/platform/hooks/certificate/%4", "CERT_URL_MALFORMED", None),
        (f"https://{h}/platform/hooks/<certificate>/", "CERT_URL_MALFORMED", None),
        (f"https://{h}/platform/hooks/{{certificate}}/", "CERT_URL_MALFORMED", None),
        (f"https://{h}/platform/hooks/cert|ificate/", "CERT_URL_MALFORMED", None),
        (f"https://{h}:{p}", "CERT_URL_MALFORMED", None),
        # scheme
        (f"http://{h}{p}", "CERT_URL_SCHEME", None),
        (f"HTTP://{h}{p}", "CERT_URL_SCHEME", None),
        (f"ftp://{h}{p}", "CERT_URL_SCHEME", None),
        (f"httpss://{h}{p}", "CERT_URL_SCHEME", None),
        (f"http://{h}:8443/other", "CERT_URL_SCHEME", None),
        # host
        (f"https://platform.test{p}", "CERT_URL_HOST", None),
        (f"https://staging-platform.test{p}", "CERT_URL_HOST", None),
        (f"https://hooksplatform.test{p}", "CERT_URL_HOST", None),
        (f"https://evilplatform.test{p}", "CERT_URL_HOST", None),
        (f"https://hooks.platform.test.evil.test{p}", "CERT_URL_HOST", None),
        (f"https://hooks.platform.example{p}", "CERT_URL_HOST", None),
        (f"https://{h}.{p}", "CERT_URL_HOST", None),
        (f"https://127.0.0.1{p}", "CERT_URL_HOST", None),
        (f"https://[::1]{p}", "CERT_URL_HOST", None),
        (f"https://[::1]:443{p}", "CERT_URL_HOST", None),
        (f"https://hooks.platform.123{p}", "CERT_URL_HOST", None),
        (f"https://2130706433{p}", "CERT_URL_HOST", None),
        (f"https://evil.test:8443/x", "CERT_URL_HOST", None),
        # path
        (f"https://{h}", "CERT_URL_PATH", None),
        (f"https://{h}/", "CERT_URL_PATH", None),
        (f"https://{h}/platform/hooks/certificate", "CERT_URL_PATH", None),
        (f"https://{h}/platform/hooks/cert/", "CERT_URL_PATH", None),
        (f"https://{h}/PLATFORM/hooks/certificate/", "CERT_URL_PATH", None),
        (f"https://{h}/platform/hooks/certificate/x", "CERT_URL_PATH", None),
        (f"https://{h}/platform/hooks/certificate/..", "CERT_URL_PATH", None),
        (f"https://{h}/prefix/platform/hooks/certificate/", "CERT_URL_PATH", None),
        (f"https://{h}/platform/hooks/certific%41te/", "CERT_URL_PATH", None),
        (f"https://{h}:8443/x", "CERT_URL_PATH", None),
        # port
        (f"https://{h}:8443{p}", "CERT_URL_PORT", None),
        (f"https://{h}:80{p}", "CERT_URL_PORT", None),
        (f"https://{h}:0443{p}", "CERT_URL_PORT", None),
        (f"https://{h}:abc{p}", "CERT_URL_PORT", None),
        (f"https://{h}:443:443{p}", "CERT_URL_MALFORMED", None),
    ]
    f = CLIENT_FQDN
    management: list[tuple[str | None, str, str | None]] = [
        (f"https://{f}/client.api/chain.pem", "OK", f"https://{f}/client.api/chain.pem"),
        (f"HTTPS://Client.Example.TEST/client.api/chain.pem", "OK", f"https://{f}/client.api/chain.pem"),
        (f"https://{f}:443/client.api/chain.pem", "OK", f"https://{f}/client.api/chain.pem"),
        (f"https://{f}//client.api//chain.pem", "OK", f"https://{f}/client.api/chain.pem"),
        (f"https://{f}/x/../client.api/chain.pem", "OK", f"https://{f}/client.api/chain.pem"),
        (f"https://{f}/client.api/a/../b/chain.pem", "OK", f"https://{f}/client.api/b/chain.pem"),
        (f"https://{f}/client.api/", "OK", f"https://{f}/client.api/"),
        (f"https://{f}/client.api/v1/certs/chain.pem", "OK", f"https://{f}/client.api/v1/certs/chain.pem"),
        (f"https://{f}/client.api/chain%20v1.pem", "OK", f"https://{f}/client.api/chain%20v1.pem"),
        (None, "CERT_URL_MALFORMED", None),
        (f"https://{f}/client.api/chain.pem?x=1", "CERT_URL_MALFORMED", None),
        (f"https://{f}/client.api/chain.pem#x", "CERT_URL_MALFORMED", None),
        (f"https://me@{f}/client.api/chain.pem", "CERT_URL_MALFORMED", None),
        (f"https://{f}/client.api/%2e%2e/chain.pem", "CERT_URL_MALFORMED", None),
        (f"https://{f}/client.api/..;/chain.pem", "CERT_URL_MALFORMED", None),
        (f"http://{f}/client.api/chain.pem", "CERT_URL_SCHEME", None),
        (f"https://other.example.test/client.api/chain.pem", "CERT_URL_HOST", None),
        (f"https://sub.{f}/client.api/chain.pem", "CERT_URL_HOST", None),
        (f"https://example.test/client.api/chain.pem", "CERT_URL_HOST", None),
        (f"https://{f}./client.api/chain.pem", "CERT_URL_HOST", None),
        (f"https://192.0.2.10/client.api/chain.pem", "CERT_URL_HOST", None),
        (f"https://{f}/Client.api/chain.pem", "CERT_URL_PATH", None),
        (f"https://{f}/client.api", "CERT_URL_PATH", None),
        (f"https://{f}/client.apix/chain.pem", "CERT_URL_PATH", None),
        (f"https://{f}/client.api/../chain.pem", "CERT_URL_PATH", None),
        (f"https://{f}/chain.pem", "CERT_URL_PATH", None),
        (f"https://{f}", "CERT_URL_PATH", None),
        (f"https://{f}:8443/client.api/chain.pem", "CERT_URL_PORT", None),
        (f"https://{f}:/client.api/chain.pem", "CERT_URL_MALFORMED", None),
    ]
    write_json("cert-urls.json", {
        "hook": {"platform_domains": PLATFORM_DOMAINS,
                 "cases": [{"url": u, "expected": e, "normalized": n} for u, e, n in hook]},
        "management": {"fqdn": CLIENT_FQDN,
                       "cases": [{"url": u, "expected": e, "normalized": n} for u, e, n in management]},
    })
    print(f"cert-urls.json: {len(hook)} hook cases, {len(management)} management cases")


if __name__ == "__main__":
    main()
