"""The Flask decorator and the FastAPI dependency: the raw body reaches the verifier, a refused hook is answered 400
with {"error_code", "error_message"} and the endpoint does not run."""

from __future__ import annotations

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
