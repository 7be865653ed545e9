"""FastAPI (ASGI) integration: a dependency that verifies the hook on the raw body.

    verifier = HookVerifier("platform.example")
    app = FastAPI()
    verified_hook = HookDependency(app, verifier)

    @app.post("/hooks", status_code=204)
    async def hooks(hook: VerifiedHook = Depends(verified_hook)):
        message = hook.json()

A hook that fails verification is answered 400 with ``{"error_code": ..., "error_message": ...}`` (the handler is
registered on ``app`` by the constructor) and the endpoint does not run; a body over ``max_body_bytes`` (1 MiB) is
answered 413 ``BODY_TOO_LARGE``, read no further than that. Verification may download the platform's
certificate, which blocks, so it runs in a worker thread.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from .errors import VerificationError
from .hooks import CERTIFICATE_URL_HEADER, MAX_BODY_BYTES, SIGNATURE_HEADER, HookVerifier, VerifiedHook

__all__ = ["HookDependency", "HookRejected"]


class HookRejected(Exception):
    """Raised by :class:`HookDependency` for a hook that failed verification (answered 400, ``error`` set) or whose
    body is over the limit (answered 413 BODY_TOO_LARGE, ``error`` None)."""

    def __init__(self, error: VerificationError | None, too_large: int = 0) -> None:
        super().__init__(str(error) if error is not None else f"body over {too_large} bytes")
        self.error = error
        self.too_large = too_large


async def _answer(request: Request, exc: Exception) -> JSONResponse:
    if isinstance(exc, HookRejected) and exc.error is None:
        body = {"error_code": "BODY_TOO_LARGE", "error_message": f"The hook body is larger than {exc.too_large} bytes"}
        return JSONResponse(body, status_code=413, headers={"Connection": "close"})
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
        max_body_bytes: int = MAX_BODY_BYTES,
    ) -> None:
        self._verifier = verifier
        self._on_failure = on_failure
        self._max = max_body_bytes
        app.add_exception_handler(HookRejected, _answer)

    async def __call__(self, request: Request) -> VerifiedHook:
        body = await self._body(request)
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

    async def _body(self, request: Request) -> bytes:
        """The raw body, read no further than the limit; over it, HookRejected (413)."""
        length = request.headers.get("content-length", "")
        if length.isdigit() and int(length) > self._max:
            raise HookRejected(None, self._max)
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > self._max:
                raise HookRejected(None, self._max)
            chunks.append(chunk)
        return b"".join(chunks)
