"""The HTTPS download against a local server: trust, host name, redirects, status, size and time limits, and the
address guard."""

from __future__ import annotations

import pytest
from pki import DOMAIN, HOST, NOW, URL, document, hook_body, pki, sign
from servers import answer, serve, trickle

from convplatform import FailureCode, HookVerifier, HttpsFetcher, VerificationError, parse_resolve

PATH = "/platform/hooks/certificate/"


def fetcher(port: int, **kw: object) -> HttpsFetcher:
    kw.setdefault("extra_trust_anchors", [pki().root])
    return HttpsFetcher(resolve={HOST: ("127.0.0.1", port)}, **kw)  # type: ignore[arg-type]


def refused(f: HttpsFetcher, url: str = URL) -> VerificationError:
    with pytest.raises(VerificationError) as e:
        f(url)
    return e.value


def test_downloads_over_https_with_the_extra_anchor_and_the_resolve_override() -> None:
    doc = document(pki().leaf(), pki().intermediate)
    with serve({PATH: answer(200, doc)}) as port:
        assert fetcher(port)(URL) == doc


def test_a_hook_verifies_end_to_end_through_the_download() -> None:
    doc = document(pki().leaf(), pki().intermediate)
    with serve({PATH: answer(200, doc)}) as port:
        v = HookVerifier(DOMAIN, trust_anchors=[pki().root], fetcher=fetcher(port), clock=lambda: NOW)
        body = hook_body()
        assert v.verify(sign(body), URL, body).certificate_url == URL


def test_an_untrusted_server_certificate_fails() -> None:
    with serve({PATH: answer(200, b"{}")}) as port:
        e = refused(fetcher(port, extra_trust_anchors=[]))
    assert e.code == FailureCode.CERT_FETCH_FAILED
    assert "not trusted" in e.message


def test_a_server_certificate_for_another_name_fails() -> None:
    with serve({PATH: answer(200, b"{}")}) as port:
        f = HttpsFetcher(resolve={"other.platform.test": ("127.0.0.1", port)}, extra_trust_anchors=[pki().root])
        e = refused(f, "https://other.platform.test" + PATH)
    assert e.code == FailureCode.CERT_FETCH_FAILED


@pytest.mark.parametrize(
    ("handler", "words"),
    [
        (answer(302, b"", {"Location": "https://hooks.platform.test/elsewhere"}), "redirect"),
        (answer(404, b"{}"), "404"),
        (answer(500, b"{}"), "500"),
        (answer(200, b"x" * (64 * 1024 + 1)), "larger than"),
        (answer(200, b"x" * (64 * 1024 + 1), {"Transfer-Encoding": "chunked"}), ""),
    ],
)
def test_status_redirects_and_size(handler: object, words: str) -> None:
    with serve({PATH: handler}) as port:  # type: ignore[dict-item]
        e = refused(fetcher(port))
    assert e.code == FailureCode.CERT_FETCH_FAILED
    assert words in e.message


def test_a_body_without_length_is_cut_at_the_limit() -> None:
    def endless(h):  # type: ignore[no-untyped-def]
        h.send_response(200)
        h.end_headers()
        try:
            for _ in range(100):
                h.wfile.write(b"x" * 4096)
        except OSError:
            pass

    with serve({PATH: endless}) as port:
        e = refused(fetcher(port, max_bytes=10_000))
    assert "larger than 10000 bytes" in e.message


def test_one_deadline_bounds_a_trickling_answer() -> None:
    with serve({PATH: trickle(5)}) as port:
        e = refused(fetcher(port, total_timeout=1.0, read_timeout=0.5))
    assert e.code == FailureCode.CERT_FETCH_FAILED
    assert "timed out (limit 1000 ms)" in e.message  # the total deadline's words, not the read time-out's


def test_nothing_listening_fails_quickly() -> None:
    with serve({}) as port:
        pass  # closed: nothing listens on the port any more
    e = refused(fetcher(port))
    assert e.code == FailureCode.CERT_FETCH_FAILED
    assert "refused" in e.message


def test_private_addresses_are_refused_without_an_override() -> None:
    e = refused(HttpsFetcher(), "https://localhost" + PATH)
    assert e.code == FailureCode.CERT_FETCH_FAILED
    assert "not public" in e.message


def test_only_https_is_downloaded() -> None:
    assert refused(HttpsFetcher(), "http://hooks.platform.test" + PATH).code == FailureCode.CERT_FETCH_FAILED


def test_parse_resolve() -> None:
    assert parse_resolve("Hooks.Platform.Test=127.0.0.1:8443, b.test=[::1]:9") == {
        "hooks.platform.test": ("127.0.0.1", 8443), "b.test": ("::1", 9)}
    for bad in ["hooks.platform.test", "=1.2.3.4:5", "a=1.2.3.4", "a=1.2.3.4:x", "a=1.2.3.4:70000"]:
        with pytest.raises(ValueError):
            parse_resolve(bad)


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError):
        HttpsFetcher(max_bytes=0)


def test_downloads_from_one_host_at_once_are_limited() -> None:
    import threading

    arrived = threading.Event()
    release = threading.Event()

    def held(h):  # type: ignore[no-untyped-def]
        arrived.set()
        release.wait(30)  # the first download holds its slot until the second has been refused
        answer(200, b"{}")(h)

    with serve({PATH: held}) as port:
        f = fetcher(port, per_host=1, total_timeout=60.0, read_timeout=60.0)
        outcome: list[bytes | VerificationError] = []

        def slow_download() -> None:
            try:
                outcome.append(f(URL))
            except VerificationError as error:
                outcome.append(error)

        first = threading.Thread(target=slow_download)
        first.start()
        assert arrived.wait(30), "the first download never reached the server"
        try:
            e = refused(f)
        finally:
            release.set()
        first.join()
    assert e.code == FailureCode.CERT_FETCH_BUSY
    first_outcome = outcome[0]
    assert isinstance(first_outcome, bytes) or first_outcome.code != FailureCode.CERT_FETCH_BUSY  # it ran
