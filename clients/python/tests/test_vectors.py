"""The shared vectors of clients/vectors, which every kit runs: recorded hooks, signed management requests and
certificate-URL cases, each with the reference implementation's verdict."""

from __future__ import annotations

import base64
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from convplatform import (
    FailureCode,
    HookCertUrlRule,
    HookVerifier,
    ManagementCertUrlRule,
    RequestSigner,
    VerificationError,
    load_pem_anchors,
    verify_request_signature,
)

VECTORS = Path(__file__).resolve().parents[2] / "vectors"


def load(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


HOOKS = load("hooks.json")
SIGNED = load("signed-requests.json")
URLS = load("cert-urls.json")


def instant(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


class VectorFetcher:
    def __init__(self) -> None:
        self.served: dict[str, str] = {}
        self.attempts = 0

    def __call__(self, url: str) -> bytes:
        self.attempts += 1
        if url not in self.served:
            raise VerificationError(FailureCode.CERT_FETCH_FAILED, f"{url} is not served in this case")
        return (VECTORS / self.served[url]).read_bytes()


class FixedClock:
    def __init__(self) -> None:
        self.now = dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)

    def __call__(self) -> dt.datetime:
        return self.now


def new_verifier() -> tuple[HookVerifier, VectorFetcher, FixedClock]:
    anchors = [c for path in HOOKS["anchors"] for c in load_pem_anchors((VECTORS / path).read_bytes())]
    fetcher, clock = VectorFetcher(), FixedClock()
    verifier = HookVerifier(
        HOOKS["platform_domains"],
        trust_anchors=anchors,
        fetcher=fetcher,
        clock=clock,
        tolerance_seconds=HOOKS["tolerance_seconds"],
        refetch_after=dt.timedelta(seconds=HOOKS["refetch_after_seconds"]),
    )
    return verifier, fetcher, clock


def run(verifier: HookVerifier, hook: dict[str, Any]) -> str:
    try:
        verifier.verify(
            hook["headers"].get("signature"),
            hook["headers"].get("signature-certificate-url"),
            base64.b64decode(hook["body_b64"]),
        )
        return "OK"
    except VerificationError as e:
        return e.code.value


def test_the_vectors_are_there() -> None:
    assert len(HOOKS["cases"]) >= 40
    assert {c["expected"] for c in HOOKS["cases"]} >= {"OK", "SIGNATURE_MISMATCH", "CERT_UNTRUSTED"}


@pytest.mark.parametrize("case", HOOKS["cases"], ids=[c["name"] for c in HOOKS["cases"]])
def test_hook_case(case: dict[str, Any]) -> None:
    verifier, fetcher, clock = new_verifier()
    prime = case.get("prime")
    if prime:
        clock.now = instant(prime.get("now") or case["now"])
        fetcher.served = prime["served"]
        assert run(verifier, prime) == "OK", "the prime hook must verify"
    clock.now = instant(case["now"])
    fetcher.served = case["served"]
    assert run(verifier, case) == case["expected"], case["description"]
    assert fetcher.attempts == case["fetches"]


def test_every_byte_of_the_good_hook_matters() -> None:
    good = next(c for c in HOOKS["cases"] if c["name"] == "good")
    verifier, fetcher, clock = new_verifier()
    clock.now = instant(good["now"])
    fetcher.served = good["served"]
    assert run(verifier, good) == "OK"
    body = base64.b64decode(good["body_b64"])
    signature = base64.b64decode(good["headers"]["signature"])
    url = good["headers"]["signature-certificate-url"]
    for i in range(len(body)):
        tampered = body[:i] + bytes([body[i] ^ 0xFF]) + body[i + 1 :]
        with pytest.raises(VerificationError) as e:
            verifier.verify(good["headers"]["signature"], url, tampered)
        assert e.value.code == FailureCode.SIGNATURE_MISMATCH
    for i in range(len(signature)):
        flipped = signature[:i] + bytes([signature[i] ^ 0xFF]) + signature[i + 1 :]
        with pytest.raises(VerificationError) as e:
            verifier.verify(base64.b64encode(flipped).decode(), url, body)
        assert e.value.code == FailureCode.SIGNATURE_MISMATCH
    assert fetcher.attempts == 1  # junk signatures right after a download do not download again


def _key(path: str) -> Any:
    return serialization.load_pem_private_key((VECTORS / path).read_bytes(), password=None)


def _cert(path: str) -> x509.Certificate:
    return x509.load_pem_x509_certificate((VECTORS / path).read_bytes())


@pytest.mark.parametrize("case", SIGNED["cases"], ids=[c["name"] for c in SIGNED["cases"]])
def test_signed_request_case(case: dict[str, Any]) -> None:
    body = base64.b64decode(case["body_b64"])
    certificate = _cert(case["certificate"])
    # SHA256with... cases are the Signature-256 header (the platform's extension), the others Signature
    sha256 = case["algorithm"].startswith("SHA256")
    try:
        verify_request_signature(certificate, body, case["signature_b64"], sha256=sha256)
        verdict = "OK"
    except VerificationError as e:
        verdict = e.code.value
    assert verdict == case["expected"], case["description"]
    if case["expected"] != "OK":
        return
    signer = RequestSigner(_key(case["private_key"]), cert_uuid="00000000-0000-4000-8000-000000000000")
    assert (signer.algorithm_256 if sha256 else signer.algorithm) == case["algorithm"]
    mine = signer.sign_256(body) if sha256 else signer.sign(body)
    if case["algorithm"].endswith("RSA"):
        assert mine == case["signature_b64"]  # PKCS#1 v1.5 is deterministic: byte for byte
    verify_request_signature(certificate, body, mine, sha256=sha256)
    headers = signer.headers(body)
    assert headers["SignatureCertUUID"] == "00000000-0000-4000-8000-000000000000"
    verify_request_signature(certificate, body, headers["Signature-256" if sha256 else "Signature"], sha256=sha256)


def _check(rule: HookCertUrlRule | ManagementCertUrlRule, case: dict[str, Any]) -> None:
    try:
        normalised = str(rule.check(case["url"]))
        verdict = "OK"
    except VerificationError as e:
        normalised, verdict = None, e.code.value
    assert (verdict, normalised) == (case["expected"], case["normalized"])


@pytest.mark.parametrize("case", URLS["hook"]["cases"], ids=[repr(c["url"]) for c in URLS["hook"]["cases"]])
def test_hook_url_case(case: dict[str, Any]) -> None:
    _check(HookCertUrlRule(URLS["hook"]["platform_domains"]), case)


@pytest.mark.parametrize(
    "case", URLS["management"]["cases"], ids=[repr(c["url"]) for c in URLS["management"]["cases"]]
)
def test_management_url_case(case: dict[str, Any]) -> None:
    _check(ManagementCertUrlRule(URLS["management"]["fqdn"]), case)
