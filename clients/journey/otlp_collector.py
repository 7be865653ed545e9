"""A trace collector for the journey: the OTLP/HTTP traces endpoint (`POST /v1/traces`, `application/x-protobuf`, as
the services send it with QUARKUS_OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf), written down as one JSON line per span.

    otlp_collector.py --port P --out FILE

Each line: {"service", "trace_id", "span_id", "parent_span_id", "name", "kind", "start_ns", "end_ns", "status",
"attributes"}. It reads the protobuf wire format itself (the few fields of opentelemetry-proto's trace messages that
the journey looks at), so it needs nothing beyond the standard library. Loopback only; for the journey, not for
production (use the OpenTelemetry Collector there, see docs/operations.md "Tracing").
"""

from __future__ import annotations

import argparse
import gzip
import json
import struct
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

KINDS = {0: "UNSPECIFIED", 1: "INTERNAL", 2: "SERVER", 3: "CLIENT", 4: "PRODUCER", 5: "CONSUMER"}
STATUS = {0: "UNSET", 1: "OK", 2: "ERROR"}


def varint(data: bytes, i: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7


def fields(data: bytes) -> Iterator[tuple[int, int, Any]]:
    """(field number, wire type, value) of one message: an int for varint and fixed fields, bytes for the rest."""
    i = 0
    while i < len(data):
        key, i = varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(data, i)
        elif wire == 1:
            value, i = struct.unpack_from("<Q", data, i)[0], i + 8
        elif wire == 2:
            size, i = varint(data, i)
            value, i = data[i:i + size], i + size
        elif wire == 5:
            value, i = struct.unpack_from("<I", data, i)[0], i + 4
        else:
            raise ValueError(f"wire type {wire} of field {number} is not in the trace messages")
        yield number, wire, value


def any_value(data: bytes) -> Any:
    for number, _, value in fields(data):
        if number == 1:
            return value.decode()
        if number == 2:
            return bool(value)
        if number == 3:
            return value - (1 << 64) if value >= 1 << 63 else value
        if number == 4:
            return struct.unpack("<d", struct.pack("<Q", value))[0]
    return None


def attributes(entries: list[bytes]) -> dict[str, Any]:
    result = {}
    for entry in entries:
        key, value = "", None
        for number, _, v in fields(entry):
            if number == 1:
                key = v.decode()
            elif number == 2:
                value = any_value(v)
        result[key] = value
    return result


def span(data: bytes, service: str) -> dict[str, Any]:
    s: dict[str, Any] = {"service": service, "parent_span_id": "", "kind": "UNSPECIFIED", "status": "UNSET"}
    attrs = []
    for number, _, value in fields(data):
        if number == 1:
            s["trace_id"] = value.hex()
        elif number == 2:
            s["span_id"] = value.hex()
        elif number == 4:
            s["parent_span_id"] = value.hex()
        elif number == 5:
            s["name"] = value.decode()
        elif number == 6:
            s["kind"] = KINDS.get(value, str(value))
        elif number == 7:
            s["start_ns"] = value
        elif number == 8:
            s["end_ns"] = value
        elif number == 9:
            attrs.append(value)
        elif number == 15:
            s["status"] = next((STATUS.get(v, str(v)) for n, _, v in fields(value) if n == 3), "UNSET")
    s["attributes"] = attributes(attrs)
    return s


def spans(request: bytes) -> Iterator[dict[str, Any]]:
    """The spans of one ExportTraceServiceRequest, each with its resource's service.name."""
    for number, _, resource_spans in fields(request):
        if number != 1:
            continue
        service, scopes = "", []
        for n, _, v in fields(resource_spans):
            if n == 1:
                service = attributes([a for k, _, a in fields(v) if k == 1]).get("service.name", "")
            elif n == 2:
                scopes.append(v)
        for scope in scopes:
            for n, _, v in fields(scope):
                if n == 2:
                    yield span(v, service)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the http.server name)
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            if self.path != "/v1/traces":
                self.send_response(404)
                self.end_headers()
                return
            try:
                decoded = list(spans(body))
            except (ValueError, IndexError, struct.error, UnicodeDecodeError) as e:
                print(f"otlp_collector: an export it could not read: {e}", file=sys.stderr)
                self.send_response(400)
                self.end_headers()
                return
            with lock, open(args.out, "a", encoding="utf-8") as f:
                for s in decoded:
                    f.write(json.dumps(s) + "\n")
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"otlp_collector: listening on 127.0.0.1:{args.port}, spans to {args.out}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
