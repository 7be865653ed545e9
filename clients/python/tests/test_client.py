"""The management and upload clients against a local HTTP server that checks what they send."""

from __future__ import annotations

import base64
import email.parser
import email.policy
import http.server
import json
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
from pki import rsa_key
from servers import serve

from convplatform import ApiError, ManagementClient, RequestSigner, UploadClient
from convplatform.client import encode_multipart

seen: list[dict[str, Any]] = []


def recorder(status: int, answer: dict[str, Any]):  # type: ignore[no-untyped-def]
    def handle(h: http.server.BaseHTTPRequestHandler) -> None:
        body = h.rfile.read(int(h.headers["Content-Length"]))
        seen.append({"path": h.path, "headers": h.headers, "body": body})  # case-insensitive
        data = json.dumps(answer).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("X-Request-Id", "req-7")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    return handle


@pytest.fixture(autouse=True)
def _clear() -> None:
    seen.clear()


def signer() -> RequestSigner:
    return RequestSigner(rsa_key("client"), cert_uuid="cert-1")


def test_issue_token_posts_the_signed_bytes() -> None:
    token = {"access_token": "eyJ.x.y", "token_type": "Bearer", "expires_in": 3600, "client_id": "c-1"}
    with serve({"/platform/management/token/issue/": recorder(200, token)}, tls=False) as port:
        got = ManagementClient(f"http://127.0.0.1:{port}/", signer()).issue_token("c-1", "client.example.com")
    assert (got.access_token, got.token_type, got.expires_in, got.client_id) == ("eyJ.x.y", "Bearer", 3600, "c-1")
    sent = seen[0]
    assert json.loads(sent["body"])["client_id"] == "c-1"
    assert sent["headers"]["Content-Type"] == "application/json"
    assert sent["headers"]["SignatureCertUUID"] == "cert-1"
    rsa_key("client").public_key().verify(
        base64.b64decode(sent["headers"]["Signature"]), sent["body"], padding.PKCS1v15(), hashes.SHA1()
    )


def test_list_clients() -> None:
    answer = {"clients": [{"client_id": "c-1", "name": "web", "created_at": "2026-06-01T12:00:00Z"}]}
    with serve({"/platform/management/clients/": recorder(200, answer)}, tls=False) as port:
        clients = ManagementClient(f"http://127.0.0.1:{port}", signer()).list_clients("client.example.com")
    assert [(c.client_id, c.name) for c in clients] == [("c-1", "web")]
    assert json.loads(seen[0]["body"])["fqdn"] == "client.example.com"


def test_refusals_carry_the_services_error_body() -> None:
    refusal = {"error_code": "SIGNATURE_MISMATCH", "error_message": "The signature does not match"}
    with serve({"/platform/management/token/issue/": recorder(400, refusal)}, tls=False) as port:
        with pytest.raises(ApiError) as e:
            ManagementClient(f"http://127.0.0.1:{port}", signer()).issue_token("c-1", "client.example.com")
    assert (e.value.status, e.value.error_code, e.value.error_message) == (400, "SIGNATURE_MISMATCH",
                                                                          "The signature does not match")
    assert e.value.request_id == "req-7"


def test_redirects_are_not_followed() -> None:
    def redirect(h: http.server.BaseHTTPRequestHandler) -> None:
        h.send_response(302)
        h.send_header("Location", "/elsewhere")
        h.send_header("Content-Length", "0")
        h.end_headers()

    with serve({"/platform/management/token/issue/": redirect}, tls=False) as port, pytest.raises(ApiError) as e:
        ManagementClient(f"http://127.0.0.1:{port}", signer()).issue_token("c-1", "f.example")
    assert e.value.status == 302


def test_an_unreachable_platform() -> None:
    with serve({}, tls=False) as port:
        pass
    with pytest.raises(ApiError) as e:
        ManagementClient(f"http://127.0.0.1:{port}", signer()).issue_token("c-1", "f.example")
    assert (e.value.status, e.value.error_code) == (None, "CONNECTION_FAILED")


def test_upload_is_multipart_with_bearer_and_client_id(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "scores.csv"
    path.write_bytes(b"name,score\nada,10\n")
    answer = {"message_id": 12, "message_body": "see attached", "created_at": "2026-06-01T12:00:00.123Z",
              "message_type": 52, "file_url": "http://files/abc"}
    with serve({"/v1.0/log_file_from_user/": recorder(200, answer)}, tls=False) as port:
        msg = UploadClient(f"http://127.0.0.1:{port}").upload(
            access_token="tok", client_id="c-1", auth_id="demo", business_id="1001",
            message_type=UploadClient.DOCUMENT, file=path, message_body="see \"attached\"\r\n",
        )
    assert (msg.message_id, msg.message_type, msg.file_url) == (12, 52, "http://files/abc")
    sent = seen[0]
    assert sent["headers"]["Authorization"] == "Bearer tok"
    assert sent["headers"]["client-id"] == "c-1"
    parsed = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + sent["headers"]["Content-Type"].encode() + b"\r\n\r\n" + sent["body"]
    )
    parts = {p.get_param("name", header="content-disposition"): p for p in parsed.iter_parts()}
    assert set(parts) == {"auth_id", "business_id", "message_type", "message_body", "file"}
    assert parts["file"].get_filename() == "scores.csv"
    assert parts["file"].get_content_type() == "text/csv"
    assert parts["file"].get_payload(decode=True) == b"name,score\nada,10\n"
    assert parts["message_type"].get_payload(decode=True) == b"52"
    assert parts["message_body"].get_payload(decode=True) == b'see "attached"\r\n'


def test_upload_refusal() -> None:
    refusal = {"error_code": "INVALID_AUTHORIZATION", "error_message": "Invalid authorization details"}
    with serve({"/v1.0/log_file_from_user/": recorder(401, refusal)}, tls=False) as port:
        with pytest.raises(ApiError) as e:
            UploadClient(f"http://127.0.0.1:{port}").upload(
                access_token="bad", client_id="c-1", auth_id="demo", business_id="1001", message_type=1,
                file=b"\x89PNG", filename="a.png")
    assert (e.value.status, e.value.error_code) == (401, "INVALID_AUTHORIZATION")


def test_multipart_boundary_never_occurs_in_the_content() -> None:
    body, content_type = encode_multipart({"a": "x"}, {"f": ("n.bin", b"--convplatform-" * 100, "application/octet-stream")})
    boundary = content_type.split("boundary=")[1]
    assert body.count(boundary.encode()) == 3  # two parts and the closing delimiter
    with pytest.raises(ValueError):
        UploadClient("http://127.0.0.1:1").upload(access_token="t", client_id="c", auth_id="a", business_id="1",
                                                  message_type=1, file=b"x")
