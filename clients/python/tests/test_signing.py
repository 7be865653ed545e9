"""The management-request signer (spec 5.1) and the signature check the platform applies to it."""

from __future__ import annotations

import base64
import datetime as dt
import json

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding
from pki import ec_key, rsa_key

from convplatform import FailureCode, RequestSigner, VerificationError, verify_request_signature

NOW = dt.datetime(2026, 6, 1, 12, 0, 30, 500000, tzinfo=dt.timezone.utc)


def test_rsa_token_request_is_sha1_with_rsa_over_the_exact_bytes() -> None:
    key = rsa_key("client")
    signer = RequestSigner(key, cert_uuid="6f1c8a52-3b0e-4d7a-9a57-1f0e2b7c9d10", clock=lambda: NOW)
    assert signer.algorithm == "SHA1withRSA"
    req = signer.token_request("c-1", "client.example.com")
    assert req.body == b'{"client_id":"c-1","fqdn":"client.example.com","timestamp":"2026-06-01T12:00:30Z"}'
    assert req.headers == {
        "Content-Type": "application/json",
        "Signature": base64.b64encode(key.sign(req.body, padding.PKCS1v15(), hashes.SHA1())).decode(),
        "Signature-256": base64.b64encode(key.sign(req.body, padding.PKCS1v15(), hashes.SHA256())).decode(),
        "SignatureCertUUID": "6f1c8a52-3b0e-4d7a-9a57-1f0e2b7c9d10",
    }
    verify_request_signature(key.public_key(), req.body, req.headers["Signature"])
    verify_request_signature(key.public_key(), req.body, req.headers["Signature-256"], sha256=True)


def test_ec_client_list_request_with_a_chain_url() -> None:
    key = ec_key("client")
    signer = RequestSigner(key, cert_chain_url="https://client.example.com/client.api/chain.pem", clock=lambda: NOW)
    assert signer.algorithm == "SHA1withECDSA"
    req = signer.client_list_request("client.example.com")
    assert json.loads(req.body) == {"fqdn": "client.example.com", "timestamp": "2026-06-01T12:00:30Z"}
    assert req.headers["SignatureCertChainUrl"] == "https://client.example.com/client.api/chain.pem"
    assert "SignatureCertUUID" not in req.headers
    key.public_key().verify(base64.b64decode(req.headers["Signature"]), req.body, ec.ECDSA(hashes.SHA1()))
    key.public_key().verify(base64.b64decode(req.headers["Signature-256"]), req.body, ec.ECDSA(hashes.SHA256()))
    verify_request_signature(key.public_key(), req.body, req.headers["Signature"])
    assert signer.algorithm_256 == "SHA256withECDSA"


def test_non_ascii_is_sent_as_utf8_and_signed_as_sent() -> None:
    key = rsa_key("client")
    req = RequestSigner(key, cert_uuid="u", clock=lambda: NOW).token_request("cl\u00eent-\u00e9", "client.example.com")
    assert "cl\u00eent-\u00e9".encode() in req.body
    verify_request_signature(key.public_key(), req.body, req.headers["Signature"])


def test_signature_256_is_sent_by_default_and_can_be_left_out() -> None:
    key = rsa_key("client")
    body = b'{"a":1}'
    headers = RequestSigner(key, cert_uuid="u").headers(body)
    assert list(headers) == ["Content-Type", "Signature", "Signature-256", "SignatureCertUUID"]
    verify_request_signature(key.public_key(), body, headers["Signature-256"], sha256=True)
    verify_request_signature(key.public_key(), body, headers["Signature"])
    with pytest.raises(VerificationError) as sha256_as_sha1:
        verify_request_signature(key.public_key(), body, headers["Signature-256"])
    assert sha256_as_sha1.value.code == FailureCode.SIGNATURE_MISMATCH
    only_sha1 = RequestSigner(key, cert_uuid="u", signature_256=False).headers(body)
    assert "Signature-256" not in only_sha1 and only_sha1["Signature"] == headers["Signature"]
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    assert "Signature-256" not in RequestSigner.from_pem(pem, cert_uuid="u", signature_256=False).headers(body)
    assert RequestSigner.from_pem(pem, cert_uuid="u").headers(body)["Signature-256"] == headers["Signature-256"]


def test_exactly_one_certificate_header() -> None:
    with pytest.raises(ValueError):
        RequestSigner(rsa_key("client"))
    with pytest.raises(ValueError):
        RequestSigner(rsa_key("client"), cert_uuid="u", cert_chain_url="https://c.example/client.api/x")


def test_from_pem_and_unsupported_keys() -> None:
    key = ec_key("client")
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    assert RequestSigner.from_pem(pem, cert_uuid="u").algorithm == "SHA1withECDSA"
    ed = ed25519.Ed25519PrivateKey.generate()
    with pytest.raises(TypeError):
        RequestSigner(ed, cert_uuid="u")  # type: ignore[arg-type]
    ed_pem = ed.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    with pytest.raises(TypeError):
        RequestSigner.from_pem(ed_pem, cert_uuid="u")


def _code(key: object, body: bytes, sig: str | None) -> FailureCode:
    with pytest.raises(VerificationError) as e:
        verify_request_signature(key, body, sig)
    return e.value.code


def test_signature_check_refusals() -> None:
    rsa_pub, ec_priv = rsa_key("client").public_key(), ec_key("client")
    body = b'{"fqdn":"client.example.com","timestamp":"2026-06-01T12:00:30Z"}'
    good_rsa = RequestSigner(rsa_key("client"), cert_uuid="u").sign(body)
    assert _code(rsa_pub, body + b" ", good_rsa) == FailureCode.SIGNATURE_MISMATCH
    assert _code(rsa_pub, body, None) == FailureCode.SIGNATURE_MALFORMED
    assert _code(rsa_pub, body, good_rsa.rstrip("=")) == FailureCode.SIGNATURE_MALFORMED
    assert _code(rsa_pub, body, base64.b64encode(base64.b64decode(good_rsa)[:-1]).decode()) == (
        FailureCode.SIGNATURE_MALFORMED
    )
    der = ec_priv.sign(body, ec.ECDSA(hashes.SHA1()))
    ec_pub = ec_priv.public_key()
    assert _code(ec_pub, body, base64.b64encode(der + b"\x00").decode()) == FailureCode.SIGNATURE_MALFORMED
    assert _code(ec_pub, body, base64.b64encode(b"\x31" + der[1:]).decode()) == FailureCode.SIGNATURE_MALFORMED
    assert _code(ec_pub, body, base64.b64encode(b"\x00" * 64).decode()) == FailureCode.SIGNATURE_MALFORMED
    assert _code(ec_pub, body + b"x", base64.b64encode(der).decode()) == FailureCode.SIGNATURE_MISMATCH
    zero_r = bytes([0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x01])
    assert _code(ec_pub, body, base64.b64encode(zero_r).decode()) == FailureCode.SIGNATURE_MALFORMED
    padded_r = bytes([0x30, 0x08, 0x02, 0x02, 0x00, 0x01, 0x02, 0x02, 0x00, 0x01])
    assert _code(ec_pub, body, base64.b64encode(padded_r).decode()) == FailureCode.SIGNATURE_MALFORMED
    assert _code(ed25519.Ed25519PrivateKey.generate().public_key(), body, good_rsa) == FailureCode.CERT_KEY_UNSUPPORTED
