"""The Flask decorator and the FastAPI dependency: the raw body reaches the verifier, a refused hook is answered 400
with {"error_code", "error_message"} and the endpoint does not run."""

from __future__ import annotations

import io
from typing import Any

import pytest
from pki import DOMAIN, NOW, URL, document, hook_body, pki, rsa_key, sign

from convplatform import HookVerifier, VerificationError, VerifiedHook

HEADERS_OK = {"signature-certificate-url": URL}


def make_verifier() -> HookVerifier:
    doc = document(pki().leaf(), pki().intermediate)
    return HookVerifier(DOMAIN, trust_anchors=[pki().root], fetcher=lambda url: doc, clock=lambda: NOW)


def cases() -> list[tuple[bytes, dict[str, str], int, str | None]]:
    body = hook_body()
    return [
        (body, {**HEADERS_OK, "signature": sign(body)}, 204, None),
        (body + b" ", {**HEADERS_OK, "signature": sign(body)}, 400, "SIGNATURE_MISMATCH"),
        (body, {**HEADERS_OK, "signature": sign(body, rsa_key("other"))}, 400, "SIGNATURE_MISMATCH"),
        (body, {"signature": sign(body)}, 400, "CERT_URL_MALFORMED"),
        (body, {**HEADERS_OK}, 400, "SIGNATURE_MALFORMED"),
        (hook_body("2026-06-01T11:00:00Z"), {**HEADERS_OK, "signature": sign(hook_body("2026-06-01T11:00:00Z"))},
         400, "TIMESTAMP_OUT_OF_WINDOW"),
    ]


def test_flask_decorator() -> None:
    flask = pytest.importorskip("flask", reason="Flask is not installed (pip install 'convplatform[flask]')")
    from convplatform.flask import verify_hook

    received: list[VerifiedHook] = []
    refused: list[VerificationError] = []
    app = flask.Flask(__name__)

    @app.post("/hooks/<name>")
    @verify_hook(make_verifier(), on_failure=refused.append)
    def hooks(hook: VerifiedHook, name: str) -> Any:
        received.append(hook)
        assert name == "demo"
        return "", 204

    client = app.test_client()
    for body, headers, status, code in cases():
        # a form content type must not make the framework consume the body before it is verified
        r = client.post("/hooks/demo", data=body, headers={**headers, "Content-Type": "application/x-www-form-urlencoded"})
        assert r.status_code == status, code
        if code is not None:
            assert r.get_json()["error_code"] == code
            assert r.get_json()["error_message"]
            assert refused[-1].code == code
    assert len(received) == 1
    assert received[0].json()["message_id"] == 123
    assert len(refused) == 5


def test_fastapi_dependency() -> None:
    fastapi = pytest.importorskip("fastapi", reason="FastAPI is not installed (pip install 'convplatform[fastapi]')")
    pytest.importorskip("httpx", reason="httpx (for FastAPI's TestClient) is not installed")
    from fastapi.testclient import TestClient

    from convplatform.fastapi import HookDependency

    received: list[VerifiedHook] = []
    refused: list[VerificationError] = []
    app = fastapi.FastAPI()
    verified_hook = HookDependency(app, make_verifier(), on_failure=refused.append)

    @app.post("/hooks", status_code=204)
    async def hooks(hook: VerifiedHook = fastapi.Depends(verified_hook)) -> None:
        received.append(hook)

    client = TestClient(app)
    for body, headers, status, code in cases():
        r = client.post("/hooks", content=body, headers={**headers, "Content-Type": "application/json"})
        assert r.status_code == status, code
        if code is not None:
            assert r.json() == {"error_code": code, "error_message": refused[-1].message}
    assert len(received) == 1
    assert received[0].signature_timestamp.isoformat() == "2026-06-01T12:00:00+00:00"


def test_flask_decorator_refuses_a_body_over_the_limit_unverified() -> None:
    flask = pytest.importorskip("flask", reason="Flask is not installed (pip install 'convplatform[flask]')")
    from convplatform.flask import verify_hook

    calls: list[object] = []
    app = flask.Flask(__name__)

    @app.post("/hooks")
    @verify_hook(make_verifier(), on_failure=calls.append, max_body_bytes=1000)
    def hooks(hook: VerifiedHook) -> Any:
        calls.append(hook)
        return "", 204

    client = app.test_client()
    big = b"{" + b" " * 1000 + b"}"
    headers = {**HEADERS_OK, "signature": "x", "Content-Type": "application/json"}
    sent_whole = client.post("/hooks", data=big, headers=headers)
    # chunked: no Content-Length, the server marks the input as ending where the body does
    sent_chunked = client.post("/hooks", input_stream=io.BytesIO(big), headers={**headers, "Transfer-Encoding": "chunked"},
                               environ_overrides={"wsgi.input_terminated": True})
    for r in (sent_whole, sent_chunked):
        assert r.status_code == 413
        assert r.get_json() == {"error_code": "BODY_TOO_LARGE", "error_message": "The hook body is larger than 1000 bytes"}
    body = hook_body()
    assert len(body) <= 1000
    assert client.post("/hooks", data=body, headers={**HEADERS_OK, "signature": sign(body)}).status_code == 204
    assert len(calls) == 1 and isinstance(calls[0], VerifiedHook)


def test_fastapi_dependency_refuses_a_body_over_the_limit_unverified() -> None:
    fastapi = pytest.importorskip("fastapi", reason="FastAPI is not installed (pip install 'convplatform[fastapi]')")
    pytest.importorskip("httpx", reason="httpx (for FastAPI's TestClient) is not installed")
    from fastapi.testclient import TestClient

    from convplatform.fastapi import HookDependency

    calls: list[object] = []
    app = fastapi.FastAPI()
    verified_hook = HookDependency(app, make_verifier(), on_failure=calls.append, max_body_bytes=1000)

    @app.post("/hooks", status_code=204)
    async def hooks(hook: VerifiedHook = fastapi.Depends(verified_hook)) -> None:
        calls.append(hook)

    client = TestClient(app)
    big = b"{" + b" " * 1000 + b"}"
    for content in (big, iter([big[:500], big[500:]])):  # with a Content-Length, and chunked
        r = client.post("/hooks", content=content, headers={**HEADERS_OK, "signature": "x"})
        assert r.status_code == 413
        assert r.json() == {"error_code": "BODY_TOO_LARGE", "error_message": "The hook body is larger than 1000 bytes"}
    body = hook_body()
    assert client.post("/hooks", content=body, headers={**HEADERS_OK, "signature": sign(body)}).status_code == 204
    assert len(calls) == 1 and isinstance(calls[0], VerifiedHook)
