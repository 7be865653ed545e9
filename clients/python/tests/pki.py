"""Certificates and keys the tests make: a root, an intermediate and hook leaves for ``hooks.platform.test``, and
every broken shape the rejection tests need."""

from __future__ import annotations

import base64
import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

NOW = dt.datetime(2026, 6, 1, 12, 0, 30, tzinfo=dt.timezone.utc)
HOST = "hooks.platform.test"
DOMAIN = "platform.test"
URL = f"https://{HOST}/platform/hooks/certificate/"

Key = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey


@cache
def rsa_key(label: str, bits: int = 2048) -> rsa.RSAPrivateKey:
    del label  # one key per label, made once per test run
    return rsa.generate_private_key(public_exponent=65537, key_size=bits)


@cache
def ec_key(label: str) -> ec.EllipticCurvePrivateKey:
    del label
    return ec.generate_private_key(ec.SECP256R1())


def make_cert(
    subject: str,
    key: Key,
    issuer_key: Key,
    issuer: x509.Certificate | None = None,
    *,
    ca: bool = False,
    path_length: int | None = None,
    sans: Sequence[str] = (),
    eku: Sequence[x509.ObjectIdentifier] | None = None,
    key_usage: bool = True,
    not_before: dt.datetime | None = None,
    not_after: dt.datetime | None = None,
) -> x509.Certificate:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    b = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer.subject if issuer is not None else name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before or NOW - dt.timedelta(days=30))
        .not_valid_after(not_after or NOW + dt.timedelta(days=365))
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), False)
    )
    if ca:
        b = b.add_extension(x509.BasicConstraints(ca=True, path_length=path_length), True)
    if key_usage:
        b = b.add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=not ca, data_encipherment=False,
                key_agreement=False, key_cert_sign=ca, crl_sign=ca, encipher_only=False, decipher_only=False,
            ),
            True,
        )
    if sans:
        b = b.add_extension(x509.SubjectAlternativeName([x509.DNSName(s) for s in sans]), False)
    if eku is not None:
        b = b.add_extension(x509.ExtendedKeyUsage(list(eku)), False)
    return b.sign(issuer_key, hashes.SHA256())


@dataclass(frozen=True)
class Pki:
    root: x509.Certificate
    root_key: Key
    intermediate: x509.Certificate
    intermediate_key: Key

    def leaf(self, key: Key | None = None, *, sans: Sequence[str] = (HOST,), **kw: object) -> x509.Certificate:
        return make_cert(HOST, key or rsa_key("leaf"), self.intermediate_key, self.intermediate, sans=sans,
                         eku=kw.pop("eku", [ExtendedKeyUsageOID.SERVER_AUTH]), **kw)  # type: ignore[arg-type]


@cache
def pki(label: str = "main") -> Pki:
    root_key = ec_key(label + "-root")
    root = make_cert(f"Test Root {label}", root_key, root_key, ca=True)
    inter_key = ec_key(label + "-inter")
    inter = make_cert(f"Test Intermediate {label}", inter_key, root_key, root, ca=True, path_length=0)
    return Pki(root, root_key, inter, inter_key)


def pem(*certs: x509.Certificate) -> str:
    return "".join(c.public_bytes(serialization.Encoding.PEM).decode("ascii") for c in certs)


def document(*certs: x509.Certificate) -> bytes:
    return json.dumps({"certificate": pem(*certs)}).encode("utf-8")


def hook_body(signature_timestamp: str = "2026-06-01T12:00:00Z", **extra: object) -> bytes:
    fields: dict[str, object] = {
        "user_id": "u42",
        "conversation_number": 1,
        "message_body": json.dumps({"text": "h\u00e9llo", "type": "TEXT", "data": {"quick_replies": []}}),
        "message_id": 123,
        "sender": "user",
        "timestamp": "2026-06-01T11:59:59.000Z",
        "metadata": {},
        "signature_timestamp": signature_timestamp,
    }
    fields.update(extra)
    return json.dumps(fields, ensure_ascii=False).encode("utf-8")


def sign(body: bytes, key: rsa.RSAPrivateKey | None = None) -> str:
    key = key or rsa_key("leaf")
    return base64.b64encode(key.sign(body, padding.PKCS1v15(), hashes.SHA256())).decode("ascii")
