"""A hook receiver (Flask): 204 to a hook that verifies, 400 {"error_code", "error_message"} to one that does not.
Settings: PORT, PLATFORM_DOMAIN, TRUST (PEM of extra roots), RESOLVE (host=ip:port, local runs), OUT (JSON lines)."""
import json
import os
import sys
from pathlib import Path

from flask import Flask

from convplatform import HookVerifier, HttpsFetcher, load_pem_anchors, parse_resolve
from convplatform.flask import verify_hook

env = os.environ
trust = load_pem_anchors(Path(env["TRUST"]).read_bytes()) if env.get("TRUST") else []
fetcher = HttpsFetcher(extra_trust_anchors=trust, resolve=parse_resolve(env.get("RESOLVE", "")))
verifier = HookVerifier(env.get("PLATFORM_DOMAIN", "platform.example").split(","), extra_trust_anchors=trust,
                        fetcher=fetcher)
out = open(env["OUT"], "a", encoding="utf-8") if env.get("OUT") else sys.stdout
app = Flask(__name__)


@app.post("/<path:path>")
@verify_hook(verifier, on_failure=lambda e: print(json.dumps({"ok": False, "code": e.code.value}), file=out, flush=True))
def receive(hook, path):
    print(json.dumps({"ok": True, "message_id": hook.json()["message_id"]}), file=out, flush=True)
    return "", 204


app.run(host="127.0.0.1", port=int(env.get("PORT", "9000")))
