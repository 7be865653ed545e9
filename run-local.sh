#!/usr/bin/env bash
# Runs the whole platform on this machine: builds what is missing, starts management-service (8081), hook-service
# (8082, its certificate also over HTTPS on 127.0.0.1:8443) and upload-service (8083) on embedded storage, wired
# together, then creates a demo account, client, certificate and user (once) and prints what to do next.
# Ctrl-C stops all three. Everything lives under the data directory (default ./data/local): databases, files,
# generated keys, logs, and demo.env with the demo's ids.
#
#   ./run-local.sh [--rebuild] [--data DIR] [--receiver-port PORT] [--detach]
#
#   --rebuild         build even when the jars exist (after changing the code)
#   --data DIR        data directory (default ./data/local); delete it to start from nothing
#   --receiver-port   where the demo account's hooks go: http://127.0.0.1:PORT/hooks/demo (default 9000)
#   --detach          start, bootstrap, print, and return with the services still running (stop: kill $(cat DIR/pids))
set -euo pipefail
cd "$(dirname "$0")"
ROOT="$(pwd)"

DATA="./data/local"
RECEIVER_PORT=9000
REBUILD=0
DETACH=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rebuild) REBUILD=1 ;;
    --data) DATA="$2"; shift ;;
    --receiver-port) RECEIVER_PORT="$2"; shift ;;
    --detach) DETACH=1 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$DATA"
DATA="$(cd "$DATA" && pwd)"
LOGS="$DATA/logs"
DEMO="$DATA/demo"
mkdir -p "$LOGS" "$DEMO"

for port in 8081 8082 8083 8443; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "port $port is already in use: is the platform running already? (stop it, or free the port)" >&2
    exit 1
  fi
done

JARS=(management-service/target/quarkus-app/quarkus-run.jar hook-service/target/quarkus-app/quarkus-run.jar
  upload-service/target/quarkus-app/quarkus-run.jar platform-cli/target/platform-cli.jar)
missing=0
for j in "${JARS[@]}"; do [ -f "$j" ] || missing=1; done
if [ "$REBUILD" = 1 ] || [ "$missing" = 1 ]; then
  echo "== building (./mvnw package -DskipTests; a few minutes the first time)"
  ./mvnw -B -q -ntp package -DskipTests
fi
cli() { java -jar "$ROOT/platform-cli/target/platform-cli.jar" "$@"; }

# Keys between the services and for the operator: random on the first run, kept in the data directory.
KEYS="$DATA/keys.env"
if [ ! -f "$KEYS" ]; then
  rnd() { head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
  umask 077
  {
    echo "OPERATOR_KEY=$(rnd)"
    echo "MANAGEMENT_INTERNAL_KEY=$(rnd)"
    echo "HOOK_INTERNAL_KEY=$(rnd)"
  } > "$KEYS"
  umask 022
fi
# shellcheck disable=SC1090
. "$KEYS"

pids=()
stop() {
  trap - INT TERM EXIT
  if [ ${#pids[@]} -gt 0 ]; then
    echo
    echo "== stopping the platform"
    kill "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
  fi
  rm -f "$DATA/pids"
}
trap 'stop; exit 130' INT TERM
trap stop EXIT

start() { # name, then env assignments; the jar is <name>/target/quarkus-app/quarkus-run.jar
  local name="$1"; shift
  env "$@" java ${JAVA_OPTS:-} -jar "$ROOT/$name/target/quarkus-app/quarkus-run.jar" > "$LOGS/$name.log" 2>&1 &
  pids+=($!)
  echo "$!" >> "$DATA/pids"
}
: > "$DATA/pids"
echo "== starting the services (logs in $LOGS)"
start management-service MANAGEMENT_DATA_DIR="$DATA/management" \
  MANAGEMENT_ADMIN_API_KEY="$OPERATOR_KEY" MANAGEMENT_INTERNAL_API_KEY="$MANAGEMENT_INTERNAL_KEY" \
  MANAGEMENT_ADMIN_ALLOW_HTTP_WEBHOOKS=true
start hook-service HOOK_DATA_DIR="$DATA/hook" HOOK_ADMIN_API_KEY="$OPERATOR_KEY" \
  HOOK_INTERNAL_API_KEY="$HOOK_INTERNAL_KEY" HOOK_MANAGEMENT_URL=http://127.0.0.1:8081 \
  HOOK_MANAGEMENT_INTERNAL_API_KEY="$MANAGEMENT_INTERNAL_KEY" HOOK_LOCAL_HTTPS_PORT=8443 \
  HOOK_DELIVERY_ALLOW_PRIVATE_NETWORKS=true
start upload-service UPLOAD_DATA_DIR="$DATA/upload" UPLOAD_STORAGE_DIR="$DATA/upload/files" \
  UPLOAD_ADMIN_API_KEY="$OPERATOR_KEY" UPLOAD_JWKS_URL=http://127.0.0.1:8081/platform/management/jwks.json \
  UPLOAD_HOOK_SERVICE_URL=http://127.0.0.1:8082 UPLOAD_HOOK_SERVICE_INTERNAL_API_KEY="$HOOK_INTERNAL_KEY" \
  UPLOAD_PUBLIC_BASE_URL=http://localhost:8083

for svc in management-service:8081 hook-service:8082 upload-service:8083; do
  name="${svc%%:*}"; port="${svc##*:}"
  ready=0
  for _ in $(seq 1 120); do
    if curl -fs "http://127.0.0.1:$port/q/health/ready" > /dev/null 2>&1; then ready=1; break; fi
    sleep 0.5
  done
  if [ "$ready" != 1 ]; then
    echo "$name did not become ready on port $port; the end of $LOGS/$name.log:" >&2
    tail -n 30 "$LOGS/$name.log" >&2
    exit 1
  fi
  echo "   $name ready on http://localhost:$port (OpenAPI UI: http://localhost:$port/q/swagger-ui)"
done

# The demo: one account (FQDN demo.example, business 1001) whose hooks go to a receiver on this machine, one
# client, a self-signed certificate (key in $DEMO) and an upload user. Created once; demo.env records the ids.
if [ ! -f "$DEMO/demo.env" ]; then
  echo "== creating the demo account, client, certificate and user"
  json_field() { sed -n "s/.*\"$1\" *: *\"\\([^\"]*\\)\".*/\\1/p"; }
  op() { # method, url, body
    curl -sS --fail-with-body -X "$1" "$2" -H "Authorization: Bearer $OPERATOR_KEY" -H 'Content-Type: application/json' -d "$3"
  }
  ACCOUNT_ID=$(op POST http://127.0.0.1:8081/admin/v1/accounts "{\"name\":\"Demo\",\"fqdn\":\"demo.example\",\
\"business_id\":\"1001\",\"webhook_url\":\"http://127.0.0.1:$RECEIVER_PORT/hooks/demo\"}" | json_field account_id)
  CLIENT_ID=$(op POST "http://127.0.0.1:8081/admin/v1/accounts/$ACCOUNT_ID/clients" '{"name":"demo-client"}' \
    | json_field client_id)
  cli cert create --fqdn demo.example --out-key "$DEMO/demo.example-key.pem" \
    --out-cert "$DEMO/demo.example-cert.pem" --force > /dev/null
  pem=$(awk '{printf "%s\\n", $0}' "$DEMO/demo.example-cert.pem")
  CERT_UUID=$(op POST "http://127.0.0.1:8081/admin/v1/accounts/$ACCOUNT_ID/certificates" \
    "{\"certificate\":\"$pem\"}" | json_field certificate_uuid)
  op POST http://127.0.0.1:8083/admin/v1/users '{"auth_id":"demo","business_id":"1001"}' > /dev/null
  if [ -z "$ACCOUNT_ID" ] || [ -z "$CLIENT_ID" ] || [ -z "$CERT_UUID" ]; then
    echo "the demo bootstrap failed (account '$ACCOUNT_ID', client '$CLIENT_ID', certificate '$CERT_UUID')" >&2
    exit 1
  fi
  cat > "$DEMO/demo.env" <<EOF
# The demo created by run-local.sh ($(date -u +%Y-%m-%dT%H:%M:%SZ)); source it: . $DEMO/demo.env
export ACCOUNT_ID=$ACCOUNT_ID
export CLIENT_ID=$CLIENT_ID
export CERT_UUID=$CERT_UUID
export FQDN=demo.example
export BUSINESS_ID=1001
export AUTH_ID=demo
export KEY=$DEMO/demo.example-key.pem
export HOOK_CA=$DATA/hook/signing/ca.pem
export RECEIVER_PORT=$RECEIVER_PORT
export OPERATOR_KEY=$OPERATOR_KEY
platform-cli() { java -jar "$ROOT/platform-cli/target/platform-cli.jar" "\$@"; }
EOF
fi

cat <<EOF

The platform is running:
  management-service  http://localhost:8081   hook-service  http://localhost:8082   upload-service  http://localhost:8083
  demo ids and keys:  $DEMO/demo.env
  logs:               $LOGS

Next, in another terminal (docs/quickstart.md explains each step):
  . $DEMO/demo.env
  platform-cli receive-hooks --port \$RECEIVER_PORT --domain platform.example --trust \$HOOK_CA \\
    --resolve hooks.platform.example=127.0.0.1:8443 &
  platform-cli request token --base-url http://localhost:8081 --fqdn \$FQDN --client-id \$CLIENT_ID \\
    --key \$KEY --cert-uuid \$CERT_UUID

EOF

if [ "$DETACH" = 1 ]; then
  pids=()
  trap - INT TERM EXIT
  echo "(detached: stop with kill \$(cat $DATA/pids))"
  exit 0
fi
echo "Ctrl-C stops all three."
wait -n "${pids[@]}" || true
echo "a service stopped on its own; see $LOGS" >&2
exit 1
