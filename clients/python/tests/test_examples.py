"""The examples are the files the README shows and the journey runs; these tests keep the README's copies equal to
them and run the FastAPI one in-process."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1]
README = HERE / "README.md"


def blocks() -> dict[str, str]:
    """The README's code blocks introduced by a line naming an example file, `examples/<file>`."""
    text = README.read_text(encoding="utf-8")
    pattern = r"`(examples/[\w.]+)`(?:(?!```).)*?```python\n(.*?)```"
    return {m.group(1): m.group(2) for m in re.finditer(pattern, text, re.DOTALL)}


def test_every_example_in_the_readme_is_the_file_itself() -> None:
    shown = blocks()
    assert set(shown) >= {"examples/receiver.py", "examples/signer.py", "examples/fastapi_receiver.py"}
    for name, code in shown.items():
        assert code == (HERE / name).read_text(encoding="utf-8"), f"README's copy of {name} differs from the file"
        assert len(code.splitlines()) < 30, f"{name} is meant to be under 30 lines"


def test_fastapi_example_refuses_a_bad_hook_with_400(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("fastapi", reason="FastAPI is not installed (pip install 'convplatform[fastapi]')")
    pytest.importorskip("httpx", reason="httpx (for FastAPI's TestClient) is not installed")
    from fastapi.testclient import TestClient

    monkeypatch.setenv("PLATFORM_DOMAIN", "platform.example")
    spec = importlib.util.spec_from_file_location("fastapi_receiver", HERE / "examples" / "fastapi_receiver.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    r = TestClient(module.app).post("/hooks", content=b'{"message_id": 1}', headers={
        "signature": "AAAA", "signature-certificate-url": "http://hooks.platform.example/platform/hooks/certificate/"})
    assert r.status_code == 400
    assert r.json()["error_code"] == "CERT_URL_SCHEME"
