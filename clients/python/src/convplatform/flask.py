"""Flask integration: a view decorator that verifies the hook on the raw body before the view runs.

    verifier = HookVerifier("platform.example")

    @app.post("/hooks")
    @verify_hook(verifier)
    def hooks(hook: VerifiedHook):
        message = hook.json()
        return "", 204

A hook that fails verification is answered 400 with ``{"error_code": ..., "error_message": ...}`` and the view does
not run; a body over ``max_body_bytes`` (1 MiB) is answered 413 ``BODY_TOO_LARGE`` without being read.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from flask import jsonify, request

from .errors import VerificationError
from .hooks import CERTIFICATE_URL_HEADER, MAX_BODY_BYTES, SIGNATURE_HEADER, HookVerifier, VerifiedHook

__all__ = ["verify_hook"]

F = TypeVar("F", bound=Callable[..., Any])


def verify_hook(
    verifier: HookVerifier,
    *,
    on_failure: Callable[[VerificationError], None] | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a Flask view: it is called with the :class:`VerifiedHook` as its first argument (URL parameters
    follow as keyword arguments). ``on_failure`` is called with each refusal before the 400 is answered (to log it)."""

    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(view)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            body = _body(max_body_bytes)
            if body is None:
                error = {"error_code": "BODY_TOO_LARGE", "error_message": f"The hook body is larger than {max_body_bytes} bytes"}
                return jsonify(error), 413, {"Connection": "close"}
            try:
                hook: VerifiedHook = verifier.verify(
                    request.headers.get(SIGNATURE_HEADER), request.headers.get(CERTIFICATE_URL_HEADER), body
                )
            except VerificationError as e:
                if on_failure is not None:
                    on_failure(e)
                return jsonify({"error_code": e.code.value, "error_message": e.message}), 400
            return view(hook, *args, **kwargs)

        return wrapper

    return decorate


def _body(limit: int) -> bytes | None:
    """The raw body, or None when it is longer than ``limit`` (then it is not read, or read no further than that)."""
    length = request.content_length
    if length is not None:
        return None if length > limit else request.get_data(cache=True, as_text=False, parse_form_data=False)
    chunks: list[bytes] = []
    size = 0
    while size <= limit:  # no Content-Length (chunked): read one byte past the limit at most
        chunk = request.stream.read(limit + 1 - size)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
    return None
