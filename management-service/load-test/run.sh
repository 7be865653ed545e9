#!/usr/bin/env bash
# Load test of management-service alone: builds it, starts it on a fresh data directory with an operator key,
# runs ManagementLoadTest against it, prints the figures and stops the service.
# Options (environment): WORKERS (16), SECONDS_PER_OP (30), WARMUP_SECONDS (30, unmeasured, per operation), KEY_TYPE
# (rsa|ec), PORT (18081), SERVICE_JAVA_OPTS (added to the service's java command, e.g. a JFR recording),
# DB (h2, or postgresql: the service is built for PostgreSQL and uses schema management_load, emptied first, in the
# database PG_URL, default jdbc:postgresql://127.0.0.1:5432/test, user PG_USER, default postgres).
# The rate limits are off for the run: one load generator on one address is the whole load, by design.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${PORT:-18081}"
DATA="$(mktemp -d)"
source service-support/load-test-lib.sh
database_for_load_test management_load
build_for_load_test management-service ${DB_BUILD_OPTS[@]+"${DB_BUILD_OPTS[@]}"}
# shellcheck disable=SC2086 # SERVICE_JAVA_OPTS holds several options
start_service management-service "$PORT" "$DATA" ${SERVICE_JAVA_OPTS:-} -- ${DB_ENV[@]+"${DB_ENV[@]}"} \
  MANAGEMENT_ADMIN_API_KEY=load-test-operator-key MANAGEMENT_DATA_DIR="$DATA" \
  MANAGEMENT_RATE_LIMIT_PER_SOURCE=0 MANAGEMENT_RATE_LIMIT_PER_ACCOUNT=0 MANAGEMENT_CERT_FETCH_DOWNLOADS_PER_ACCOUNT=0
java -cp "$LOAD_CLASSPATH" -Dbase="http://127.0.0.1:$PORT" -DadminKey=load-test-operator-key \
  -Dworkers="${WORKERS:-16}" -Dseconds="${SECONDS_PER_OP:-30}" -Dwarmup="${WARMUP_SECONDS:-30}" -DkeyType="${KEY_TYPE:-rsa}" \
  -DservicePid="$SERVICE_PID" \
  com.convplatform.load.management.ManagementLoadTest
