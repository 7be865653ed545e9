#!/usr/bin/env bash
# Starts the three services (run-local.sh in a temporary data directory), makes each of them register the meters it
# only creates on first use (a token, a hook that is dead-lettered, one that is delivered, a refused upload, refused
# and rate-limited signed requests), scrapes /q/metrics of each (on its management interface, the ops port), and
# compares the metric names with metrics.txt.
#
#   deploy/monitoring/scrape.sh           compare; exit 1 if a scraped name is missing from metrics.txt, or a name
#                                         metrics.txt says a service exports was not scraped
#   deploy/monitoring/scrape.sh --write   print the scraped lines in metrics.txt's format (review, then paste)
#
# SCRAPE_SAVE=DIR keeps each service's whole scrape (labels and values) as DIR/<service>.txt.
#
# Needs the service jars built (./mvnw -B -ntp -o install -DskipTests). The services and their management interfaces
# listen on free ports (run-local.sh's port settings).
# Takes one to three minutes.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$(pwd)"
HERE="$ROOT/deploy/monitoring"
WRITE=0
[ "${1:-}" = "--write" ] && WRITE=1

TMP="$(mktemp -d)"
RECEIVER_PID=""
cleanup() {
  local rc=$?
  if [ "$rc" != 0 ] && [ -d "$TMP/data/logs" ]; then
    for log in "$TMP"/data/logs/*.log; do echo "== the end of $(basename "$log")" >&2; tail -n 15 "$log" >&2; done
  fi
  if [ -f "$TMP/data/pids" ]; then
    # shellcheck disable=SC2046
    kill $(cat "$TMP/data/pids") 2>/dev/null || true
  fi
  [ -n "$RECEIVER_PID" ] && kill "$RECEIVER_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT

# A receiver that fails the first two hooks (503) and accepts the rest: with a one-step retry schedule the first
# upload's hook is retried once and dead-lettered, the second one is delivered.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
RECEIVER_PORT=$(free_port)
MANAGEMENT_PORT=$(free_port) HOOK_PORT=$(free_port) UPLOAD_PORT=$(free_port) HOOK_HTTPS_PORT=$(free_port)
CONSOLE_PORT=$(free_port) MANAGEMENT_OPS_PORT=$(free_port) HOOK_OPS_PORT=$(free_port) UPLOAD_OPS_PORT=$(free_port)
CONSOLE_OPS_PORT=$(free_port)
export MANAGEMENT_PORT HOOK_PORT UPLOAD_PORT HOOK_HTTPS_PORT CONSOLE_PORT MANAGEMENT_OPS_PORT HOOK_OPS_PORT \
  UPLOAD_OPS_PORT CONSOLE_OPS_PORT
python3 - "$RECEIVER_PORT" > "$TMP/receiver.log" 2>&1 <<'EOF' &
import http.server, sys
seen = 0
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        global seen
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        seen += 1
        self.send_response(503 if seen <= 2 else 200)
        self.send_header("Content-Length", "0")
        self.end_headers()
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
EOF
RECEIVER_PID=$!

# run-local.sh passes its environment on to the services: a short retry schedule (dead letter in seconds), a
# small per-source limit (429 after five signed requests), and a generous wait for a database connection (on a busy
# machine a first connection can take longer than the default 5 s, and the start fails).
export HOOK_DELIVERY_RETRY_SCHEDULE=1s
export QUARKUS_DATASOURCE_JDBC_ACQUISITION_TIMEOUT=60S
export MANAGEMENT_RATE_LIMIT_PER_SOURCE=5
./run-local.sh --detach --data "$TMP/data" --receiver-port "$RECEIVER_PORT" > "$TMP/run-local.log" 2>&1 || {
  cat "$TMP/run-local.log" >&2
  exit 2
}
# shellcheck disable=SC1091
. "$TMP/data/demo/demo.env"

metrics() { curl -fsS "http://127.0.0.1:$1/q/metrics"; }
wait_for() { # port, metric-name prefix: waits up to 60 s for a sample whose value is above zero
  for _ in $(seq 1 120); do
    if metrics "$1" | awk -v m="$2" 'index($0, m) == 1 && $NF + 0 > 0 { found = 1 } END { exit !found }'; then
      return 0
    fi
    sleep 0.5
  done
  echo "no $2 above zero on port $1 after 60 s" >&2
  exit 2
}
upload() { # message type
  printf 'name,score\nada,10\n' > "$TMP/scores.csv"
  curl -sS -o /dev/null "http://127.0.0.1:$UPLOAD_PORT/v1.0/log_file_from_user/" \
    -H "Authorization: Bearer $TOKEN" -H "client-id: $CLIENT_ID" \
    -F auth_id="$AUTH_ID" -F business_id="$BUSINESS_ID" -F message_type="$1" -F file=@"$TMP/scores.csv"
}

TOKEN=$(platform-cli request token --base-url "http://127.0.0.1:$MANAGEMENT_PORT" --fqdn "$FQDN" \
  --client-id "$CLIENT_ID" --key "$KEY" --cert-uuid "$CERT_UUID" --token-only)
upload 52
wait_for "$HOOK_OPS_PORT" hook_deliveries_dead_lettered_total
upload 52
wait_for "$HOOK_OPS_PORT" hook_deliveries_delivered_total
upload 99 # not a message type: refused
wait_for "$UPLOAD_OPS_PORT" upload_refusals_total
for _ in 1 2 3 4 5 6; do # malformed, then over the per-source limit
  curl -sS -o /dev/null -X POST "http://127.0.0.1:$MANAGEMENT_PORT/platform/management/token/issue/" \
    -H 'Content-Type: application/json' -d '{'
done
wait_for "$MANAGEMENT_OPS_PORT" management_rate_limited_total

# One line per sample name and service, as metrics.txt holds them.
# The JVM's GC meters (jvm_gc_pause_seconds) appear with its first collection, which a short run may not have had yet:
# one now in each service, so that the comparison does not depend on the heap's luck
if command -v jcmd > /dev/null; then
  while read -r pid; do jcmd "$pid" GC.run > /dev/null 2>&1 || true; done < "$TMP/data/pids"
fi
for svc in "management-service:$MANAGEMENT_OPS_PORT" "hook-service:$HOOK_OPS_PORT" "upload-service:$UPLOAD_OPS_PORT"; do
  metrics "${svc##*:}" > "$TMP/${svc%%:*}.txt"
  if [ -n "${SCRAPE_SAVE:-}" ]; then mkdir -p "$SCRAPE_SAVE" && cp "$TMP/${svc%%:*}.txt" "$SCRAPE_SAVE/"; fi
  grep -v '^#' "$TMP/${svc%%:*}.txt" | sed 's/[{ ].*//' | sort -u | sed "s/\$/ ${svc%%:*}/"
done | sort -u > "$TMP/scraped.txt"

if [ "$WRITE" = 1 ]; then
  cat "$TMP/scraped.txt"
  exit 0
fi
python3 "$HERE/check.py" --compare-scrape "$TMP/scraped.txt"
