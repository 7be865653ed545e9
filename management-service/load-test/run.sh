#!/usr/bin/env bash
# Load test of management-service alone: builds it, starts it on a new PostgreSQL database and a fresh data directory
# with an operator key,
# runs ManagementLoadTest against it, prints the figures and stops the service.
# Options (environment): WORKERS (16), SECONDS_PER_OP (30), WARMUP_SECONDS (30, unmeasured, per operation), KEY_TYPE
# (rsa|ec), PORT (18081), OPS_PORT (19081: its management interface), SERVICE_JAVA_OPTS (added to the service's java
# command, e.g. a JFR recording), PG_URL / PG_USER / PG_PASSWORD (the PostgreSQL to make the database management_load
# on; default the one on 127.0.0.1:5432, else a private one; service-support's load-test-lib.sh).
# The rate limits are off for the run: one load generator on one address is the whole load, by design.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${PORT:-18081}"
OPS_PORT="${OPS_PORT:-19081}"
DATA="$(mktemp -d)"
source service-support/load-test-lib.sh
build_for_load_test management-service
database_for_load_test management_load
# shellcheck disable=SC2086 # SERVICE_JAVA_OPTS holds several options
start_service management-service "$PORT" "$OPS_PORT" "$DATA" ${SERVICE_JAVA_OPTS:-} -- "${DB_ENV[@]}" \
  MANAGEMENT_ADMIN_API_KEY=load-test-operator-key MANAGEMENT_DATA_DIR="$DATA" \
  MANAGEMENT_RATE_LIMIT_PER_SOURCE=0 MANAGEMENT_RATE_LIMIT_PER_ACCOUNT=0 MANAGEMENT_CERT_FETCH_DOWNLOADS_PER_ACCOUNT=0
java -cp "$LOAD_CLASSPATH" -Dbase="http://127.0.0.1:$PORT" -DadminKey=load-test-operator-key \
  -Dworkers="${WORKERS:-16}" -Dseconds="${SECONDS_PER_OP:-30}" -Dwarmup="${WARMUP_SECONDS:-30}" -DkeyType="${KEY_TYPE:-rsa}" \
  -DservicePid="$SERVICE_PID" \
  com.convplatform.load.management.ManagementLoadTest
