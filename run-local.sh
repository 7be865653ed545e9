#!/usr/bin/env bash
# Runs the whole platform on this machine: builds what is missing, starts management-service (port 8081),
# hook-service (8082, its certificate also over HTTPS on 127.0.0.1:8443) and upload-service (8083) on PostgreSQL,
# wired together, then creates a demo account, client, certificate and user (once) and prints what to do
# next, and the operator console (8084, on 127.0.0.1 only). Each has its management interface (health, metrics) on a
# port of its own: 9081, 9082, 9083 and 9084 (the ops ports). Ctrl-C stops them all. Everything lives under the data
# directory (default ./data/local): files, generated keys (the console operator's password among them), logs, a private
# PostgreSQL when one is started, and demo/demo.env with the demo's ids and the ports of this run.
#
# The database: DATABASE_URL (jdbc:postgresql://host:port/db, with DATABASE_USER, default postgres, and
# DATABASE_PASSWORD) when given; else the PostgreSQL on 127.0.0.1:5432 when it lets the user postgres in without a
# password; else a private PostgreSQL under DIR/postgres, started and stopped with the platform, from the binaries a
# Maven artifact ships (local-postgres; as the user nobody when run as root, which PostgreSQL refuses to run as).
# Each data directory has three databases of its own (local_<hash of its path>_management, _hook, _upload), made
# empty the first time it is used.
#
#   ./run-local.sh [--rebuild] [--data DIR] [--detach] [--receiver-port PORT]
#                  [--management-port PORT] [--hook-port PORT] [--upload-port PORT] [--hook-https-port PORT]
#                  [--console-port PORT] [--management-ops-port PORT] [--hook-ops-port PORT]
#                  [--upload-ops-port PORT] [--console-ops-port PORT]
#
#   --rebuild            build even when the jars exist (after changing the code)
#   --data DIR           data directory (default ./data/local); delete it to start from nothing
#   --detach             start, bootstrap, print, and return with the services still running
#                        (stop: kill $(cat DIR/pids))
#   --receiver-port      where the demo account's hooks go, http://127.0.0.1:PORT/hooks/demo (default 9000; fixed
#                        when the demo is created)
#   --management-port    management-service's HTTP port (default 8081)
#   --hook-port          hook-service's HTTP port (default 8082)
#   --upload-port        upload-service's HTTP port (default 8083)
#   --hook-https-port    hook-service's local HTTPS port, serving its certificate (default 8443)
#   --console-port       the operator console's HTTP port (default 8084); its local operator and where the
#                        password is kept are printed at start
#   --management-ops-port, --hook-ops-port, --upload-ops-port, --console-ops-port
#                        each one's management interface: /q/health and /q/metrics, the console's health only
#                        (defaults 9081, 9082, 9083, 9084); the OpenAPI document and Swagger UI stay on the HTTP ports
#
# The ports may also be set in the environment: MANAGEMENT_PORT, HOOK_PORT, UPLOAD_PORT, HOOK_HTTPS_PORT,
# CONSOLE_PORT, RECEIVER_PORT, MANAGEMENT_OPS_PORT, HOOK_OPS_PORT, UPLOAD_OPS_PORT and CONSOLE_OPS_PORT (a flag wins).
# The ports used are printed and written to demo/demo.env on every start.
# CONSOLE_SESSION_KEY (32 or more characters) keeps the console's sessions over runs; without it each run makes a new
# random one. The services listen on 127.0.0.1 only (their test seams, such as delivery to private networks, are on
# here); LISTEN_HOST=0.0.0.0 opens them to the network, their management interfaces too.
set -euo pipefail
cd "$(dirname "$0")"
ROOT="$(pwd)"

DATA="./data/local"
RECEIVER_PORT="${RECEIVER_PORT:-9000}"
MANAGEMENT_PORT="${MANAGEMENT_PORT:-8081}"
HOOK_PORT="${HOOK_PORT:-8082}"
UPLOAD_PORT="${UPLOAD_PORT:-8083}"
HOOK_HTTPS_PORT="${HOOK_HTTPS_PORT:-8443}"
CONSOLE_PORT="${CONSOLE_PORT:-8084}"
MANAGEMENT_OPS_PORT="${MANAGEMENT_OPS_PORT:-9081}"
HOOK_OPS_PORT="${HOOK_OPS_PORT:-9082}"
UPLOAD_OPS_PORT="${UPLOAD_OPS_PORT:-9083}"
CONSOLE_OPS_PORT="${CONSOLE_OPS_PORT:-9084}"
REBUILD=0
DETACH=0
usage() { awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; }
value() { # option, value: an option that takes a value must have one
  if [ $# -lt 2 ] || [ -z "$2" ] || [ "${2#--}" != "$2" ]; then
    echo "$1 needs a value (see --help)" >&2
    exit 2
  fi
}
while [ $# -gt 0 ]; do
  case "$1" in
    --rebuild) REBUILD=1 ;;
    --detach) DETACH=1 ;;
    --data) value "$@"; DATA="$2"; shift ;;
    --receiver-port) value "$@"; RECEIVER_PORT="$2"; shift ;;
    --management-port) value "$@"; MANAGEMENT_PORT="$2"; shift ;;
    --hook-port) value "$@"; HOOK_PORT="$2"; shift ;;
    --upload-port) value "$@"; UPLOAD_PORT="$2"; shift ;;
    --hook-https-port) value "$@"; HOOK_HTTPS_PORT="$2"; shift ;;
    --console-port) value "$@"; CONSOLE_PORT="$2"; shift ;;
    --management-ops-port) value "$@"; MANAGEMENT_OPS_PORT="$2"; shift ;;
    --hook-ops-port) value "$@"; HOOK_OPS_PORT="$2"; shift ;;
    --upload-ops-port) value "$@"; UPLOAD_OPS_PORT="$2"; shift ;;
    --console-ops-port) value "$@"; CONSOLE_OPS_PORT="$2"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
PORTS="management $MANAGEMENT_PORT, hook $HOOK_PORT, upload $UPLOAD_PORT, hook HTTPS $HOOK_HTTPS_PORT, console $CONSOLE_PORT"
PORTS="$PORTS; ops (health, metrics): management $MANAGEMENT_OPS_PORT, hook $HOOK_OPS_PORT, upload $UPLOAD_OPS_PORT,"
PORTS="$PORTS console $CONSOLE_OPS_PORT"
seen=" "
for named in "management:$MANAGEMENT_PORT" "hook:$HOOK_PORT" "upload:$UPLOAD_PORT" "hook HTTPS:$HOOK_HTTPS_PORT" \
  "console:$CONSOLE_PORT" "management ops:$MANAGEMENT_OPS_PORT" "hook ops:$HOOK_OPS_PORT" \
  "upload ops:$UPLOAD_OPS_PORT" "console ops:$CONSOLE_OPS_PORT" \
  "receiver:$RECEIVER_PORT"; do
  name="${named%%:*}"; port="${named#*:}"
  case "$port" in
    '' | *[!0-9]* | 0*) port_ok=0 ;;
    *) port_ok=1; [ "${#port}" -le 5 ] && [ "$port" -le 65535 ] || port_ok=0 ;;
  esac
  if [ "$port_ok" = 0 ]; then
    echo "the $name port must be a number from 1 to 65535, not '$port' (see --help)" >&2
    exit 2
  fi
  case "$seen" in
    *" $port "*) echo "port $port is given twice ($PORTS, receiver $RECEIVER_PORT): each must differ" >&2; exit 2 ;;
  esac
  seen="$seen$port "
done
for tool in java curl openssl; do
  command -v "$tool" >/dev/null || { echo "$tool is needed and not on the PATH (docs/quickstart.md)" >&2; exit 1; }
done
if ! openssl kdf -help >/dev/null 2>&1; then
  echo "openssl has no kdf command (OpenSSL 3 is needed to hash the console's password; macOS's LibreSSL has none:" \
    "brew install openssl@3 and put it first on the PATH)" >&2
  exit 1
fi
mkdir -p "$DATA"
DATA="$(cd "$DATA" && pwd)"
LOGS="$DATA/logs"
DEMO="$DATA/demo"
mkdir -p "$LOGS" "$DEMO"

for port in "$MANAGEMENT_PORT" "$HOOK_PORT" "$UPLOAD_PORT" "$HOOK_HTTPS_PORT" "$CONSOLE_PORT" "$MANAGEMENT_OPS_PORT" \
  "$HOOK_OPS_PORT" "$UPLOAD_OPS_PORT" "$CONSOLE_OPS_PORT"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "port $port is already in use: is the platform running already? (stop it, free the port, or choose other" \
      "ports: see --help)" >&2
    exit 1
  fi
done

JARS=(management-service/target/quarkus-app/quarkus-run.jar hook-service/target/quarkus-app/quarkus-run.jar
  upload-service/target/quarkus-app/quarkus-run.jar platform-cli/target/platform-cli.jar
  operator-console/target/quarkus-app/quarkus-run.jar local-postgres/target/local-postgres.jar)
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
# The operator console's local operator, "operator", with a password of its own (kept in keys.env as
# CONSOLE_OPERATOR_PASSWORD) and the console's users file (console-users, name:pbkdf2-sha256$iterations$salt$hash, made
# with OpenSSL's PBKDF2). A data directory from before, with the shared CONSOLE_PASSWORD, gets one too.
CONSOLE_USERS="$DATA/console-users"
if ! grep -q '^CONSOLE_OPERATOR_PASSWORD=' "$KEYS"; then
  echo "CONSOLE_OPERATOR_PASSWORD=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')" >> "$KEYS"
  rm -f "$CONSOLE_USERS"
fi
# The key of the console's session cookies (it refuses to start without one): the one given as CONSOLE_SESSION_KEY,
# else a new random one on every run (sessions end with the run). Never written to the data directory.
GIVEN_SESSION_KEY="${CONSOLE_SESSION_KEY:-}"
# shellcheck disable=SC1090
. "$KEYS"
CONSOLE_SESSION_KEY="${GIVEN_SESSION_KEY:-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')}"
if [ ! -s "$CONSOLE_USERS" ]; then
  salt=$(openssl rand -base64 16)
  salt_hex=$(printf %s "$salt" | openssl base64 -d -A | od -An -tx1 | tr -d ' \n')
  hash=$(openssl kdf -binary -keylen 32 -kdfopt digest:SHA256 -kdfopt "pass:$CONSOLE_OPERATOR_PASSWORD" \
    -kdfopt "hexsalt:$salt_hex" -kdfopt iter:600000 PBKDF2 | openssl base64 -A)
  (umask 077; echo "operator:pbkdf2-sha256\$600000\$$salt\$$hash" > "$CONSOLE_USERS")
fi

pids=()
PG_PID=""
stop() {
  trap - INT TERM EXIT
  if [ ${#pids[@]} -gt 0 ] || [ -n "$PG_PID" ]; then
    echo
    echo "== stopping the platform"
    kill "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
    # the database last, once the services have closed their connections
    if [ -n "$PG_PID" ]; then kill "$PG_PID" 2>/dev/null || true; wait "$PG_PID" 2>/dev/null || true; fi
  fi
  rm -f "$DATA/pids"
}
trap 'stop; exit 130' INT TERM
trap stop EXIT

LISTEN_HOST="${LISTEN_HOST:-127.0.0.1}"
start() { # name, then env assignments; the jar is <name>/target/quarkus-app/quarkus-run.jar
  local name="$1"; shift
  env "$@" java ${JAVA_OPTS:-} -jar "$ROOT/$name/target/quarkus-app/quarkus-run.jar" > "$LOGS/$name.log" 2>&1 &
  pids+=($!)
  echo "$!" >> "$DATA/pids"
}
: > "$DATA/pids"

pg() { java -jar "$ROOT/local-postgres/target/local-postgres.jar" "$@"; }
DB_USER="${DATABASE_USER:-postgres}"
DB_PASSWORD="${DATABASE_PASSWORD:-}"
if [ -n "${DATABASE_URL:-}" ]; then
  ADMIN_URL="$DATABASE_URL"
  DB_WHERE="the PostgreSQL given (DATABASE_URL)"
elif (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null \
  && pg --check jdbc:postgresql://127.0.0.1:5432/postgres postgres "" > /dev/null 2>&1; then
  ADMIN_URL=jdbc:postgresql://127.0.0.1:5432/postgres
  DB_USER=postgres
  DB_PASSWORD=""
  DB_WHERE="the PostgreSQL on 127.0.0.1:5432"
else
  echo "== starting a private PostgreSQL (data in $DATA/postgres, log in $LOGS/postgres.log)"
  mkdir -p "$DATA/postgres"
  chmod 755 "$DATA/postgres"
  java -jar "$ROOT/local-postgres/target/local-postgres.jar" --data "$DATA/postgres/data" --port "${POSTGRES_PORT:-0}" \
    > "$LOGS/postgres.log" 2>&1 &
  PG_PID=$!
  pg_port=""
  for _ in $(seq 1 120); do
    pg_port=$(sed -n 's/^PostgreSQL ready on 127.0.0.1:\([0-9]*\) .*/\1/p' "$LOGS/postgres.log")
    [ -n "$pg_port" ] && break
    kill -0 "$PG_PID" 2>/dev/null || break
    sleep 0.5
  done
  if [ -z "$pg_port" ]; then
    echo "the private PostgreSQL did not start; the end of $LOGS/postgres.log:" >&2
    tail -n 30 "$LOGS/postgres.log" >&2
    exit 1
  fi
  ADMIN_URL="jdbc:postgresql://127.0.0.1:$pg_port/postgres"
  DB_USER=postgres
  DB_PASSWORD=""
  DB_WHERE="a private PostgreSQL on 127.0.0.1:$pg_port"
fi
DB_HOST=$(printf '%s' "$ADMIN_URL" | sed -E 's#^jdbc:postgresql://([^/?]+).*#\1#')
# sha256sum (GNU coreutils), or shasum where that is what the system has (macOS)
if command -v sha256sum >/dev/null; then digest() { sha256sum; }; else digest() { shasum -a 256; }; fi
DB_PREFIX="local_$(printf '%s' "$DATA" | digest | cut -c1-10)"
FRESH=()
[ -f "$DATA/databases.env" ] || FRESH=(--fresh)
pg --create-databases "$ADMIN_URL" "$DB_USER" "$DB_PASSWORD" "${FRESH[@]}" \
  "${DB_PREFIX}_management" "${DB_PREFIX}_hook" "${DB_PREFIX}_upload" \
  || { echo "the databases could not be made on $DB_WHERE (set DATABASE_URL, DATABASE_USER and DATABASE_PASSWORD)" >&2; exit 1; }
printf 'DB_PREFIX=%s\nDB_HOST=%s\n' "$DB_PREFIX" "$DB_HOST" > "$DATA/databases.env"
echo "== the databases: ${DB_PREFIX}_management, _hook and _upload on $DB_WHERE"

echo "== starting the services (ports: $PORTS; logs in $LOGS)"
start management-service QUARKUS_SWAGGER_UI_ENABLED=true QUARKUS_DATASOURCE_JDBC_URL="jdbc:postgresql://$DB_HOST/${DB_PREFIX}_management" \
  QUARKUS_DATASOURCE_USERNAME="$DB_USER" QUARKUS_DATASOURCE_PASSWORD="$DB_PASSWORD" QUARKUS_HTTP_PORT="$MANAGEMENT_PORT" QUARKUS_HTTP_HOST="$LISTEN_HOST" QUARKUS_MANAGEMENT_PORT="$MANAGEMENT_OPS_PORT" MANAGEMENT_DATA_DIR="$DATA/management" \
  MANAGEMENT_ADMIN_API_KEY="$OPERATOR_KEY" MANAGEMENT_INTERNAL_API_KEY="$MANAGEMENT_INTERNAL_KEY" \
  MANAGEMENT_ADMIN_ALLOW_HTTP_WEBHOOKS=true
start hook-service QUARKUS_SWAGGER_UI_ENABLED=true QUARKUS_DATASOURCE_JDBC_URL="jdbc:postgresql://$DB_HOST/${DB_PREFIX}_hook" \
  QUARKUS_DATASOURCE_USERNAME="$DB_USER" QUARKUS_DATASOURCE_PASSWORD="$DB_PASSWORD" QUARKUS_HTTP_PORT="$HOOK_PORT" QUARKUS_HTTP_HOST="$LISTEN_HOST" QUARKUS_MANAGEMENT_PORT="$HOOK_OPS_PORT" HOOK_DATA_DIR="$DATA/hook" HOOK_ADMIN_API_KEY="$OPERATOR_KEY" \
  HOOK_INTERNAL_API_KEY="$HOOK_INTERNAL_KEY" HOOK_MANAGEMENT_URL="http://127.0.0.1:$MANAGEMENT_PORT" \
  HOOK_MANAGEMENT_INTERNAL_API_KEY="$MANAGEMENT_INTERNAL_KEY" HOOK_LOCAL_HTTPS_PORT="$HOOK_HTTPS_PORT" \
  HOOK_DELIVERY_ALLOW_PRIVATE_NETWORKS=true HOOK_SIGNING_DEVELOPMENT_CA=true
start upload-service QUARKUS_SWAGGER_UI_ENABLED=true QUARKUS_DATASOURCE_JDBC_URL="jdbc:postgresql://$DB_HOST/${DB_PREFIX}_upload" \
  QUARKUS_DATASOURCE_USERNAME="$DB_USER" QUARKUS_DATASOURCE_PASSWORD="$DB_PASSWORD" QUARKUS_HTTP_PORT="$UPLOAD_PORT" QUARKUS_HTTP_HOST="$LISTEN_HOST" QUARKUS_MANAGEMENT_PORT="$UPLOAD_OPS_PORT" UPLOAD_DATA_DIR="$DATA/upload" \
  UPLOAD_STORAGE_DIR="$DATA/upload/files" UPLOAD_ADMIN_API_KEY="$OPERATOR_KEY" \
  UPLOAD_JWKS_URL="http://127.0.0.1:$MANAGEMENT_PORT/platform/management/jwks.json" \
  UPLOAD_HOOK_SERVICE_URL="http://127.0.0.1:$HOOK_PORT" UPLOAD_HOOK_SERVICE_INTERNAL_API_KEY="$HOOK_INTERNAL_KEY" \
  UPLOAD_MANAGEMENT_URL="http://127.0.0.1:$MANAGEMENT_PORT" UPLOAD_MANAGEMENT_INTERNAL_API_KEY="$MANAGEMENT_INTERNAL_KEY" \
  UPLOAD_PUBLIC_BASE_URL="http://localhost:$UPLOAD_PORT"
start operator-console QUARKUS_HTTP_PORT="$CONSOLE_PORT" QUARKUS_HTTP_HOST=127.0.0.1 QUARKUS_MANAGEMENT_PORT="$CONSOLE_OPS_PORT" \
  CONSOLE_USERS_FILE="$CONSOLE_USERS" CONSOLE_SESSION_KEY="$CONSOLE_SESSION_KEY" CONSOLE_SECURE_COOKIES=false \
  CONSOLE_MANAGEMENT_URL="http://127.0.0.1:$MANAGEMENT_PORT" CONSOLE_MANAGEMENT_API_KEY="$OPERATOR_KEY" \
  CONSOLE_HOOK_URL="http://127.0.0.1:$HOOK_PORT" CONSOLE_HOOK_API_KEY="$OPERATOR_KEY" \
  CONSOLE_UPLOAD_URL="http://127.0.0.1:$UPLOAD_PORT" CONSOLE_UPLOAD_API_KEY="$OPERATOR_KEY"

for svc in "management-service:$MANAGEMENT_PORT:$MANAGEMENT_OPS_PORT" "hook-service:$HOOK_PORT:$HOOK_OPS_PORT" \
  "upload-service:$UPLOAD_PORT:$UPLOAD_OPS_PORT" "operator-console:$CONSOLE_PORT:$CONSOLE_OPS_PORT"; do
  IFS=: read -r name port ops <<< "$svc"
  ready=0
  for _ in $(seq 1 120); do
    if curl -fs "http://127.0.0.1:$ops/q/health/ready" > /dev/null 2>&1; then ready=1; break; fi
    sleep 0.5
  done
  if [ "$ready" != 1 ]; then
    echo "$name did not become ready (http://127.0.0.1:$ops/q/health/ready); the end of $LOGS/$name.log:" >&2
    tail -n 30 "$LOGS/$name.log" >&2
    exit 1
  fi
  if [ "$name" = operator-console ]; then
    echo "   $name ready on http://localhost:$port (sign in as operator, password $CONSOLE_OPERATOR_PASSWORD: CONSOLE_OPERATOR_PASSWORD in $KEYS; users file $CONSOLE_USERS)"
  else
    echo "   $name ready on http://localhost:$port (OpenAPI UI: http://localhost:$port/q/swagger-ui; metrics:" \
      "http://localhost:$ops/q/metrics)"
  fi
done

# The demo: one account (FQDN demo.example, business 1001) whose hooks go to a receiver on this machine, one
# client, a self-signed certificate (key in $DEMO) and an upload user. Created once and recorded in ids.env;
# demo.env is written on every start, with those ids and this run's ports.
IDS="$DEMO/ids.env"
if [ ! -f "$IDS" ] && [ -f "$DEMO/demo.env" ]; then
  # A data directory from before ids.env: its demo.env holds the ids.
  grep -E '^export (ACCOUNT_ID|CLIENT_ID|CERT_UUID|RECEIVER_PORT)=' "$DEMO/demo.env" | sed 's/^export //' > "$IDS"
fi
if [ ! -f "$IDS" ]; then
  echo "== creating the demo account, client, certificate and user"
  json_field() { sed -n "s/.*\"$1\" *: *\"\\([^\"]*\\)\".*/\\1/p"; }
  op() { # method, url, body
    curl -sS --fail-with-body -X "$1" "$2" -H "Authorization: Bearer $OPERATOR_KEY" -H 'Content-Type: application/json' -d "$3"
  }
  M="http://127.0.0.1:$MANAGEMENT_PORT"
  ACCOUNT_ID=$(op POST "$M/admin/v1/accounts" "{\"name\":\"Demo\",\"fqdn\":\"demo.example\",\
\"business_id\":\"1001\",\"webhook_url\":\"http://127.0.0.1:$RECEIVER_PORT/hooks/demo\"}" | json_field account_id)
  CLIENT_ID=$(op POST "$M/admin/v1/accounts/$ACCOUNT_ID/clients" '{"name":"demo-client"}' | json_field client_id)
  cli cert create --fqdn demo.example --out-key "$DEMO/demo.example-key.pem" \
    --out-cert "$DEMO/demo.example-cert.pem" --force > /dev/null
  pem=$(awk '{printf "%s\\n", $0}' "$DEMO/demo.example-cert.pem")
  CERT_UUID=$(op POST "$M/admin/v1/accounts/$ACCOUNT_ID/certificates" "{\"certificate\":\"$pem\"}" \
    | json_field certificate_uuid)
  op POST "http://127.0.0.1:$UPLOAD_PORT/admin/v1/users" '{"auth_id":"demo","business_id":"1001"}' > /dev/null
  if [ -z "$ACCOUNT_ID" ] || [ -z "$CLIENT_ID" ] || [ -z "$CERT_UUID" ]; then
    echo "the demo bootstrap failed (account '$ACCOUNT_ID', client '$CLIENT_ID', certificate '$CERT_UUID')" >&2
    exit 1
  fi
  printf 'ACCOUNT_ID=%s\nCLIENT_ID=%s\nCERT_UUID=%s\nRECEIVER_PORT=%s\n' "$ACCOUNT_ID" "$CLIENT_ID" "$CERT_UUID" \
    "$RECEIVER_PORT" > "$IDS"
fi
WANTED_RECEIVER_PORT="$RECEIVER_PORT"
# shellcheck disable=SC1090
. "$IDS"
if [ "$WANTED_RECEIVER_PORT" != "$RECEIVER_PORT" ]; then
  echo "note: the demo account's hooks go to port $RECEIVER_PORT, set when it was created; the receiver port" \
    "$WANTED_RECEIVER_PORT is not used (delete $DATA to start again with it)" >&2
fi
cat > "$DEMO/demo.env" <<EOF
# The demo created by run-local.sh, with the ports of its start at $(date -u +%Y-%m-%dT%H:%M:%SZ); source it:
#   . $DEMO/demo.env
export ACCOUNT_ID=$ACCOUNT_ID
export CLIENT_ID=$CLIENT_ID
export CERT_UUID=$CERT_UUID
export FQDN=demo.example
export BUSINESS_ID=1001
export AUTH_ID=demo
export KEY=$DEMO/demo.example-key.pem
export DEMO_DIR=$DEMO
export HOOK_CA=$DATA/hook/signing/ca.pem
export RECEIVER_PORT=$RECEIVER_PORT
export MANAGEMENT_PORT=$MANAGEMENT_PORT
export HOOK_PORT=$HOOK_PORT
export UPLOAD_PORT=$UPLOAD_PORT
export HOOK_HTTPS_PORT=$HOOK_HTTPS_PORT
export CONSOLE_PORT=$CONSOLE_PORT
export MANAGEMENT_OPS_PORT=$MANAGEMENT_OPS_PORT
export HOOK_OPS_PORT=$HOOK_OPS_PORT
export UPLOAD_OPS_PORT=$UPLOAD_OPS_PORT
export CONSOLE_OPS_PORT=$CONSOLE_OPS_PORT
export OPERATOR_KEY=$OPERATOR_KEY
platform-cli() { java -jar "$ROOT/platform-cli/target/platform-cli.jar" "\$@"; }
EOF

cat <<EOF

The platform is running:
  management-service  http://localhost:$MANAGEMENT_PORT   hook-service  http://localhost:$HOOK_PORT   upload-service  http://localhost:$UPLOAD_PORT
  operator console    http://localhost:$CONSOLE_PORT   (operator / $CONSOLE_OPERATOR_PASSWORD, kept in $KEYS; users: $CONSOLE_USERS)
  ports:              $PORTS; the demo's hooks go to receiver port $RECEIVER_PORT
  database:           $DB_WHERE (${DB_PREFIX}_management, _hook, _upload)
  demo ids and ports: $DEMO/demo.env
  logs:               $LOGS

Next, in another terminal (docs/quickstart.md explains each step):
  . $DEMO/demo.env
  platform-cli receive-hooks --port \$RECEIVER_PORT --domain platform.example --trust \$HOOK_CA \\
    --resolve hooks.platform.example=127.0.0.1:\$HOOK_HTTPS_PORT &
  platform-cli request token --base-url http://localhost:\$MANAGEMENT_PORT --fqdn \$FQDN --client-id \$CLIENT_ID \\
    --key \$KEY --cert-uuid \$CERT_UUID

EOF

if [ "$DETACH" = 1 ]; then
  [ -n "$PG_PID" ] && echo "$PG_PID" >> "$DATA/pids"
  pids=()
  PG_PID=""
  trap - INT TERM EXIT
  echo "(detached: stop with kill \$(cat $DATA/pids))"
  exit 0
fi
echo "Ctrl-C stops all four."
wait -n "${pids[@]}" || true
echo "a service stopped on its own; see $LOGS" >&2
exit 1
