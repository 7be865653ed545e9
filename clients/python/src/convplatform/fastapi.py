"""FastAPI (ASGI) integration: a dependency that verifies the hook on the raw body.

    verifier = HookVerifier("platform.example")
    app = FastAPI()
    verified_hook = HookDependency(app, verifier)

    @app.post("/hooks", status_code=204)
    async def hooks(hook: VerifiedHook = Depends(verified_hook)):
        message = hook.json()

A hook that fails verification is answered 400 with ``{"error_code": ..., "error_message": ...}`` (the handler is
registered on ``app`` by the constructor) and the endpoint does not run. Verification may download the platform's
certificate, which blocks, so it runs in a worker thread.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from .errors import VerificationError
from .hooks import CERTIFICATE_URL_HEADER, SIGNATURE_HEADER, HookVerifier, VerifiedHook

__all__ = ["HookDependency", "HookRejected"]


class HookRejected(Exception):
    """Raised by :class:`HookDependency` for a hook that failed verification; answered 400."""

    def __init__(self, error: VerificationError) -> None:
        super().__init__(str(error))
        self.error = error


async def _answer(request: Request, exc: Exception) -> JSONResponse:
    error = exc.error if isinstance(exc, HookRejected) else None
    if error is None:
        return JSONResponse({"error_code": "INTERNAL_ERROR", "error_message": "unexpected error"}, status_code=500)
    return JSONResponse({"error_code": error.code.value, "error_message": error.message}, status_code=400)


class HookDependency:
    """A FastAPI dependency returning the :class:`VerifiedHook`. ``on_failure`` is called with each refusal before
    the 400 is answered (to log it)."""

    def __init__(
        self,
        app: FastAPI,
        verifier: HookVerifier,
        *,
        on_failure: Callable[[VerificationError], None] | None = None,
    ) -> None:
        self._verifier = verifier
        self._on_failure = on_failure
        app.add_exception_handler(HookRejected, _answer)

    async def __call__(self, request: Request) -> VerifiedHook:
        body = await request.body()
        try:
            return await run_in_threadpool(
                self._verifier.verify,
                request.headers.get(SIGNATURE_HEADER),
                request.headers.get(CERTIFICATE_URL_HEADER),
                body,
            )
        except VerificationError as e:
            if self._on_failure is not None:
                self._on_failure(e)
            raise HookRejected(e) from None
