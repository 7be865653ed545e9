"""A hook receiver (FastAPI): 204 to a hook that verifies, 400 {"error_code", "error_message"} to one that does not.
Run: PLATFORM_DOMAIN=platform.example uvicorn fastapi_receiver:app --port 9000"""
import logging
import os

from fastapi import Depends, FastAPI

from convplatform import HookVerifier, VerifiedHook
from convplatform.fastapi import HookDependency

log = logging.getLogger("hooks")
verifier = HookVerifier(os.environ.get("PLATFORM_DOMAIN", "platform.example").split(","))
app = FastAPI()
verified_hook = HookDependency(app, verifier, on_failure=lambda e: log.warning("hook refused: %s", e))


@app.post("/hooks", status_code=204)
async def receive(hook: VerifiedHook = Depends(verified_hook)) -> None:
    message = hook.json()  # decode only now, after the raw bytes were verified
    log.info("message %s from %s", message["message_id"], message["user_id"])
