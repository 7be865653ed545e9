"""The hook verifier, rule by rule, with certificates these tests make and a fetcher that serves them from memory."""

from __future__ import annotations

import base64
import datetime as dt
import json

import pytest
from cryptography.x509.oid import ExtendedKeyUsageOID
from pki import DOMAIN, HOST, NOW, URL, document, ec_key, hook_body, make_cert, pki, rsa_key, sign

from convplatform import FailureCode, HookVerifier, VerificationError


class Served:
    """A fetcher over a dict: url -> bytes; a URL not in it fails to download. Counts the downloads."""

    def __init__(self, served: dict[str, bytes]) -> None:
        self.served = served
        self.fetches: list[str] = []

    def __call__(self, url: str) -> bytes:
        self.fetches.append(url)
        if url not in self.served:
            raise VerificationError(FailureCode.CERT_FETCH_FAILED, f"nothing is served at {url}")
        return self.served[url]


class Clock:
    def __init__(self, now: dt.datetime = NOW) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now


def chain_doc() -> bytes:
    p = pki()
    return document(p.leaf(), p.intermediate)


def verifier(served: dict[str, bytes] | None = None, clock: Clock | None = None, **kw: object) -> tuple[HookVerifier, Served]:
    fetcher = Served({URL: chain_doc()} if served is None else served)
    v = HookVerifier(DOMAIN, trust_anchors=[pki().root], fetcher=fetcher, clock=clock or Clock(), **kw)  # type: ignore[arg-type]
    return v, fetcher


def code_of(v: HookVerifier, signature: str | None, url: str | None, body: bytes) -> FailureCode:
    with pytest.raises(VerificationError) as e:
        v.verify(signature, url, body)
    assert e.value.message  # every refusal says why in words
    return e.value.code


def test_good_hook_verifies_and_reports_what_it_checked() -> None:
    v, fetcher = verifier()
    body = hook_body()
    hook = v.verify(sign(body), URL, body)
    assert hook.body == body
    assert hook.certificate_url == URL
    assert hook.signature_timestamp == dt.datetime(2026, 6, 1, 12, 0, 0, tzinfo=dt.timezone.utc)
    assert hook.json()["message_id"] == 123
    assert hook.chain.leaf.subject.rfc4514_string() == f"CN={HOST}"
    assert fetcher.fetches == [URL]


def test_url_variants_normalise_to_one_cached_download() -> None:
    v, fetcher = verifier()
    body = hook_body()
    for url in (URL, f"https://{HOST}:443/platform/hooks/certificate/", f"https://{HOST}//platform/hooks/certificate/",
                "HTTPS://HOOKS.Platform.Test/platform/hooks/x/../certificate/"):
        assert v.verify(sign(body), url, body).certificate_url == URL
    assert fetcher.fetches == [URL]


@pytest.mark.parametrize(
    ("url", "code"),
    [
        (None, FailureCode.CERT_URL_MALFORMED),
        ("https://hooks.platform.test/platform/hooks/certificate/?x=1", FailureCode.CERT_URL_MALFORMED),
        ("http://hooks.platform.test/platform/hooks/certificate/", FailureCode.CERT_URL_SCHEME),
        ("https://hooks.evil.test/platform/hooks/certificate/", FailureCode.CERT_URL_HOST),
        ("https://platform.test/platform/hooks/certificate/", FailureCode.CERT_URL_HOST),
        ("https://hooks.platform.test/platform/hooks/certificate", FailureCode.CERT_URL_PATH),
        ("https://hooks.platform.test:8443/platform/hooks/certificate/", FailureCode.CERT_URL_PORT),
    ],
)
def test_url_rule_refuses_before_any_download(url: str | None, code: FailureCode) -> None:
    v, fetcher = verifier()
    body = hook_body()
    assert code_of(v, sign(body), url, body) == code
    assert fetcher.fetches == []


def test_unreachable_certificate_is_cert_fetch_failed() -> None:
    v, _ = verifier(served={})
    assert code_of(v, sign(hook_body()), URL, hook_body()) == FailureCode.CERT_FETCH_FAILED


def test_a_fetcher_that_raises_anything_else_is_cert_fetch_failed() -> None:
    def broken(url: str) -> bytes:
        raise OSError("connection reset by 10.0.0.7")

    v = HookVerifier(DOMAIN, trust_anchors=[pki().root], fetcher=broken, clock=Clock())
    with pytest.raises(VerificationError) as e:
        v.verify(sign(hook_body()), URL, hook_body())
    assert e.value.code == FailureCode.CERT_FETCH_FAILED
    assert "10.0.0.7" not in e.value.message  # the network's inside is not told


@pytest.mark.parametrize(
    "doc",
    [
        b'{"not_after": "2027-01-01T00:00:00Z"}',
        b'{"certificate": 42}',
        b"not json",
        b'{"certificate": "x", "certificate": "y"}',
        json.dumps({"certificate": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"}).encode(),
        json.dumps({"certificate": "garbage"}).encode(),
        json.dumps({"certificate": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"}).encode(),
    ],
)
def test_documents_without_a_readable_chain_are_cert_malformed(doc: bytes) -> None:
    v, _ = verifier(served={URL: doc})
    assert code_of(v, sign(hook_body()), URL, hook_body()) == FailureCode.CERT_MALFORMED


def test_expired_and_not_yet_valid_leaves() -> None:
    p = pki()
    expired = p.leaf(not_before=NOW - dt.timedelta(days=10), not_after=NOW - dt.timedelta(seconds=1))
    future = p.leaf(not_before=NOW + dt.timedelta(seconds=1))
    v, _ = verifier(served={URL: document(expired, p.intermediate)})
    assert code_of(v, sign(hook_body()), URL, hook_body()) == FailureCode.CERT_EXPIRED
    v, _ = verifier(served={URL: document(future, p.intermediate)})
    assert code_of(v, sign(hook_body()), URL, hook_body()) == FailureCode.CERT_NOT_YET_VALID


def test_validity_is_checked_at_the_moment_of_use_not_only_at_download() -> None:
    p = pki()
    short = p.leaf(not_after=NOW + dt.timedelta(seconds=60))
    clock = Clock()
    v, fetcher = verifier(served={URL: document(short, p.intermediate)}, clock=clock)
    v.verify(sign(hook_body()), URL, hook_body())
    clock.now = NOW + dt.timedelta(seconds=61)
    body = hook_body(signature_timestamp="2026-06-01T12:01:31Z")
    assert code_of(v, sign(body), URL, body) == FailureCode.CERT_EXPIRED
    assert len(fetcher.fetches) == 2  # the expired entry was downloaded once more, in case it was renewed


def test_expired_intermediate() -> None:
    p = pki()
    inter_key = ec_key("short-inter")
    inter = make_cert("Short Intermediate", inter_key, p.root_key, p.root, ca=True,
                      not_after=NOW - dt.timedelta(seconds=5))
    leaf = make_cert(HOST, rsa_key("leaf"), inter_key, inter, sans=[HOST])
    v, _ = verifier(served={URL: document(leaf, inter)})
    assert code_of(v, sign(hook_body()), URL, hook_body()) == FailureCode.CERT_EXPIRED


@pytest.mark.parametrize("sans", [["other.platform.test"], ["*.hooks.platform.test"], ["hooks.platform.test.evil"], []])
def test_url_host_must_be_in_the_leaf_dns_sans(sans: list[str]) -> None:
    p = pki()
    v, _ = verifier(served={URL: document(p.leaf(sans=sans), p.intermediate)})
    assert code_of(v, sign(hook_body()), URL, hook_body()) == FailureCode.CERT_NAME_MISMATCH


def test_wildcard_san_for_one_label_matches() -> None:
    p = pki()
    v, _ = verifier(served={URL: document(p.leaf(sans=["*.platform.test"]), p.intermediate)})
    v.verify(sign(hook_body()), URL, hook_body())


def test_chain_to_an_unknown_root_is_untrusted() -> None:
    other = pki("other")
    v, _ = verifier(served={URL: document(other.leaf(), other.intermediate)})
    assert code_of(v, sign(hook_body()), URL, hook_body()) == FailureCode.CERT_UNTRUSTED


def test_missing_intermediate_is_untrusted() -> None:
    v, _ = verifier(served={URL: document(pki().leaf())})
    assert code_of(v, sign(hook_body()), URL, hook_body()) == FailureCode.CERT_UNTRUSTED


def test_self_signed_leaf_is_untrusted() -> None:
    key = rsa_key("leaf")
    leaf = make_cert(HOST, key, key, sans=[HOST])
    v, _ = verifier(served={URL: document(leaf)})
    assert code_of(v, sign(hook_body()), URL, hook_body()) == FailureCode.CERT_UNTRUSTED


def test_chain_in_any_order_with_the_root_included_verifies() -> None:
    p = pki()
    v, _ = verifier(served={URL: document(p.leaf(), p.root, p.intermediate)})
    v.verify(sign(hook_body()), URL, hook_body())


def test_broken_chains_are_cert_chain_invalid() -> None:
    p = pki()
    # an intermediate that is not a CA
    not_ca_key = ec_key("not-ca")
    not_ca = make_cert("Not A CA", not_ca_key, p.root_key, p.root, ca=False)
    leaf = make_cert(HOST, rsa_key("leaf"), not_ca_key, not_ca, sans=[HOST])
    v, _ = verifier(served={URL: document(leaf, not_ca)})
    assert code_of(v, sign(hook_body()), URL, hook_body()) == FailureCode.CERT_CHAIN_INVALID
    # a leaf whose extended key usage is for code signing only
    v, _ = verifier(served={URL: document(p.leaf(eku=[ExtendedKeyUsageOID.CODE_SIGNING]), p.intermediate)})
    assert code_of(v, sign(hook_body()), URL, hook_body()) == FailureCode.CERT_CHAIN_INVALID
    # a CA certificate as the signing certificate
    ca_leaf = make_cert(HOST, rsa_key("leaf"), p.intermediate_key, p.intermediate, ca=True, sans=[HOST])
    v, _ = verifier(served={URL: document(ca_leaf, p.intermediate)})
    assert code_of(v, sign(hook_body()), URL, hook_body()) == FailureCode.CERT_CHAIN_INVALID
    # the intermediate's path length 0 forbids a second intermediate below it
    sub_key = ec_key("sub")
    sub = make_cert("Sub CA", sub_key, p.intermediate_key, p.intermediate, ca=True)
    leaf = make_cert(HOST, rsa_key("leaf"), sub_key, sub, sans=[HOST])
    v, _ = verifier(served={URL: document(leaf, sub, p.intermediate)})
    assert code_of(v, sign(hook_body()), URL, hook_body()) == FailureCode.CERT_CHAIN_INVALID


def test_ec_and_weak_rsa_leaves_are_cert_key_unsupported() -> None:
    p = pki()
    v, _ = verifier(served={URL: document(p.leaf(ec_key("ec-leaf")), p.intermediate)})
    assert code_of(v, sign(hook_body()), URL, hook_body()) == FailureCode.CERT_KEY_UNSUPPORTED
    weak = rsa_key("weak", 1024)
    v, _ = verifier(served={URL: document(p.leaf(weak), p.intermediate)})
    assert code_of(v, sign(hook_body(), weak), URL, hook_body()) == FailureCode.CERT_KEY_UNSUPPORTED


@pytest.mark.parametrize(
    "signature",
    [
        None,
        "",
        "not base64!",
        "QUJD",  # decodes, but 3 bytes cannot be an RSA-2048 signature
        "QUI=x",
    ],
)
def test_malformed_signatures(signature: str | None) -> None:
    v, _ = verifier()
    assert code_of(v, signature, URL, hook_body()) == FailureCode.SIGNATURE_MALFORMED


def test_non_canonical_unpadded_or_spaced_base64_is_malformed() -> None:
    v, _ = verifier()
    body = hook_body()
    good = sign(body)
    assert good.endswith("==")  # 256 bytes: the last character carries 4 unused bits
    assert code_of(v, good.rstrip("="), URL, body) == FailureCode.SIGNATURE_MALFORMED
    tweaked = good[:-3] + chr(ord(good[-3]) + 1) + "=="
    assert base64.b64decode(tweaked) == base64.b64decode(good)  # same bytes, not canonical
    assert code_of(v, tweaked, URL, body) == FailureCode.SIGNATURE_MALFORMED
    assert code_of(v, good[:100] + "\n" + good[101:], URL, body) == FailureCode.SIGNATURE_MALFORMED
    url_safe = good.replace("+", "-").replace("/", "_")
    if url_safe != good:
        assert code_of(v, url_safe, URL, body) == FailureCode.SIGNATURE_MALFORMED


def test_wrong_key_is_signature_mismatch() -> None:
    v, _ = verifier()
    body = hook_body()
    assert code_of(v, sign(body, rsa_key("someone else")), URL, body) == FailureCode.SIGNATURE_MISMATCH


def test_every_byte_of_the_body_and_of_the_signature_matters() -> None:
    v, _ = verifier(refetch_after=dt.timedelta(hours=1))
    body = hook_body()
    signature = sign(body)
    v.verify(signature, URL, body)
    for i in range(len(body)):
        tampered = body[:i] + bytes([body[i] ^ 0x01]) + body[i + 1 :]
        assert code_of(v, signature, URL, tampered) == FailureCode.SIGNATURE_MISMATCH, i
    raw = base64.b64decode(signature)
    for i in range(len(raw)):
        flipped = base64.b64encode(raw[:i] + bytes([raw[i] ^ 0x80]) + raw[i + 1 :]).decode()
        assert code_of(v, flipped, URL, body) == FailureCode.SIGNATURE_MISMATCH, i


def test_a_reserialised_body_fails() -> None:
    v, _ = verifier()
    body = hook_body()
    reserialised = json.dumps(json.loads(body), separators=(",", ":")).encode()  # same JSON, other bytes
    assert reserialised != body
    assert code_of(v, sign(body), URL, reserialised) == FailureCode.SIGNATURE_MISMATCH


def test_body_must_be_bytes() -> None:
    v, _ = verifier()
    with pytest.raises(TypeError):
        v.verify(sign(hook_body()), URL, json.loads(hook_body()))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("ts", "ok"),
    [
        ("2026-06-01T11:58:30Z", True),  # exactly 120 s old
        ("2026-06-01T12:02:30Z", True),  # exactly 120 s ahead
        ("2026-06-01T11:58:29Z", False),  # 121 s old
        ("2026-06-01T12:02:31Z", False),  # 121 s ahead
    ],
)
def test_the_120_second_window_edges(ts: str, ok: bool) -> None:
    v, _ = verifier()
    body = hook_body(signature_timestamp=ts)
    if ok:
        v.verify(sign(body), URL, body)
    else:
        assert code_of(v, sign(body), URL, body) == FailureCode.TIMESTAMP_OUT_OF_WINDOW


def test_the_window_is_exact_to_the_millisecond() -> None:
    # Issue 39: the clock was rounded down to whole seconds, so a timestamp 120.999 s old was accepted.
    body = hook_body(signature_timestamp="2026-06-01T11:58:30Z")  # 120 s before NOW
    v, _ = verifier(clock=Clock(NOW + dt.timedelta(milliseconds=1)))
    assert code_of(v, sign(body), URL, body) == FailureCode.TIMESTAMP_OUT_OF_WINDOW
    v, _ = verifier(clock=Clock(NOW + dt.timedelta(milliseconds=999)))
    assert code_of(v, sign(body), URL, body) == FailureCode.TIMESTAMP_OUT_OF_WINDOW
    ahead = hook_body(signature_timestamp="2026-06-01T12:02:30Z")  # 120 s after NOW
    v, _ = verifier(clock=Clock(NOW - dt.timedelta(milliseconds=1)))
    assert code_of(v, sign(ahead), URL, ahead) == FailureCode.TIMESTAMP_OUT_OF_WINDOW
    v, _ = verifier(clock=Clock(NOW + dt.timedelta(milliseconds=999)))
    v.verify(sign(ahead), URL, ahead)  # 119.001 s ahead


@pytest.mark.parametrize(
    "body",
    [
        hook_body(signature_timestamp="2026-06-01 12:00:00Z"),
        hook_body(signature_timestamp="2026-06-01T12:00:00.000Z"),
        hook_body(signature_timestamp="2026-06-01T12:00:00+00:00"),
        hook_body(signature_timestamp="2026-02-30T12:00:00Z"),
        hook_body(signature_timestamp="2026-06-01t12:00:00z"),
        hook_body(signature_timestamp=1780315200),
        hook_body(signature_timestamp=""),
        b'{"user_id": "u42"}',
        b'{"signature_timestamp": "2026-06-01T12:00:00Z", "signature_timestamp": "2026-06-01T12:00:00Z"}',
        b'{"signature_timestamp": "2026-06-01T12:00:00Z", "m": {"a": 1, "a": 2}}',
        b'{"signature_timestamp": "2026-06-01T12:00:00Z"} {}',
        b'["2026-06-01T12:00:00Z"]',
        b'{"signature_timestamp": "2026-06-01T12:00:00Z", "x": NaN}',
    ],
)
def test_malformed_timestamps_and_bodies(body: bytes) -> None:
    v, _ = verifier()
    assert code_of(v, sign(body), URL, body) == FailureCode.TIMESTAMP_MALFORMED


def test_rotation_is_picked_up_with_one_download() -> None:
    p = pki()
    old_doc = document(p.leaf(), p.intermediate)
    new_key = rsa_key("rotated")
    new_doc = document(p.leaf(new_key), p.intermediate)
    clock = Clock()
    v, fetcher = verifier(served={URL: old_doc}, clock=clock)
    v.verify(sign(hook_body()), URL, hook_body())
    fetcher.served[URL] = new_doc
    clock.now = NOW + dt.timedelta(seconds=31)  # the cached certificate is older than refetch_after
    body = hook_body(signature_timestamp="2026-06-01T12:01:00Z")
    v.verify(sign(body, new_key), URL, body)
    assert len(fetcher.fetches) == 2
    v.verify(sign(body, new_key), URL, body)
    assert len(fetcher.fetches) == 2  # the new chain is cached


def test_rotated_key_while_the_url_still_serves_the_old_chain() -> None:
    clock = Clock()
    v, fetcher = verifier(clock=clock)
    v.verify(sign(hook_body()), URL, hook_body())
    clock.now = NOW + dt.timedelta(seconds=31)
    body = hook_body(signature_timestamp="2026-06-01T12:01:00Z")
    assert code_of(v, sign(body, rsa_key("rotated")), URL, body) == FailureCode.SIGNATURE_MISMATCH
    assert len(fetcher.fetches) == 2  # one re-download, no more
    assert code_of(v, sign(body, rsa_key("rotated")), URL, body) == FailureCode.SIGNATURE_MISMATCH
    assert len(fetcher.fetches) == 2  # bad signatures do not each trigger a download


def test_bad_signatures_right_after_a_download_do_not_download_again() -> None:
    v, fetcher = verifier()
    body = hook_body()
    for _ in range(5):
        assert code_of(v, sign(body, rsa_key("someone else")), URL, body) == FailureCode.SIGNATURE_MISMATCH
    assert fetcher.fetches == [URL]


def test_refetch_failure_after_a_mismatch_is_reported_as_mismatch() -> None:
    clock = Clock()
    v, fetcher = verifier(clock=clock, refetch_after=dt.timedelta(0))
    v.verify(sign(hook_body()), URL, hook_body())
    fetcher.served.clear()
    with pytest.raises(VerificationError) as e:
        v.verify(sign(hook_body(), rsa_key("rotated")), URL, hook_body())
    assert e.value.code == FailureCode.SIGNATURE_MISMATCH
    assert "CERT_FETCH_FAILED" in e.value.message


def test_the_cache_is_bounded() -> None:
    p = pki()
    domains = [f"d{i}.test" for i in range(4)]
    served = {}
    for d in domains:
        host = f"hooks.{d}"
        served[f"https://{host}/platform/hooks/certificate/"] = document(
            make_cert(host, rsa_key("leaf"), p.intermediate_key, p.intermediate, sans=[host]), p.intermediate
        )
    fetcher = Served(served)
    v = HookVerifier(domains, trust_anchors=[p.root], fetcher=fetcher, clock=Clock(), cache_size=2)
    body = hook_body()
    for d in domains + domains[:1]:
        v.verify(sign(body), f"https://hooks.{d}/platform/hooks/certificate/", body)
    assert len(fetcher.fetches) == 5  # d0 was evicted by d2 and d3, and downloaded again


def test_cache_entries_expire_after_max_age() -> None:
    clock = Clock()
    v, fetcher = verifier(clock=clock, cache_max_age=dt.timedelta(seconds=60))
    v.verify(sign(hook_body()), URL, hook_body())
    clock.now = NOW + dt.timedelta(seconds=61)
    body = hook_body(signature_timestamp="2026-06-01T12:01:31Z")
    v.verify(sign(body), URL, body)
    assert len(fetcher.fetches) == 2


def test_failures_are_not_cached() -> None:
    v, fetcher = verifier(served={})
    assert code_of(v, sign(hook_body()), URL, hook_body()) == FailureCode.CERT_FETCH_FAILED
    fetcher.served[URL] = chain_doc()
    v.verify(sign(hook_body()), URL, hook_body())


def test_platform_domains_are_required_and_checked() -> None:
    with pytest.raises(ValueError):
        HookVerifier([], trust_anchors=[pki().root])
    with pytest.raises(ValueError):
        HookVerifier("localhost", trust_anchors=[pki().root])
    assert HookVerifier(" .Platform.Test ", trust_anchors=[pki().root]).platform_domains == ("platform.test",)


def test_error_carries_code_and_plain_message() -> None:
    v, _ = verifier()
    with pytest.raises(VerificationError) as e:
        v.verify(sign(hook_body()), "http://hooks.platform.test/platform/hooks/certificate/", hook_body())
    assert e.value.code == "CERT_URL_SCHEME"
    assert str(e.value) == f"CERT_URL_SCHEME: {e.value.message}"
    assert "https" in e.value.message


def test_intermediates_without_key_usage_or_with_a_non_critical_ca_flag_are_accepted_as_the_platform_does() -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import NameOID

    p = pki()
    key = ec_key("lenient-ca")
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Lenient CA")])
    lenient = (
        x509.CertificateBuilder().subject_name(name).issuer_name(p.root.subject).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(NOW - dt.timedelta(days=1)).not_valid_after(NOW + dt.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(p.root_key.public_key()), False)
        .sign(p.root_key, hashes.SHA256())
    )
    leaf = make_cert(HOST, rsa_key("leaf"), key, lenient, sans=[HOST])
    v, _ = verifier(served={URL: document(leaf, lenient)})
    v.verify(sign(hook_body()), URL, hook_body())


def test_an_expired_trust_anchor_is_cert_expired() -> None:
    key = ec_key("old-root")
    old_root = make_cert("Old Root", key, key, ca=True, not_before=NOW - dt.timedelta(days=9),
                         not_after=NOW - dt.timedelta(days=1))
    leaf = make_cert(HOST, rsa_key("leaf"), key, old_root, sans=[HOST])
    v = HookVerifier(DOMAIN, trust_anchors=[old_root], fetcher=Served({URL: document(leaf)}), clock=Clock())
    assert code_of(v, sign(hook_body()), URL, hook_body()) == FailureCode.CERT_EXPIRED


def under_a_root_ending_in_a_minute() -> tuple[HookVerifier, Clock]:
    """A verifier whose only root ends 60 s after NOW, with a chain under it verified (and cached) at NOW."""
    key = ec_key("short-root")
    root = make_cert("Short Root", key, key, ca=True, not_before=NOW - dt.timedelta(days=1),
                     not_after=NOW + dt.timedelta(seconds=60))
    leaf = make_cert(HOST, rsa_key("leaf"), key, root, sans=[HOST])
    clock = Clock()
    v = HookVerifier(DOMAIN, trust_anchors=[root], fetcher=Served({URL: document(leaf)}), clock=clock)
    v.verify(sign(hook_body()), URL, hook_body())
    return v, clock


def test_a_cached_chain_is_refused_once_its_trust_anchor_has_expired() -> None:
    # the chain is cached (for an hour) before the root ends, used again after it
    v, clock = under_a_root_ending_in_a_minute()
    clock.now = NOW + dt.timedelta(seconds=90)
    later = hook_body(signature_timestamp="2026-06-01T12:02:00Z")
    assert code_of(v, sign(later), URL, later) == FailureCode.CERT_EXPIRED


def test_a_certificate_is_valid_to_the_end_of_its_not_after_second() -> None:
    # X.509 dates are whole seconds and Not After is inclusive: half a second past it is still that second
    v, clock = under_a_root_ending_in_a_minute()
    clock.now = NOW + dt.timedelta(seconds=60, milliseconds=500)
    at_end = hook_body(signature_timestamp="2026-06-01T12:01:30Z")
    v.verify(sign(at_end), URL, at_end)


def test_concurrent_hooks_share_one_download() -> None:
    import threading
    import time

    class SlowServed(Served):
        def __call__(self, url: str) -> bytes:
            time.sleep(0.2)
            return super().__call__(url)

    fetcher = SlowServed({URL: chain_doc()})
    v = HookVerifier(DOMAIN, trust_anchors=[pki().root], fetcher=fetcher, clock=Clock())
    body = hook_body()
    results: list[str] = []

    def run() -> None:
        results.append(v.verify(sign(body), URL, body).certificate_url)

    threads = [threading.Thread(target=run) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [URL] * 8
    assert fetcher.fetches == [URL]


def test_failed_refreshes_do_not_keep_a_withdrawn_chain_past_its_maximum_age() -> None:
    clock = Clock()
    v, fetcher = verifier(clock=clock)
    v.verify(sign(hook_body()), URL, hook_body())
    del fetcher.served[URL]  # the platform took the certificate off its URL (its key leaked)
    clock.now = NOW + dt.timedelta(minutes=45)
    junk = hook_body(signature_timestamp="2026-06-01T12:45:00Z")
    assert code_of(v, sign(junk, rsa_key("someone else")), URL, junk) == FailureCode.SIGNATURE_MISMATCH
    assert len(fetcher.fetches) == 2  # the refresh was tried, and failed
    clock.now = NOW + dt.timedelta(minutes=75)  # over an hour after the only download
    body = hook_body(signature_timestamp="2026-06-01T13:15:00Z")
    assert code_of(v, sign(body), URL, body) == FailureCode.CERT_FETCH_FAILED
