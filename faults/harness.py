"""The fault harness's orchestrator (Python 3.11, standard library only); faults/run.sh starts it. See faults/README.md.

Starts management-service, three hook-service replicas and two upload-service replicas on PostgreSQL (databases of
this run's own, through a TCP proxy the harness controls), a receiver on loopback that misbehaves on a schedule, and a
steady load of uploads over both upload replicas; injects faults (SIGKILL and SIGTERM of replicas, database cuts, a
management-service outage, a rotation of the hook signing key); waits for the backlog to drain; then checks from the
receiver's log and the databases that nothing was lost or stuck and prints one table of figures. Exit status 1 when
something was lost or stuck (or did not drain in time), 2 when the platform could not be started.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from typing import Any, Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JAR_DIR = "quarkus-app"  # <module>/target/quarkus-app/quarkus-run.jar: the jar every build makes
# hook-service's deliveries, one row each, whatever their state: the unfinished ones in the queue (PENDING), the
# finished ones as their latest history row (hook-service README, Storage).
DELIVERIES = ("(select q.id, q.message_id, 'PENDING' as status, q.attempts, q.lease_owner, q.lease_until from"
              " delivery_queue q union all select h.id, h.message_id, h.status, h.attempts, null, null from"
              " delivery_history h where not exists (select 1 from delivery_queue q where q.id = h.id) and not exists"
              " (select 1 from delivery_history n where n.id = h.id and n.finished_at > h.finished_at)) d")
CERT_HOST = "hooks.platform.example"  # hook-service's default hook.certificate-url host
OPERATOR_KEY = "faults-operator-" + uuid.uuid4().hex
MANAGEMENT_INTERNAL_KEY = "faults-mgmt-internal-" + uuid.uuid4().hex
HOOK_INTERNAL_KEY = "faults-hook-internal-" + uuid.uuid4().hex
# Retries within the run: the production schedule (5 s, 5 min, 30 min, ...) would leave a hook that failed twice
# waiting half an hour. Long enough that no delivery is dead-lettered during the run (the receiver's bad windows last
# at most 40 s).
RETRY_SCHEDULE = ",".join(["PT2S", "PT4S", "PT8S", "PT15S"] + ["PT20S"] * 40)
JAVA_OPTS = ["-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]

T0 = time.time()
_print_lock = threading.Lock()


def now() -> float:
    return time.time()


def say(message: str) -> None:
    with _print_lock:
        print(f"[{now() - T0:7.1f}s] {message}", flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Events:
    """What the harness did and when, one JSON line each in events.jsonl (kept in the work directory)."""

    def __init__(self, path: str):
        self.path = path
        self.items: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def add(self, kind: str, **detail: Any) -> dict[str, Any]:
        item = {"t": now(), "kind": kind, **detail}
        with self.lock:
            self.items.append(item)
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(item) + "\n")
        return item


# ------------------------------------------------------------------------------------------------------------ proxies

class Proxy:
    """A TCP proxy on 127.0.0.1 in front of one or more backends (tried in the order backends() gives, the next one when
    a connection cannot be opened). cut('refuse') closes every connection and closes new ones at once; cut('blackhole')
    closes every connection and holds new ones open without an answer until restore(), which then closes them."""

    def __init__(self, loop: asyncio.AbstractEventLoop, name: str, backends: Callable[[], list[int]]):
        self.loop = loop
        self.name = name
        self.backends = backends
        self.state = "up"
        self.pairs: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self.held: set[asyncio.StreamWriter] = set()
        self.port = 0
        self.connections = 0

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.state == "refuse":
            writer.transport.abort()
            return
        if self.state == "blackhole":
            self.held.add(writer)
            return
        backend = None
        for port in self.backends():
            try:
                backend = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 2)
                break
            except (OSError, asyncio.TimeoutError):
                continue
        if backend is None or self.state != "up":
            if backend is not None:
                backend[1].transport.abort()
            writer.transport.abort()
            return
        breader, bwriter = backend
        pair = (writer, bwriter)
        self.pairs.add(pair)
        self.connections += 1
        try:
            tasks = [asyncio.ensure_future(self._pump(reader, bwriter)),
                     asyncio.ensure_future(self._pump(breader, writer))]
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for t in tasks:
                t.cancel()
        finally:
            self.pairs.discard(pair)
            for w in pair:
                w.close()

    @staticmethod
    async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    return
                writer.write(data)
                await writer.drain()
        except (OSError, asyncio.CancelledError):
            return

    async def _set(self, state: str) -> None:
        self.state = state
        if state != "up":
            for pair in list(self.pairs):
                for w in pair:
                    w.transport.abort()
            self.pairs.clear()
        else:
            for w in list(self.held):
                w.transport.abort()
            self.held.clear()

    def cut(self, mode: str) -> None:
        asyncio.run_coroutine_threadsafe(self._set(mode), self.loop).result(10)

    def restore(self) -> None:
        asyncio.run_coroutine_threadsafe(self._set("up"), self.loop).result(10)


# ----------------------------------------------------------------------------------------------------------- database

def psql(db: str, sql: str, timeout: float = 30) -> list[list[str]]:
    """Rows of a query on the real PostgreSQL (not through the proxy), fields split on '|'."""
    out = subprocess.run(["psql", "-h", "127.0.0.1", "-p", "5432", "-U", "postgres", "-d", db, "-X", "-q", "-At",
                          "-F", "|", "-v", "ON_ERROR_STOP=1", "-c", sql],
                         capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(f"psql {db}: {out.stderr.strip()}")
    return [line.split("|") for line in out.stdout.splitlines() if line]


# ----------------------------------------------------------------------------------------------------------- services

class Service:
    def __init__(self, harness: "Harness", kind: str, index: int, module: str, env: Callable[["Service"], dict[str, str]]):
        self.h = harness
        self.kind = kind
        self.index = index
        self.name = f"{kind}-{index}" if kind != "management" else "management"
        self.jar = os.path.join(ROOT, module, "target", JAR_DIR, "quarkus-run.jar")
        self.port = free_port()
        self.ops_port = free_port()  # its management interface (health, metrics): replicas side by side
        self.https_port = free_port() if kind == "hook" else 0
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None
        self.incarnation = 0
        self.gen = 1  # hook signing key generation it runs with
        self.lock = threading.Lock()  # held by whoever stops or starts it
        self.log_path = ""

    def start(self) -> None:
        if self.h.stopping.is_set():
            return
        self.incarnation += 1
        if self.kind == "hook":
            self.gen = self.h.key_gen
        self.log_path = os.path.join(self.h.work, "logs", f"{self.name}.{self.incarnation}.log")
        env = dict(os.environ)
        env.update(self.env(self))
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(["java", *JAVA_OPTS, "-jar", self.jar], env=env, stdout=log,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=self.h.work)
        self.h.events.add("start", target=self.name, pid=self.proc.pid, incarnation=self.incarnation, gen=self.gen)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.ops_port}/q/health/ready", timeout=2) as r:
                return r.status == 200
        except (OSError, urllib.error.URLError):
            return False

    def wait_ready(self, timeout: float) -> bool:
        deadline = now() + timeout
        while now() < deadline:
            if not self.alive() or self.h.stopping.is_set():
                return False
            if self.ready():
                self.h.events.add("ready", target=self.name, incarnation=self.incarnation)
                return True
            time.sleep(0.5)
        return False

    def start_until_ready(self, timeout: float) -> bool:
        """Starts it and waits for readiness; a process that exits on the way (e.g. its database unreachable at start)
        is started again after 2 s, as a supervisor (Kubernetes) would."""
        deadline = now() + timeout
        while now() < deadline:
            self.start()
            if self.wait_ready(max(1.0, deadline - now())):
                return True
            if self.alive():
                return False
            say(f"{self.name} exited while starting (status {self.proc.returncode}, {self.log_path}); starting it"
                " again in 2 s")
            self.h.events.add("exited at start", target=self.name, status=self.proc.returncode)
            time.sleep(2)
        return False

    def replica_id(self) -> str | None:
        """hook-service logs the id its lease owners start with (DeliveryStore)."""
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                m = re.search(r"Delivery replica ([0-9a-f-]{36})", f.read())
            return m.group(1) if m else None
        except OSError:
            return None

    def signal(self, sig: int) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)

    def wait_exit(self, timeout: float) -> bool:
        if self.proc is None:
            return True
        try:
            self.proc.wait(timeout)
            return True
        except subprocess.TimeoutExpired:
            return False


# -------------------------------------------------------------------------------------------------------- the harness

class Harness:
    def __init__(self, args: argparse.Namespace, work: str):
        self.args = args
        self.short = args.short
        self.work = work
        self.rng = random.Random(args.seed)
        self.events = Events(os.path.join(work, "events.jsonl"))
        self.key_gen = 1
        self.run_id = uuid.uuid4().hex[:8]
        self.dbs = {k: f"faults_{self.run_id}_{k}" for k in ("mgmt", "hook", "upload")}
        self.services: list[Service] = []
        self.receiver: subprocess.Popen[bytes] | None = None
        self.stop_load = threading.Event()
        self.stop_monitor = threading.Event()
        self.stopping = threading.Event()
        self.unexpected: list[dict[str, Any]] = []
        self.uploads: list[dict[str, Any]] = []
        self.uploads_lock = threading.Lock()
        self.samples: list[dict[str, Any]] = []
        self.stops: list[dict[str, Any]] = []  # per stop of a replica: what it held and when it was taken over
        self.faults: list[dict[str, Any]] = []  # each fault with its start and end (drain is measured from its end)
        self.background: list[threading.Thread] = []
        self.token = ""
        self.loop = asyncio.new_event_loop()

    # ---------------------------------------------------------------------------------------------- set-up

    def keys(self) -> None:
        """A CA and two RSA signing keys it certifies (SAN = the certificate URL's host): generation 1 at start, 2 for
        the rotation; and the client's self-signed key and certificate."""
        d = os.path.join(self.work, "keys")
        os.makedirs(d)

        def ssl(*a: str) -> None:
            subprocess.run(["openssl", *a], check=True, capture_output=True, cwd=d)
        ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca-key.pem", "-out", "ca.pem", "-days", "30",
            "-subj", "/CN=Fault harness hook CA", "-addext", "basicConstraints=critical,CA:TRUE,pathlen:0",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        with open(os.path.join(d, "leaf.ext"), "w") as f:
            f.write(f"basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                    f"extendedKeyUsage=serverAuth\nsubjectAltName=DNS:{CERT_HOST}\n")
        for gen in (1, 2):
            ssl("req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", f"hook-key-{gen}.pem", "-out",
                f"hook-{gen}.csr", "-subj", f"/CN={CERT_HOST}")
            ssl("x509", "-req", "-in", f"hook-{gen}.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial",
                "-days", "30", "-extfile", "leaf.ext", "-out", f"hook-cert-{gen}.pem")
            with open(os.path.join(d, f"hook-chain-{gen}.pem"), "w") as out:
                for part in (f"hook-cert-{gen}.pem", "ca.pem"):
                    with open(os.path.join(d, part)) as f:
                        out.write(f.read())
        ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "client-key.pem", "-out", "client-cert.pem",
            "-days", "30", "-subj", "/CN=faults.example", "-addext", "subjectAltName=DNS:faults.example",
            "-addext", "keyUsage=critical,digitalSignature")
        self.keydir = d
        self.fingerprints = {}
        for gen in (1, 2):
            out = subprocess.run(["openssl", "x509", "-in", f"hook-cert-{gen}.pem", "-noout", "-fingerprint", "-sha256"],
                                 check=True, capture_output=True, text=True, cwd=d).stdout
            self.fingerprints[out.strip().split("=", 1)[1].upper()] = gen

    def databases(self) -> None:
        for db in self.dbs.values():
            subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--if-exists", "--force", db], check=True,
                           capture_output=True)
            subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", db], check=True, capture_output=True)
        say(f"databases {', '.join(self.dbs.values())} created (dropped at the end unless KEEP=1)")

    def drop_databases(self) -> None:
        for db in self.dbs.values():
            subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--if-exists", "--force", db],
                           capture_output=True)

    def start_proxies(self) -> None:
        threading.Thread(target=self.loop.run_forever, name="proxies", daemon=True).start()
        rr = {"hook": 0, "cert": 0}

        def hook_http() -> list[int]:
            ports = [s.port for s in self.hooks()]
            rr["hook"] += 1
            k = rr["hook"] % len(ports)
            return ports[k:] + ports[:k]

        def hook_cert() -> list[int]:
            # The certificate URL is served by the replicas with the newest key first (as an ingress would route
            # to the new pods of a rolling update), round robin among those.
            hooks = self.hooks()
            rr["cert"] += 1
            k = rr["cert"] % len(hooks)
            rotated = hooks[k:] + hooks[:k]
            return [s.https_port for s in sorted(rotated, key=lambda s: (not s.alive(), -s.gen))]

        self.pg_proxy = Proxy(self.loop, "postgresql", lambda: [5432])
        self.mgmt_proxy = Proxy(self.loop, "management", lambda: [self.management.port])
        self.hook_lb = Proxy(self.loop, "hook intake", hook_http)
        self.cert_proxy = Proxy(self.loop, "hook certificate", hook_cert)
        for p in (self.pg_proxy, self.mgmt_proxy, self.hook_lb, self.cert_proxy):
            asyncio.run_coroutine_threadsafe(p.start(), self.loop).result(10)
        say(f"proxies: PostgreSQL 127.0.0.1:{self.pg_proxy.port}, management {self.mgmt_proxy.port}, hook intake "
            f"(round robin over the hook replicas) {self.hook_lb.port}, hook certificate URL {self.cert_proxy.port}")

    def hooks(self) -> list[Service]:
        return [s for s in self.services if s.kind == "hook"]

    def upload_services(self) -> list[Service]:
        return [s for s in self.services if s.kind == "upload"]

    def db_env(self, db: str) -> dict[str, str]:
        return {"QUARKUS_DATASOURCE_JDBC_URL": f"jdbc:postgresql://127.0.0.1:{self.pg_proxy.port}/{self.dbs[db]}",
                "QUARKUS_DATASOURCE_USERNAME": "postgres", "QUARKUS_DATASOURCE_PASSWORD": "postgres"}

    def define_services(self) -> None:
        files = os.path.join(self.work, "files")
        os.makedirs(files)

        def common(s: Service) -> dict[str, str]:
            return {"QUARKUS_HTTP_PORT": str(s.port), "QUARKUS_HTTP_HOST": "127.0.0.1",
                    "QUARKUS_MANAGEMENT_PORT": str(s.ops_port)}

        def management(s: Service) -> dict[str, str]:
            return {**common(s), **self.db_env("mgmt"),
                    "MANAGEMENT_DATA_DIR": os.path.join(self.work, "management"),
                    "MANAGEMENT_ADMIN_API_KEY": OPERATOR_KEY, "MANAGEMENT_INTERNAL_API_KEY": MANAGEMENT_INTERNAL_KEY,
                    "MANAGEMENT_ADMIN_ALLOW_HTTP_WEBHOOKS": "true"}

        def hook(s: Service) -> dict[str, str]:
            return {**common(s), **self.db_env("hook"),
                    "HOOK_DATA_DIR": os.path.join(self.work, s.name), "HOOK_ADMIN_API_KEY": OPERATOR_KEY,
                    "HOOK_INTERNAL_API_KEY": HOOK_INTERNAL_KEY,
                    "HOOK_MANAGEMENT_URL": f"http://127.0.0.1:{self.mgmt_proxy.port}",
                    "HOOK_MANAGEMENT_INTERNAL_API_KEY": MANAGEMENT_INTERNAL_KEY,
                    "HOOK_LOCAL_HTTPS_PORT": str(s.https_port), "HOOK_DELIVERY_ALLOW_PRIVATE_NETWORKS": "true",
                    "HOOK_SIGNING_KEY_FILE": os.path.join(self.keydir, f"hook-key-{s.gen}.pem"),
                    "HOOK_SIGNING_CHAIN_FILE": os.path.join(self.keydir, f"hook-chain-{s.gen}.pem"),
                    "HOOK_DELIVERY_RETRY_SCHEDULE": RETRY_SCHEDULE}

        def upload(s: Service) -> dict[str, str]:
            return {**common(s), **self.db_env("upload"),
                    "UPLOAD_DATA_DIR": os.path.join(self.work, s.name), "UPLOAD_STORAGE_DIR": files,
                    "UPLOAD_ADMIN_API_KEY": OPERATOR_KEY,
                    "UPLOAD_JWKS_URL": f"http://127.0.0.1:{self.mgmt_proxy.port}/platform/management/jwks.json",
                    "UPLOAD_HOOK_SERVICE_URL": f"http://127.0.0.1:{self.hook_lb.port}",
                    "UPLOAD_HOOK_SERVICE_INTERNAL_API_KEY": HOOK_INTERNAL_KEY,
                    "UPLOAD_MANAGEMENT_URL": f"http://127.0.0.1:{self.mgmt_proxy.port}",
                    "UPLOAD_MANAGEMENT_INTERNAL_API_KEY": MANAGEMENT_INTERNAL_KEY,
                    "UPLOAD_PUBLIC_BASE_URL": "http://files.faults.example"}

        self.management = Service(self, "management", 0, "management-service", management)
        self.services = [self.management]
        self.services += [Service(self, "hook", i, "hook-service", hook) for i in (1, 2, 3)]
        self.services += [Service(self, "upload", i, "upload-service", upload) for i in (1, 2)]
        for s in self.services:
            if not os.path.isfile(s.jar):
                raise SystemExit(f"{s.jar} is missing: faults/run.sh builds it")

    def start_platform(self) -> None:
        # All at once (the replicas of a service run their Flyway migration together: Flyway serialises them with a
        # PostgreSQL advisory lock); starting them in turn doubled the start-up on a busy machine.
        for s in self.services:
            s.start()
        for s in self.services:
            if not s.wait_ready(300):
                raise StartFailure(f"{s.name} did not become ready; the end of {s.log_path}:\n" + tail(s.log_path))
            say(f"{s.name} ready on 127.0.0.1:{s.port} (pid {s.proc.pid})")

    def start_receiver(self) -> None:
        self.receiver_port = free_port()
        self.receiver_log = os.path.join(self.work, "receiver.jsonl")
        env = dict(os.environ, PORT=str(self.receiver_port), OUT=self.receiver_log, PLATFORM_DOMAIN="platform.example",
                   TRUST=os.path.join(self.keydir, "ca.pem"), RESOLVE=f"{CERT_HOST}=127.0.0.1:{self.cert_proxy.port}",
                   TIMEOUT_MS="15000")
        with open(os.path.join(self.work, "logs", "receiver.log"), "wb") as log:
            self.receiver = subprocess.Popen(["node", os.path.join(ROOT, "faults", "receiver.mjs")], env=env,
                                             stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        for _ in range(100):
            if self.receiver.poll() is not None:
                raise StartFailure("the receiver stopped at start: " + tail(os.path.join(self.work, "logs",
                                                                                        "receiver.log")))
            try:
                self.receiver_mode("ok")
                say(f"receiver on 127.0.0.1:{self.receiver_port} (trusts the harness's hook CA)")
                return
            except OSError:
                time.sleep(0.2)
        raise StartFailure("the receiver did not listen")

    def receiver_mode(self, mode: str) -> None:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.receiver_port}/control?mode={mode}", timeout=5) as r:
            r.read()

    def operator(self, method: str, url: str, body: dict[str, Any]) -> Any:
        req = urllib.request.Request(url, data=json.dumps(body).encode(), method=method, headers={
            "Authorization": f"Bearer {OPERATOR_KEY}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            raise StartFailure(f"{method} {url}: {e.code} {e.read().decode(errors='replace')}") from None

    def account(self) -> None:
        m = f"http://127.0.0.1:{self.management.port}"
        acc = self.operator("POST", f"{m}/admin/v1/accounts", {
            "name": "Fault harness", "fqdn": "faults.example", "business_id": "4242",
            "webhook_url": f"http://127.0.0.1:{self.receiver_port}/hooks/faults"})
        self.account_id = acc["account_id"]
        self.client_id = self.operator("POST", f"{m}/admin/v1/accounts/{self.account_id}/clients",
                                       {"name": "faults"})["client_id"]
        with open(os.path.join(self.keydir, "client-cert.pem")) as f:
            pem = f.read()
        self.cert_uuid = self.operator("POST", f"{m}/admin/v1/accounts/{self.account_id}/certificates",
                                       {"certificate": pem})["certificate_uuid"]
        up = self.upload_services()[0]
        self.operator("POST", f"http://127.0.0.1:{up.port}/admin/v1/users", {"auth_id": "faults", "business_id": "4242"})
        self.refresh_token()
        say(f"account {self.account_id}, client {self.client_id}, certificate {self.cert_uuid}, token issued")

    def refresh_token(self) -> bool:
        env = dict(os.environ, BASE_URL=f"http://127.0.0.1:{self.management.port}", FQDN="faults.example",
                   KEY=os.path.join(self.keydir, "client-key.pem"), CERT_UUID=self.cert_uuid, CLIENT_ID=self.client_id)
        out = subprocess.run(["node", os.path.join(ROOT, "clients", "node", "examples", "signer.mjs")], env=env,
                             capture_output=True, text=True, timeout=60)
        if out.returncode != 0 or not out.stdout.strip():
            if not self.token:
                raise StartFailure(f"the token request failed: {out.stderr.strip()}")
            return False
        self.token = out.stdout.strip()
        return True

    # ----------------------------------------------------------------------------------------------- load

    def load(self, rate: float, workers: int) -> None:
        pace = {"next": now()}
        pace_lock = threading.Lock()
        counter = {"n": 0}
        boundary = "faultsboundary" + uuid.uuid4().hex

        def worker() -> None:
            import http.client
            while not self.stop_load.is_set():
                with pace_lock:
                    slot = max(pace["next"], now())
                    pace["next"] = slot + 1 / rate
                    counter["n"] += 1
                    n = counter["n"]
                time.sleep(max(0.0, slot - now()))
                if self.stop_load.is_set():
                    return
                ups = self.upload_services()
                order = [ups[n % 2], ups[(n + 1) % 2]]
                csv = f"n,at\n{n},{now():.3f}\n".encode()
                body = b"".join([
                    *(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n".encode()
                      for k, v in (("auth_id", "faults"), ("business_id", "4242"), ("message_type", "52"),
                                   ("message_body", f"upload {n}"))),
                    f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"u{n}.csv\"\r\n"
                    f"Content-Type: text/csv\r\n\r\n".encode(), csv, f"\r\n--{boundary}--\r\n".encode()])
                rec: dict[str, Any] = {"n": n, "t0": now(), "status": 0}
                for i, s in enumerate(order):
                    rec["replica"] = s.name
                    rec["failover"] = i > 0
                    try:
                        c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
                        c.request("POST", "/v1.0/log_file_from_user/", body=body, headers={
                            "Authorization": f"Bearer {self.token}", "client-id": self.client_id,
                            "Content-Type": f"multipart/form-data; boundary={boundary}"})
                        r = c.getresponse()
                        answer = r.read()
                        c.close()
                        rec["status"] = r.status
                        try:
                            doc = json.loads(answer)
                            if r.status == 200:
                                rec["message_id"] = doc["message_id"]
                            else:
                                rec["code"] = doc.get("error_code")
                        except (ValueError, KeyError):
                            rec["code"] = "UNREADABLE"
                        break
                    except ConnectionRefusedError:
                        rec["code"] = "CONNECTION_REFUSED"
                        continue
                    except OSError as e:
                        rec["code"] = type(e).__name__  # cut off mid-request (a killed replica)
                        break
                rec["t1"] = now()
                with self.uploads_lock:
                    self.uploads.append(rec)
                    with open(os.path.join(self.work, "uploads.jsonl"), "a", encoding="utf-8") as f:
                        f.write(json.dumps(rec) + "\n")

        for i in range(workers):
            t = threading.Thread(target=worker, name=f"load-{i}", daemon=True)
            t.start()
            self.background.append(t)

    # ----------------------------------------------------------------------------------------------- monitor

    def monitor(self) -> None:
        def run() -> None:
            while not self.stop_monitor.is_set():
                sample: dict[str, Any] = {"t": now(), "load1": os.getloadavg()[0]}
                try:
                    r = psql(self.dbs["hook"], "select count(*) filter (where status = 'PENDING'), count(*) filter"
                             " (where status = 'PENDING' and lease_until > now()), count(*) filter (where status ="
                             " 'DELIVERED'), count(*) filter (where status = 'DEAD') from " + DELIVERIES, 10)[0]
                    sample.update(pending=int(r[0]), leased=int(r[1]), delivered=int(r[2]), dead=int(r[3]))
                    sample["outbox"] = int(psql(self.dbs["upload"], "select count(*) from hook_outbox", 10)[0][0])
                except (RuntimeError, subprocess.TimeoutExpired, IndexError) as e:
                    sample["error"] = str(e)[:200]
                self.samples.append(sample)
                if len(self.samples) % 30 == 0:
                    with self.uploads_lock:
                        ok = sum(1 for u in self.uploads if u["status"] == 200)
                    say(f"progress: {ok} uploads accepted; hook deliveries pending {sample.get('pending')}, delivered "
                        f"{sample.get('delivered')}; outbox {sample.get('outbox')}; load {sample['load1']:.1f}")
                with open(os.path.join(self.work, "monitor.jsonl"), "a") as f:
                    f.write(json.dumps(sample) + "\n")
                self.stop_monitor.wait(2)
        t = threading.Thread(target=run, name="monitor", daemon=True)
        t.start()
        self.background.append(t)

    def watchdog(self) -> None:
        """A supervisor: a service that exited without the harness stopping it (on a shared machine, a signal from
        elsewhere; an OutOfMemoryError) is reported and started again."""
        def run() -> None:
            while not self.stopping.wait(2):
                for s in self.services:
                    if s.proc is None or s.alive() or not s.lock.acquire(blocking=False):
                        continue
                    try:
                        if s.alive() or self.stopping.is_set():
                            continue
                        status = s.proc.returncode
                        say(f"{s.name} (pid {s.proc.pid}) exited without a stop from the harness (status {status});"
                            f" starting it again (its log: {s.log_path})")
                        self.unexpected.append({"t": now(), "target": s.name, "status": status})
                        self.events.add("unexpected exit", target=s.name, pid=s.proc.pid, status=status)
                        if s.start_until_ready(300):
                            say(f"{s.name} back (pid {s.proc.pid})")
                    finally:
                        s.lock.release()
        t = threading.Thread(target=run, name="watchdog", daemon=True)
        t.start()
        self.watchdog_thread = t

    # ----------------------------------------------------------------------------------------------- faults

    def pick(self, kind: str) -> Service | None:
        """A replica of that kind to stop, while another one of its kind is up and ready (a fault takes down one
        replica, not the service: several at once happens when stops overlap with restarts, never by choice)."""
        candidates = [s for s in self.services if s.kind == kind and s.alive()]
        self.rng.shuffle(candidates)
        for s in candidates:
            if s.lock.acquire(blocking=False):
                others = [o for o in self.services if o.kind == kind and o is not s and not o.lock.locked()
                          and o.alive() and o.ready()]
                if others:
                    return s
                s.lock.release()
        return None

    def stop_replica(self, kind: str, sig: int, restart_after: float) -> None:
        s = self.pick(kind)
        deadline = now() + 60
        while s is None and now() < deadline:  # wait for the last restart to finish rather than skip the stop
            time.sleep(2)
            s = self.pick(kind)
        if s is None:
            say(f"no {kind} replica to stop while another one is ready; skipped")
            self.events.add("skipped", target=kind)
            return
        signame = "SIGKILL" if sig == signal.SIGKILL else "SIGTERM"
        stop: dict[str, Any] = {"target": s.name, "kind": kind, "signal": signame, "pid": s.proc.pid}
        if kind == "hook":
            replica = s.replica_id()
            stop["replica"] = replica
            rows = psql(self.dbs["hook"], "select id, attempts from delivery_queue where"
                        f" lease_until > now() and lease_owner like '{replica}:%'") if replica else []
            stop["held"] = {r[0]: int(r[1]) for r in rows}
        else:
            stop["outbox"] = [r[0] for r in psql(self.dbs["upload"], "select id from hook_outbox")]
        t = now()
        s.signal(sig)
        stop["t"] = t
        fault = {"kind": f"{kind} {signame}", "target": s.name, "start": t}
        self.faults.append(fault)
        self.stops.append(stop)
        held = f", holding {len(stop['held'])} deliveries" if kind == "hook" else \
            f", {len(stop['outbox'])} rows in the outbox"
        say(f"{signame} {s.name} (pid {s.proc.pid}{held})")
        self.events.add("signal", target=s.name, signal=signame, pid=s.proc.pid)

        def follow() -> None:
            try:
                if s.wait_exit(60):
                    stop["exit_s"] = now() - t
                else:
                    s.signal(signal.SIGKILL)
                    s.wait_exit(10)
                    stop["exit_s"] = None
                say(f"{s.name} exited {stop['exit_s'] if stop['exit_s'] is None else round(stop['exit_s'], 1)} s after"
                    f" {signame} (status {s.proc.returncode}); restart in {restart_after:.0f} s")
                time.sleep(restart_after)
                if s.start_until_ready(240):
                    say(f"{s.name} back (pid {s.proc.pid}, signing key generation {s.gen})" if kind == "hook" else
                        f"{s.name} back (pid {s.proc.pid})")
                else:
                    say(f"{s.name} did not become ready again: {s.log_path}")
                fault["end"] = now()
            finally:
                s.lock.release()
        th = threading.Thread(target=follow, name=f"restart-{s.name}", daemon=True)
        th.start()
        self.background.append(th)
        threading.Thread(target=self.follow_takeover, args=(stop,), daemon=True).start()

    def follow_takeover(self, stop: dict[str, Any]) -> None:
        """How long what the stopped replica held stayed out of reach: hook deliveries until each was delivered,
        attempted again or leased by another replica (released: none of its leases live any more); outbox rows until
        each was handed to hook-service (deleted)."""
        t = stop["t"]
        deadline = t + 240
        while now() < deadline:
            try:
                if stop["kind"] == "hook":
                    held = stop["held"]
                    if not held:
                        stop["released_s"] = stop["taken_s"] = 0.0
                        return
                    ids = ",".join(f"'{i}'" for i in held)
                    rows = psql(self.dbs["hook"], "select id, status, coalesce(lease_owner, ''), attempts,"
                                f" coalesce(lease_until > now(), false) from {DELIVERIES} where id in ({ids})", 10)
                    mine = f"{stop['replica']}:"
                    live = [r for r in rows if r[1] == "PENDING" and r[2].startswith(mine) and r[4] == "t"]
                    waiting = [r for r in rows if r[1] == "PENDING" and int(r[3]) == held[r[0]]
                               and (r[2] == "" or r[2].startswith(mine))]
                    if not live and "released_s" not in stop:
                        stop["released_s"] = now() - t
                    if not waiting and not live:
                        stop["taken_s"] = now() - t
                        return
                else:
                    if not stop["outbox"]:
                        stop["taken_s"] = 0.0
                        return
                    ids = ",".join(f"'{i}'" for i in stop["outbox"])
                    if not psql(self.dbs["upload"], f"select id from hook_outbox where id in ({ids})", 10):
                        stop["taken_s"] = now() - t
                        return
            except (RuntimeError, subprocess.TimeoutExpired):
                pass
            time.sleep(0.5)

    def cut(self, proxy: Proxy, kind: str, seconds: float, mode: str) -> None:
        if proxy.state != "up":
            say(f"{kind}: {proxy.name} is cut already; skipped")
            return
        t = now()
        proxy.cut(mode)
        fault = {"kind": kind, "target": proxy.name, "start": t, "mode": mode}
        self.faults.append(fault)
        say(f"{kind}: {proxy.name} cut ({mode}) for {seconds:.0f} s")
        self.events.add("cut", target=proxy.name, mode=mode, seconds=seconds)

        def later() -> None:
            time.sleep(max(0.0, t + seconds - now()))
            proxy.restore()
            fault["end"] = now()
            say(f"{kind}: {proxy.name} restored after {fault['end'] - t:.1f} s")
            self.events.add("restore", target=proxy.name)
        th = threading.Thread(target=later, daemon=True)
        th.start()
        self.background.append(th)

    def rotate(self) -> None:
        """A new key and certificate from the same CA, then each hook replica in turn: SIGTERM, restarted with it."""
        def run() -> None:
            t = now()
            self.key_gen = 2
            fault = {"kind": "key rotation", "target": "hook replicas", "start": t}
            self.faults.append(fault)
            say("key rotation: new signing key (generation 2, same CA); rolling restart of the hook replicas")
            self.events.add("rotate", gen=2)
            for s in self.hooks():
                while True:
                    if s.lock.acquire(timeout=1):
                        break
                if s.gen == 2:
                    s.lock.release()
                    continue  # restarted with the new key after a stop of its own meanwhile
                try:
                    # A rolling update: the next replica goes once another one is up and ready.
                    deadline = now() + 180
                    while now() < deadline and not any(o is not s and o.alive() and o.ready() for o in self.hooks()):
                        time.sleep(1)
                    stop: dict[str, Any] = {"target": s.name, "kind": "hook", "signal": "SIGTERM", "pid": s.proc.pid,
                                            "rotation": True, "replica": s.replica_id()}
                    rows = psql(self.dbs["hook"], "select id, attempts from delivery_queue where"
                                f" lease_until > now() and lease_owner like '{stop['replica']}:%'")
                    stop["held"] = {r[0]: int(r[1]) for r in rows}
                    stop["t"] = now()
                    s.signal(signal.SIGTERM)
                    self.stops.append(stop)
                    threading.Thread(target=self.follow_takeover, args=(stop,), daemon=True).start()
                    say(f"SIGTERM {s.name} (pid {s.proc.pid}, key rotation, holding {len(stop['held'])} deliveries)")
                    if not s.wait_exit(60):
                        s.signal(signal.SIGKILL)
                        s.wait_exit(10)
                    stop["exit_s"] = now() - stop["t"]
                    ok = s.start_until_ready(240)
                    say(f"{s.name} back with the new key (pid {s.proc.pid})" if ok else f"{s.name} not ready: {s.log_path}")
                finally:
                    s.lock.release()
            fault["end"] = now()
            say(f"key rotation done in {fault['end'] - t:.1f} s")
        th = threading.Thread(target=run, name="rotation", daemon=True)
        th.start()
        self.background.append(th)

    def schedule(self, seconds: float) -> tuple[list[tuple[float, str, Any]], list[tuple[float, str, float]]]:
        """The faults (time from the load's start, action, argument) and the receiver's bad windows."""
        r = self.rng
        if self.short:
            # The rolling restart of the rotation takes about a minute on a busy machine: it starts early and
            # overlaps the management outage, so that everything ends within the load's 80 s.
            faults = [(4, "kill", "hook"), (10, "kill", "upload"), (22, "db", (10, "refuse")),
                      (34, "rotate", None), (40, "mgmt", (12, "refuse"))]
            windows = [(8, "fail", 6.0), (30, "slow", 5.0), (56, "timeout", 5.0)]
            return faults, windows
        scale = seconds / 1800
        actions: list[tuple[str, Any]] = []
        actions += [("kill", "hook")] * max(1, round(12 * scale)) + [("kill", "upload")] * max(1, round(10 * scale))
        actions += [("term", "hook")] * max(1, round(4 * scale)) + [("term", "upload")] * max(1, round(2 * scale))
        modes = ["refuse", "blackhole"]
        actions += [("db", (r.uniform(10, 30), modes[i % 2])) for i in range(max(3, round(4 * scale)))]
        actions += [("mgmt", (r.uniform(25, 60), modes[(i + 1) % 2])) for i in range(max(1, round(2 * scale)))]
        r.shuffle(actions)
        start, end = 30.0, seconds - 90.0
        slots = len(actions) + 1
        width = (end - start) / slots
        faults = []
        middle = slots // 2
        k = 0
        for i in range(slots):
            at = start + i * width + r.uniform(0, width * 0.5)
            if i == middle:
                faults.append((at, "rotate", None))
            else:
                act, arg = actions[k]
                k += 1
                faults.append((at, act, arg))
        windows = []
        t = 45.0
        while t < seconds - 120:
            mode = r.choice(["fail", "timeout", "slow"])
            length = r.uniform(15, 40)
            windows.append((t, mode, length))
            t += length + r.uniform(60, 150)
        return faults, windows

    def run_faults(self, seconds: float) -> None:
        faults, windows = self.schedule(seconds)
        start = now()
        plan = [(at, "fault", act, arg) for at, act, arg in faults] + [(at, "window", m, ln) for at, m, ln in windows]
        plan.sort(key=lambda p: p[0])
        with open(os.path.join(self.work, "plan.json"), "w") as f:
            json.dump(plan, f, indent=1, default=str)
        say(f"plan: {len(faults)} faults and {len(windows)} receiver windows over {seconds:.0f} s")
        for at, what, act, arg in plan:
            time.sleep(max(0.0, start + at - now()))
            if what == "window":
                self.receiver_window(act, arg)
            elif act == "kill":
                self.stop_replica(arg, signal.SIGKILL, self.rng.uniform(3, 10))
            elif act == "term":
                self.stop_replica(arg, signal.SIGTERM, self.rng.uniform(3, 10))
            elif act == "db":
                self.cut(self.pg_proxy, "database cut", arg[0], arg[1])
            elif act == "mgmt":
                self.cut(self.mgmt_proxy, "management outage", arg[0], arg[1])
            elif act == "rotate":
                self.rotate()
        time.sleep(max(0.0, start + seconds - now()))

    def receiver_window(self, mode: str, seconds: float) -> None:
        t = now()
        self.receiver_mode(mode)
        fault = {"kind": f"receiver {mode}", "target": "receiver", "start": t}
        self.faults.append(fault)
        say(f"receiver: {mode} for {seconds:.0f} s")
        self.events.add("receiver", mode=mode, seconds=seconds)

        def later() -> None:
            time.sleep(seconds)
            self.receiver_mode("ok")
            fault["end"] = now()
            self.events.add("receiver", mode="ok")
        th = threading.Thread(target=later, daemon=True)
        th.start()
        self.background.append(th)

    # ----------------------------------------------------------------------------------------------- results

    def receiver_lines(self) -> list[dict[str, Any]]:
        try:
            with open(self.receiver_log, encoding="utf-8") as f:
                return [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            return []

    def accepted(self) -> dict[int, dict[str, Any]]:
        with self.uploads_lock:
            return {u["message_id"]: u for u in self.uploads if u["status"] == 200 and "message_id" in u}

    def wait_drain(self, timeout: float) -> float | None:
        """Seconds until every accepted upload reached the receiver (verified) and nothing is pending, or None."""
        t = now()
        accepted = set(self.accepted())
        while now() < t + timeout:
            got = {line["message_id"] for line in self.receiver_lines() if processed(line)}
            try:
                pending = int(psql(self.dbs["hook"], "select count(*) from delivery_queue")[0][0])
                outbox = int(psql(self.dbs["upload"], "select count(*) from hook_outbox")[0][0])
            except (RuntimeError, subprocess.TimeoutExpired):
                pending = outbox = -1
            if accepted <= got and pending == 0 and outbox == 0:
                return now() - t
            time.sleep(2)
        return None

    def results(self, load_start: float, load_end: float, drained: float | None, drain_timeout: float) -> int:
        accepted = self.accepted()
        lines = self.receiver_lines()
        hook_rows = psql(self.dbs["hook"], "select d.message_id, d.id, d.status, d.attempts, coalesce(d.lease_owner, ''),"
                         " coalesce(d.lease_until < now(), false) from " + DELIVERIES)
        per_message: dict[int, list[list[str]]] = {}
        for r in hook_rows:
            per_message.setdefault(int(r[0]), []).append(r)
        recorded = {int(r[0]) for r in psql(self.dbs["upload"], "select message_id from message")}
        outbox_left = int(psql(self.dbs["upload"], "select count(*) from hook_outbox")[0][0])
        stuck_rows = psql(self.dbs["hook"], "select count(*) filter (where status = 'PENDING'), count(*) filter (where"
                          " status = 'DEAD'), count(*) filter (where lease_owner is not null and lease_until < now()"
                          " and status = 'PENDING'), count(*) filter (where status = 'PENDING' and lease_owner is not"
                          " null) from " + DELIVERIES)[0]
        pending, dead, expired_held, leased = (int(x) for x in stuck_rows)

        first: dict[int, float] = {}
        copies: dict[int, int] = {}
        ids_seen: dict[int, set[str]] = {}
        refused: dict[str, int] = {}
        pairs: dict[tuple[int, int], int] = {}  # (message, attempt number) processed
        for line in lines:
            mid = line.get("message_id")
            if mid is None:
                continue
            if line.get("verified"):
                ids_seen.setdefault(mid, set()).add(line.get("delivery_id"))
            else:
                refused[line.get("code") or "?"] = refused.get(line.get("code") or "?", 0) + 1
            if processed(line):
                copies[mid] = copies.get(mid, 0) + 1
                pairs[(mid, line.get("attempt", 0))] = pairs.get((mid, line.get("attempt", 0)), 0) + 1
                first[mid] = min(first.get(mid, line["t"] / 1000), line["t"] / 1000)
        lost = sorted(m for m in accepted if m not in first)
        no_event = sorted(m for m in accepted if m not in per_message)
        multi_event = sorted(m for m, rows in per_message.items() if len(rows) > 1)
        not_delivered_db = sorted(m for m in accepted if m in per_message and per_message[m][0][2] != "DELIVERED")
        id_mismatch = sorted(m for m, ids in ids_seen.items()
                             if len(ids) > 1 or (m in per_message and ids != {per_message[m][0][1]}))
        duplicates = sum(c - 1 for c in copies.values())
        dup_messages = sum(1 for c in copies.values() if c > 1)
        # An attempt whose outcome was never recorded (its replica killed, cut off at the shutdown grace, or the
        # database gone) is sent again with the same attempt number; a retry after a recorded failure (the receiver
        # did the work but answered after the time-out) carries the next one.
        resent = {k: c - 1 for k, c in pairs.items() if c > 1}
        dup_resent = sum(resent.values())
        extra = sorted(m for m in first if m not in accepted)
        latencies = sorted(first[m] - u["t1"] for m, u in accepted.items() if m in first)

        # Drain after each fault: from its end until every upload accepted before that end had reached the receiver.
        accepted_times = sorted((u["t1"], first.get(m)) for m, u in accepted.items())
        for f in self.faults:
            end = f.get("end")
            if end is None:
                f["drain_s"] = None
                continue
            waits = [d for t1, d in accepted_times if t1 <= end]
            if any(d is None for d in waits):
                f["drain_s"] = None
            else:
                f["drain_s"] = max([0.0] + [d - end for d in waits])
        with open(os.path.join(self.work, "faults.json"), "w") as fh:
            json.dump({"faults": self.faults, "stops": [{k: v for k, v in s.items() if k != "held"} | {
                "held": len(s.get("held", {}))} for s in self.stops]}, fh, indent=1, default=str)

        uploads = list(self.uploads)
        by_status: dict[str, int] = {}
        for u in uploads:
            key = str(u["status"]) + (f" {u['code']}" if u.get("code") else "")
            by_status[key] = by_status.get(key, 0) + 1
        per_replica = {s.name: sum(1 for u in accepted.values() if u["replica"] == s.name) for s in self.upload_services()}
        loads = [s["load1"] for s in self.samples]

        rows: list[tuple[str, str]] = []
        add = rows.append
        add(("run", f"{'short' if self.short else 'long'}: load for {load_end - load_start:.0f} s, "
                    f"{len(self.faults)} faults, seed {self.args.seed}"))
        add(("machine load (1-min average: min / mean / max)", f"{min(loads):.1f} / {statistics.mean(loads):.1f} / "
             f"{max(loads):.1f} on {os.cpu_count()} cores" if loads else "n/a"))
        add(("uploads sent / accepted (200)", f"{len(uploads)} / {len(accepted)} ("
             + ", ".join(f"{k} {v}" for k, v in per_replica.items()) + ")"))
        add(("uploads not accepted, by answer", ", ".join(f"{k}: {v}" for k, v in sorted(by_status.items())
                                                         if not k.startswith("200")) or "none"))
        add(("messages recorded without a 200 (answer lost)", str(len(recorded - set(accepted)))))
        add(("accepted uploads delivered, signature valid", f"{len(accepted) - len(lost)} of {len(accepted)}"))
        add(("LOST (accepted, never delivered verified)", str(len(lost)) + (f": {lost[:10]}" if lost else "")))
        add(("accepted without a hook event / with more than one", f"{len(no_event)} / {len(multi_event)}"))
        add(("accepted not DELIVERED in hook-service's table", str(len(not_delivered_db))))
        add(("hook requests at the receiver (processed)", f"{len(lines)} ({sum(copies.values())})"))
        add(("DUPLICATES (copies processed beyond the first)", f"{duplicates}, over {dup_messages} messages: "
             f"{dup_resent} the same attempt sent again (outcome never recorded), {duplicates - dup_resent} retries"
             " after a recorded failure (receiver answered too late)"))
        add(("copies with another delivery id than the first / the table's", str(len(id_mismatch))))
        add(("signature refusals at the receiver", ", ".join(f"{k}: {v}" for k, v in refused.items()) or "none"))
        add(("hooks of messages answered without 200", str(len(extra))))
        rotation = next((f for f in self.faults if f["kind"] == "key rotation" and f.get("end")), None)
        late_refusals = old_after = 0
        if rotation:
            # Once every replica runs the new key, and the receiver may download the certificate again (its kit does
            # so at most once per 30 s), every hook must verify, with the new key.
            settled = rotation["end"] + 35
            late_refusals = sum(1 for ln in lines if ln["t"] / 1000 > settled and not ln.get("verified"))
            old_after = sum(1 for ln in lines if ln["t"] / 1000 > settled and ln.get("verified")
                            and self.fingerprints.get(ln.get("fp")) != 2)
            new_key = sum(1 for ln in lines if ln.get("verified") and self.fingerprints.get(ln.get("fp")) == 2)
            first_seen: dict[int, float] = {}
            for ln in lines:
                if ln.get("message_id") is not None:
                    first_seen[ln["message_id"]] = min(first_seen.get(ln["message_id"], ln["t"] / 1000), ln["t"] / 1000)
            carried = {ln["message_id"] for ln in lines if processed(ln) and ln["t"] / 1000 > rotation["end"]
                       and first_seen.get(ln["message_id"], 1e18) < rotation["start"]}
            carried_new = {ln["message_id"] for ln in lines if processed(ln) and ln["message_id"] in carried
                           and ln["t"] / 1000 > rotation["end"] and self.fingerprints.get(ln.get("fp")) == 2}
            add(("key rotation: verified with the new key / old key or refused after it settled",
                 f"{new_key} / {old_after + late_refusals} (settled: 35 s after the last replica restarted); "
                 f"tried before it and delivered after it: {len(carried)}, {len(carried_new)} with the new key"))
        if latencies:
            add(("upload to first verified delivery: p50 / p99 / max", f"{pct(latencies, 50):.1f} / "
                 f"{pct(latencies, 99):.1f} / {latencies[-1]:.1f} s"))
        kinds: dict[str, list[dict[str, Any]]] = {}
        for f in self.faults:
            kinds.setdefault(f["kind"], []).append(f)
        for kind in sorted(kinds):
            fs = kinds[kind]
            drains = [f["drain_s"] for f in fs if f.get("drain_s") is not None]
            lengths = [f["end"] - f["start"] for f in fs if f.get("end")]
            add((f"{kind}: n, down, drain after its end (median / max)",
                 f"{len(fs)}, {statistics.median(lengths) if lengths else 0:.1f} s median, drain "
                 + (f"{statistics.median(drains):.1f} / {max(drains):.1f} s" if drains else "n/a")
                 + (f" ({len(fs) - len(drains)} not measured)" if len(drains) < len(fs) else "")))
        for kind in ("hook", "upload"):
            for sig in ("SIGTERM", "SIGKILL"):
                ss = [s for s in self.stops if s["kind"] == kind and s["signal"] == sig]
                if not ss:
                    continue
                taken = [s["taken_s"] for s in ss if s.get("taken_s") is not None]
                exits = [s["exit_s"] for s in ss if s.get("exit_s") is not None]
                if kind == "hook":
                    held = [len(s["held"]) for s in ss]
                    rel = [s["released_s"] for s in ss if s.get("released_s") is not None]
                    dups = sum(c for (mid, _), c in resent.items() if mid in
                               {m for s in ss for m in held_messages(s, hook_rows)})
                    add((f"hook {sig}: stops, held, leases gone, taken over, dup.",
                         f"{len(ss)} stops; held {sum(held)} (max {max(held)}); leases gone after median "
                         f"{med(rel)} s (max {mx(rel)}); all taken over after median {med(taken)} s (max {mx(taken)});"
                         f" process gone after {med(exits)} s; attempts sent again among what it held: {dups}"))
                else:
                    rows_at = [len(s["outbox"]) for s in ss]
                    add((f"upload {sig}: stops, outbox rows, handed on", f"{len(ss)} stops; {sum(rows_at)} outbox rows"
                         f" at the signals; all handed to hook-service after median {med(taken)} s (max {mx(taken)});"
                         f" process gone after {med(exits)} s"))
        add(("exits the harness did not cause (restarted by its watchdog)", ", ".join(
            f"{u['target']} at {u['t'] - load_start:.0f} s (status {u['status']})" for u in self.unexpected) or "none"))
        add(("final drain (load stopped until all delivered)", f"{drained:.1f} s" if drained is not None else
             f"NOT DRAINED within {drain_timeout:.0f} s"))
        add(("STUCK: pending / dead / leases past expiry / leased", f"{pending} / {dead} / {expired_held} / {leased}"))
        add(("STUCK: outbox rows left unsent", str(outbox_left)))
        failures = []
        if lost:
            failures.append(f"{len(lost)} lost")
        if no_event or multi_event or not_delivered_db:
            failures.append("hook events missing, doubled or not delivered")
        if id_mismatch:
            failures.append("copies with differing delivery ids")
        if pending or dead or expired_held or outbox_left:
            failures.append("stuck work")
        if drained is None:
            failures.append("did not drain")
        if late_refusals or old_after:
            failures.append("hooks not verified with the new key after the rotation")
        if not accepted:
            failures.append("no upload was accepted")
        add(("VERDICT", "PASS" if not failures else "FAIL: " + "; ".join(failures)))
        width = max(len(k) for k, _ in rows)
        table = "\n".join(f"| {k.ljust(width)} | {v} |" for k, v in rows)
        header = f"| {'figure'.ljust(width)} | value |\n|{'-' * (width + 2)}|-------|"
        print("\n" + header + "\n" + table + "\n", flush=True)
        with open(os.path.join(self.work, "table.md"), "w") as f:
            f.write(header + "\n" + table + "\n")
        return 0 if not failures else 1

    # ----------------------------------------------------------------------------------------------- stop

    def stop_all(self) -> None:
        self.stopping.set()
        self.stop_load.set()
        self.stop_monitor.set()
        for s in self.services:
            s.signal(signal.SIGTERM)
        if self.receiver is not None and self.receiver.poll() is None:
            self.receiver.terminate()
        for s in self.services:
            if not s.wait_exit(30):
                s.signal(signal.SIGKILL)
                s.wait_exit(10)
        if self.receiver is not None:
            try:
                self.receiver.wait(10)
            except subprocess.TimeoutExpired:
                self.receiver.kill()
        self.loop.call_soon_threadsafe(self.loop.stop)


class StartFailure(Exception):
    pass


def processed(line: dict[str, Any]) -> bool:
    """The receiver did the work for this request: verified, and not answered as failing."""
    return bool(line.get("verified")) and line.get("mode") != "fail" and line.get("message_id") is not None


def held_messages(stop: dict[str, Any], hook_rows: list[list[str]]) -> list[int]:
    ids = set(stop.get("held", {}))
    return [int(r[0]) for r in hook_rows if r[1] in ids]


def pct(values: list[float], p: float) -> float:
    return values[min(len(values) - 1, int(len(values) * p / 100))]


def med(values: list[float]) -> str:
    return f"{statistics.median(values):.1f}" if values else "n/a"


def mx(values: list[float]) -> str:
    return f"{max(values):.1f}" if values else "n/a"


def tail(path: str, n: int = 30) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return "(no log)"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--minutes", type=float, default=30, help="length of the load and faults (default 30)")
    p.add_argument("--short", action="store_true", help="the CI version: 80 s of load, one fault of each kind")
    p.add_argument("--rate", type=float, default=None, help="uploads per second (default 4, short 3)")
    p.add_argument("--seed", type=int, default=None, help="the random schedule's seed (default: random, printed)")
    args = p.parse_args()
    if args.seed is None:
        args.seed = random.randrange(1, 1_000_000)
    seconds = 80.0 if args.short else args.minutes * 60
    rate = args.rate or (3.0 if args.short else 4.0)
    work = tempfile.mkdtemp(prefix="faults.", dir=os.environ.get("TMPDIR", "/tmp"))
    os.makedirs(os.path.join(work, "logs"))
    keep = os.environ.get("KEEP") == "1"
    h = Harness(args, work)
    say(f"work directory {work} (KEEP=1 keeps it); seed {args.seed}; load average {os.getloadavg()[0]:.1f}")

    def on_signal(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_signal)
    status = 2
    try:
        h.keys()
        h.databases()
        h.start_proxies()
        h.define_services()
        h.start_platform()
        h.start_receiver()
        h.account()
        h.watchdog()
        h.monitor()
        load_start = now()
        h.load(rate, 4)
        say(f"load: {rate:g} uploads/s over both upload replicas")
        h.run_faults(seconds)
        h.stop_load.set()
        load_end = now()
        say("load stopped; waiting for every replica to be up and the backlog to drain")
        for t in list(h.background):
            if t.name.startswith(("restart-", "rotation")):
                t.join(300)
        h.receiver_mode("ok")
        for t in list(h.background):
            if t.name.startswith("load-"):
                t.join(60)
        drain_timeout = 150.0 if args.short else 400.0
        drained = h.wait_drain(drain_timeout)
        say(f"drained in {drained:.1f} s" if drained is not None else f"not drained within {drain_timeout:.0f} s")
        time.sleep(3)  # the last takeover measurements
        status = h.results(load_start, load_end, drained, drain_timeout)
    except StartFailure as e:
        say(f"the platform could not be started: {e}")
        status = 2
    except KeyboardInterrupt:
        say("interrupted")
        status = 130
    finally:
        say("stopping everything the harness started")
        h.stop_all()
        if not keep:
            h.drop_databases()
            shutil.rmtree(work, ignore_errors=True)
        else:
            say(f"kept: {work} (databases {', '.join(h.dbs.values())})")
    return status


if __name__ == "__main__":
    sys.exit(main())
