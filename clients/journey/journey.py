"""Steps of the interop journey that are not an integrator's (the operator's set-up) or that probe a receiver.

    journey.py account --dir D --name N --fqdn F --business B --webhook URL --key-type rsa|ec
        creates an account, a client, a self-signed certificate (key and certificate written to D) registered
        through the operator API, and an upload user; prints shell assignments (ACCOUNT_ID=..., ...).
    journey.py probe --receiver NAME --port P --certificate-url URL --out FILE --expect CODE
        sends a receiver a hook whose signature is wrong (with the platform's real certificate URL); fails unless the
        receiver answers 400 with that error_code and records the refusal.
    journey.py await-hook --receiver NAME --out FILE --message-id ID --account ACCOUNT_ID [--timeout S]
        waits until the receiver has recorded the hook of that message and hook-service has recorded its delivery;
        fails unless both say it was delivered and verified.
    journey.py trace --spans FILE --message-id ID [--timeout S]
        waits until the spans that otlp_collector.py wrote down hold the whole trace of that message's upload: the
        upload's request and hand-off at upload-service, the intake, queue and delivery attempt at hook-service, and
        the account lookup at management-service, all one trace id, each span's parent in it; prints the trace as a
        tree and fails if a part is missing or detached.

The operator key and the service addresses come from OPERATOR_KEY, MANAGEMENT_URL, HOOK_URL and UPLOAD_URL.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import json
import os
import sys
import time
import urllib.error
import urllib.request
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID

from convplatform import format_timestamp


def operator(method: str, url: str, body: dict[str, Any] | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={
        "Authorization": f"Bearer {os.environ['OPERATOR_KEY']}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as e:
        raise SystemExit(f"{method} {url} answered {e.code}: {e.read().decode(errors='replace')}") from None


def self_signed(fqdn: str, key_type: str, directory: str) -> tuple[str, str]:
    key = rsa.generate_private_key(65537, 2048) if key_type == "rsa" else ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, fqdn)])
    now = dt.datetime.now(dt.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(fqdn)]), False)
            .add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), True)
            .sign(key, hashes.SHA256()))
    key_path = os.path.join(directory, f"{fqdn}-key.pem")
    with open(key_path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return key_path, cert.public_bytes(serialization.Encoding.PEM).decode("ascii")


def account(args: argparse.Namespace) -> None:
    management, upload = os.environ["MANAGEMENT_URL"], os.environ["UPLOAD_URL"]
    acc = operator("POST", f"{management}/admin/v1/accounts", {
        "name": args.name, "fqdn": args.fqdn, "business_id": args.business, "webhook_url": args.webhook})
    client = operator("POST", f"{management}/admin/v1/accounts/{acc['account_id']}/clients", {"name": args.name})
    key_path, pem = self_signed(args.fqdn, args.key_type, args.dir)
    cert = operator("POST", f"{management}/admin/v1/accounts/{acc['account_id']}/certificates", {"certificate": pem})
    auth_id = "journey" + args.business
    operator("POST", f"{upload}/admin/v1/users", {"auth_id": auth_id, "business_id": args.business})
    for k, v in {"ACCOUNT_ID": acc["account_id"], "CLIENT_ID": client["client_id"],
                 "CERT_UUID": cert["certificate_uuid"], "KEY": key_path, "FQDN": args.fqdn,
                 "BUSINESS_ID": args.business, "AUTH_ID": auth_id}.items():
        print(f"{k}={v}")


def records(path: str) -> list[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


def probe(args: argparse.Namespace) -> None:
    body = json.dumps({"user_id": "probe", "message_id": 0, "signature_timestamp":
                       format_timestamp(dt.datetime.now(dt.timezone.utc))}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{args.port}/hooks/probe", data=body, method="POST", headers={
        "Content-Type": "application/json", "signature-certificate-url": args.certificate_url,
        "signature": base64.b64encode(bytes(256)).decode()})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, answer = response.status, response.read()
    except urllib.error.HTTPError as e:
        status, answer = e.code, e.read()
    try:
        code = json.loads(answer).get("error_code")
    except (ValueError, AttributeError):
        code = None
    recorded = records(args.out)
    last = recorded[-1] if recorded else None
    if status != 400 or code != args.expect or last != {"ok": False, "code": args.expect}:
        raise SystemExit(f"the {args.receiver} receiver answered a hook with a wrong signature {status} {answer[:300]!r}"
                         f" and recorded {last}; expected 400 {args.expect}")
    print(f"   {args.receiver} receiver: a hook with a wrong signature was refused, 400 {code}")


def await_hook(args: argparse.Namespace) -> None:
    url = f"{os.environ['HOOK_URL']}/admin/v1/deliveries?account_id={args.account}"
    deadline = time.monotonic() + args.timeout
    mine: dict[str, Any] | None = None
    delivered: list[Any] = []
    while time.monotonic() < deadline:
        mine = next((r for r in records(args.out) if r.get("message_id") == args.message_id or
                     r.get("ok") is False), None)
        delivered = [d for d in operator("GET", url) if d.get("status") == "DELIVERED"]
        if mine is not None and (mine.get("ok") is False or delivered):
            break
        time.sleep(0.5)
    if mine is None:
        raise SystemExit(f"the {args.receiver} receiver recorded no hook for message {args.message_id} within "
                         f"{args.timeout:.0f} s; hook-service's deliveries: {operator('GET', url)}")
    if mine.get("ok") is not True:
        raise SystemExit(f"the {args.receiver} receiver refused the platform's hook for message {args.message_id}: "
                         f"{mine}; the platform signed it, so the kit and the platform disagree")
    if not delivered:
        raise SystemExit(f"the {args.receiver} receiver verified message {args.message_id}, but hook-service has not "
                         f"recorded the delivery as DELIVERED: {operator('GET', url)}")
    print(f"   {args.receiver} receiver verified the hook of message {args.message_id}; hook-service recorded "
          f"delivery {delivered[0]['delivery_id']} as {delivered[0]['status']} after {delivered[0]['attempts']} "
          "attempt(s)")


EXPECTED = [  # (service, kind, name): the spans one upload must leave, in the order they start
    ("upload-service", "SERVER", "POST /v1.0/log_file_from_user"),
    ("upload-service", "INTERNAL", "upload.handoff"),
    ("upload-service", "CLIENT", "POST"),
    ("hook-service", "SERVER", "POST /internal/v1/events"),
    ("hook-service", "INTERNAL", "hook.delivery.queue"),
    ("hook-service", "CLIENT", "hook.delivery.attempt"),
    ("hook-service", "CLIENT", "GET"),
    ("management-service", "SERVER", "GET /internal/v1/accounts/"),
]
SHOWN = ("platform.", "http.response.status_code", "error.type")


def trace_of(spans: list[dict[str, Any]], message_id: int) -> list[dict[str, Any]]:
    handoff = next((s for s in spans if s.get("name") == "upload.handoff"
                    and s["attributes"].get("platform.message_id") == message_id), None)
    return [] if handoff is None else [s for s in spans if s.get("trace_id") == handoff["trace_id"]]


def missing_parts(trace: list[dict[str, Any]]) -> list[str]:
    return [f"{name}... ({service}, {kind})" for service, kind, name in EXPECTED
            if not any(s["service"] == service and s["kind"] == kind and s["name"].startswith(name) for s in trace)]


def print_tree(trace: list[dict[str, Any]]) -> None:
    start = min(s["start_ns"] for s in trace)
    children: dict[str, list[dict[str, Any]]] = {}
    for s in trace:
        children.setdefault(s["parent_span_id"], []).append(s)

    def show(s: dict[str, Any], depth: int) -> None:
        attrs = ", ".join(f"{k}={v}" for k, v in sorted(s["attributes"].items()) if k.startswith(SHOWN))
        status = " ERROR" if s["status"] == "ERROR" else ""
        print(f"   {'  ' * depth}{s['name']} ({s['service']}, {s['kind']}{status})  "
              f"+{(s['start_ns'] - start) / 1e6:.1f} ms, {(s['end_ns'] - s['start_ns']) / 1e6:.1f} ms"
              + (f"  {attrs}" if attrs else ""))
        for c in sorted(children.get(s["span_id"], []), key=lambda c: c["start_ns"]):
            show(c, depth + 1)

    for root in children.get("", []):
        show(root, 0)


def trace(args: argparse.Namespace) -> None:
    deadline = time.monotonic() + args.timeout
    spans: list[dict[str, Any]] = []
    while True:
        spans = records(args.spans)
        found = trace_of(spans, args.message_id)
        if found and not missing_parts(found) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    if not found:
        raise SystemExit(f"no upload.handoff span for message {args.message_id} among the {len(spans)} spans the "
                         f"collector received within {args.timeout:.0f} s")
    print(f"   the trace of message {args.message_id}: trace id {found[0]['trace_id']}, {len(found)} spans")
    print_tree(found)
    problems = missing_parts(found)
    ids = {s["span_id"] for s in found}
    roots = [s for s in found if not s["parent_span_id"]]
    problems += [f"{s['name']} ({s['service']}) has a parent {s['parent_span_id']} outside the trace's spans"
                 for s in found if s["parent_span_id"] and s["parent_span_id"] not in ids]
    if len(roots) != 1 or roots[0]["service"] != "upload-service" or roots[0]["kind"] != "SERVER":
        problems.append("the trace does not start at exactly one span, upload-service's server span of the upload: "
                        f"{[(r['name'], r['service']) for r in roots]}")
    by_id = {s["span_id"]: s for s in found}
    for s in found:
        parent = by_id.get(s["parent_span_id"])
        if s["kind"] == "SERVER" and parent is not None and (parent["kind"] != "CLIENT"
                                                              or parent["service"] == s["service"]):
            problems.append(f"{s['name']} ({s['service']}) does not continue another service's client span")
    if not any(s["name"] == "hook.delivery.attempt" and s["attributes"].get("platform.delivery.outcome") == "delivered"
               for s in found):
        problems.append("no hook.delivery.attempt with platform.delivery.outcome=delivered")
    if problems:
        raise SystemExit("the upload's trace is not whole:\n   - " + "\n   - ".join(problems))
    print(f"   one trace across {', '.join(sorted({s['service'] for s in found}))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(required=True)
    a = sub.add_parser("account")
    for flag in ("--dir", "--name", "--fqdn", "--business", "--webhook"):
        a.add_argument(flag, required=True)
    a.add_argument("--key-type", choices=["rsa", "ec"], default="rsa")
    a.set_defaults(run=account)
    p = sub.add_parser("probe")
    for flag in ("--receiver", "--port", "--certificate-url", "--out", "--expect"):
        p.add_argument(flag, required=True)
    p.set_defaults(run=probe)
    w = sub.add_parser("await-hook")
    for flag in ("--receiver", "--out", "--account"):
        w.add_argument(flag, required=True)
    w.add_argument("--message-id", type=int, required=True)
    w.add_argument("--timeout", type=float, default=90)
    w.set_defaults(run=await_hook)
    t = sub.add_parser("trace")
    t.add_argument("--spans", required=True)
    t.add_argument("--message-id", type=int, required=True)
    t.add_argument("--timeout", type=float, default=60)
    t.set_defaults(run=trace)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    sys.exit(main())
