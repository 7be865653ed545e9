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
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    sys.exit(main())
