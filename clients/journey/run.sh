#!/usr/bin/env bash
# The interop journey against the live platform, with the integrator kits: starts the platform with run-local.sh
# (embedded storage, a fresh data directory), then for each receiver (the Python one, clients/python/examples/
# receiver.py, and the Node one, clients/node/examples/receiver.mjs) an account of its own whose webhook is that
# receiver; registers a self-signed client certificate through the operator API (RSA for one account, EC for the
# other), gets a token with SignatureCertUUID and lists the clients, and uploads a file, each with the examples of
# the receiver's own kit (clients/python/examples/signer.py and upload.py; clients/node/examples/signer.mjs and
# upload.mjs: the files docs/integrators.md shows), and waits until the receiver has verified the platform's hook and
# hook-service has recorded the delivery. Each receiver must also refuse, with 400 SIGNATURE_MISMATCH, a hook with a
# wrong signature. Fails (non-zero, saying which receiver disagreed with the platform) otherwise; stops everything
# it started. The services export their traces to a collector of the journey's own (otlp_collector.py), and each
# upload's trace must be whole: one trace id from the upload's request at upload-service through hook-service's
# intake, queue and delivery attempt to the account lookup at management-service (journey.py trace prints it).
# Run after the Maven build (run-local.sh builds what is missing).
#
#   clients/journey/run.sh          KEEP=1 keeps the work directory (logs, data) for a look afterwards
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$(pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/convplatform-journey.XXXXXX")"
DATA="$WORK/platform"
receivers=()

fail() { echo "journey: FAILED: $*" >&2; exit 1; }

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  for pid in "${receivers[@]}"; do kill "$pid" 2>/dev/null || true; done
  if [ -s "$DATA/pids" ]; then
    # shellcheck disable=SC2046
    kill $(cat "$DATA/pids") 2>/dev/null || true
    for _ in $(seq 1 60); do
      alive=0
      for pid in $(cat "$DATA/pids"); do kill -0 "$pid" 2>/dev/null && alive=1; done
      [ "$alive" = 0 ] && break
      sleep 0.5
    done
  fi
  if [ "$status" != 0 ]; then
    for log in "$WORK"/*.log "$DATA"/logs/*.log; do
      [ -f "$log" ] || continue
      echo "---- last lines of $log" >&2
      tail -n 20 "$log" >&2
    done
  fi
  if [ "${KEEP:-0}" = 1 ]; then echo "journey: work directory kept: $WORK"; else rm -rf "$WORK"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { # port, name, pid
  for _ in $(seq 1 120); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || fail "the $2 stopped before it listened on port $1"
    sleep 0.25
  done
  fail "the $2 did not listen on port $1 within 30 s"
}

echo "== journey: the Python kit"
export VENV="${VENV:-$WORK/venv}"
"$ROOT/clients/python/ci.sh" --install-only
PY="$VENV/bin/python"
"$PY" -c 'import convplatform, flask' || fail "the Python kit or Flask is not installed in $VENV"

echo "== journey: a trace collector (OTLP over HTTP) for the services"
SPANS="$WORK/spans.jsonl"
OTLP_PORT="$(free_port)"
python3 clients/journey/otlp_collector.py --port "$OTLP_PORT" --out "$SPANS" > "$WORK/otlp-collector.log" 2>&1 &
receivers+=($!)
wait_port "$OTLP_PORT" "trace collector" "$!"
# run-local.sh's services inherit these: export to the collector, in batches 200 ms apart instead of 5 s.
export QUARKUS_OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$OTLP_PORT" QUARKUS_OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf
export QUARKUS_OTEL_BSP_SCHEDULE_DELAY=200ms

echo "== journey: the platform (run-local.sh, data in $DATA)"
./run-local.sh --data "$DATA" --receiver-port "$(free_port)" --management-port "$(free_port)" --hook-port "$(free_port)" \
  --upload-port "$(free_port)" --hook-https-port "$(free_port)" --console-port "$(free_port)" \
  --management-ops-port "$(free_port)" --hook-ops-port "$(free_port)" --upload-ops-port "$(free_port)" \
  --console-ops-port "$(free_port)" --detach > "$WORK/platform.log" 2>&1 \
  || { cat "$WORK/platform.log" >&2; fail "the platform did not start (run-local.sh, output above)"; }
# shellcheck disable=SC1091
. "$DATA/demo/demo.env"
# The ports run-local.sh used (the free ones given above), as demo.env records them.
export OPERATOR_KEY
export MANAGEMENT_URL="http://127.0.0.1:${MANAGEMENT_PORT:-8081}"
export HOOK_URL="http://127.0.0.1:${HOOK_PORT:-8082}"
export UPLOAD_URL="http://127.0.0.1:${UPLOAD_PORT:-8083}"
HOOK_HOST=hooks.platform.example
RESOLVE="$HOOK_HOST=127.0.0.1:${HOOK_HTTPS_PORT:-8443}"
CERT_URL="https://$HOOK_HOST/platform/hooks/certificate/"
echo "   management $MANAGEMENT_URL, hooks $HOOK_URL, uploads $UPLOAD_URL, hook certificate via $RESOLVE"

start_receiver() { # name, port, out, command...
  local name="$1" port="$2" out="$3"; shift 3
  PORT="$port" PLATFORM_DOMAIN=platform.example TRUST="$HOOK_CA" RESOLVE="$RESOLVE" OUT="$out" \
    "$@" > "$WORK/$name-receiver.log" 2>&1 &
  receivers+=($!)
  wait_port "$port" "$name receiver" "$!"
  echo "   $name receiver listening on 127.0.0.1:$port"
}

journey_for() { # name, port, out, business id, key type, then the command that runs an example of the kit
  local name="$1" port="$2" out="$3" business="$4" key_type="$5"
  shift 5
  local run=("$@") ext=py
  [ "$name" = node ] && ext=mjs
  echo "== journey: $name receiver"
  local vars
  vars="$("$PY" clients/journey/journey.py account --dir "$WORK" --name "journey-$name" \
    --fqdn "$name.journey.example" --business "$business" --webhook "http://127.0.0.1:$port/hooks/$name" \
    --key-type "$key_type")" || fail "setting up the $name account through the operator API"
  local ACCOUNT_ID CLIENT_ID CERT_UUID KEY FQDN BUSINESS_ID AUTH_ID
  eval "$vars"
  echo "   account $ACCOUNT_ID, client $CLIENT_ID, $key_type certificate $CERT_UUID registered"
  local token
  token="$(BASE_URL="$MANAGEMENT_URL" FQDN="$FQDN" CLIENT_ID="$CLIENT_ID" KEY="$KEY" CERT_UUID="$CERT_UUID" \
    "${run[@]}" "clients/$name/examples/signer.$ext")" \
    || fail "the $name account's token request (clients/$name/examples/signer.$ext) was refused"
  echo "   token issued with SignatureCertUUID"
  printf 'name,score\nada,10\n' > "$WORK/$name-scores.csv"
  local message_id
  message_id="$(UPLOAD_URL="$UPLOAD_URL" TOKEN="$token" CLIENT_ID="$CLIENT_ID" AUTH_ID="$AUTH_ID" \
    BUSINESS_ID="$BUSINESS_ID" FILE="$WORK/$name-scores.csv" "${run[@]}" "clients/$name/examples/upload.$ext")" \
    || fail "the $name account's upload (clients/$name/examples/upload.$ext) was refused"
  echo "   uploaded: message $message_id"
  "$PY" clients/journey/journey.py await-hook --receiver "$name" --out "$out" --message-id "$message_id" \
    --account "$ACCOUNT_ID" || fail "the $name receiver disagrees with the platform (see above)"
  "$PY" clients/journey/journey.py trace --spans "$SPANS" --message-id "$message_id" \
    || fail "the trace of message $message_id is not whole across the three services (see above)"
  "$PY" clients/journey/journey.py probe --receiver "$name" --port "$port" --certificate-url "$CERT_URL" \
    --out "$out" --expect SIGNATURE_MISMATCH || fail "the $name receiver accepted or misjudged a forged hook"
}

PY_PORT="$(free_port)"
start_receiver python "$PY_PORT" "$WORK/python.out" "$PY" clients/python/examples/receiver.py
journey_for python "$PY_PORT" "$WORK/python.out" 7101 rsa "$PY"

NODE_RECEIVER=clients/node/examples/receiver.mjs
if [ ! -f "$NODE_RECEIVER" ]; then
  echo "== journey: SKIPPED the Node receiver: $NODE_RECEIVER does not exist"
elif ! command -v node > /dev/null; then
  echo "== journey: SKIPPED the Node receiver: node is not installed"
else
  NODE_PORT="$(free_port)"
  start_receiver node "$NODE_PORT" "$WORK/node.out" node "$NODE_RECEIVER"
  journey_for node "$NODE_PORT" "$WORK/node.out" 7102 ec node
fi
echo "== journey: passed"
