#!/usr/bin/env bash
# Load test of hook-service alone: builds it, starts it on a fresh data directory (embedded H2, a generated signing
# CA) with the SSRF guard's private-network seam on (the receivers are on loopback), runs HookLoadTest against it,
# prints the figures and stops the service. HookLoadTest plays management-service's account lookup and the receivers.
# Options (environment): ACCOUNTS (8), WORKERS (8), SECONDS_PER_PHASE (15), WARMUP_SECONDS (60), PORT (18082), RECEIVER_PORT (18182),
# DB (h2, or postgresql: the service is built for PostgreSQL and uses schema hook_load, emptied first, in the database
# PG_URL, default jdbc:postgresql://127.0.0.1:5432/test, user PG_USER, default postgres), SERVICE_JAVA_OPTS.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${PORT:-18082}"
RECEIVER_PORT="${RECEIVER_PORT:-18182}"
DATA="$(mktemp -d)"
./mvnw -B -q -ntp -pl crypto-common,service-support -am install -DskipTests
db_env=()
build_opts=()
if [ "${DB:-h2}" = "postgresql" ]; then
  build_opts+=(-Dquarkus.datasource.db-kind=postgresql)
  db_env+=(QUARKUS_DATASOURCE_JDBC_URL="${PG_URL:-jdbc:postgresql://127.0.0.1:5432/test}?currentSchema=hook_load"
    QUARKUS_DATASOURCE_USERNAME="${PG_USER:-postgres}" QUARKUS_FLYWAY_SCHEMAS=hook_load
    QUARKUS_FLYWAY_CLEAN_DISABLED=false QUARKUS_FLYWAY_CLEAN_AT_START=true)
fi
./mvnw -B -q -ntp -pl hook-service package -DskipTests "${build_opts[@]}"
./mvnw -B -q -ntp -pl hook-service dependency:build-classpath -Dmdep.outputFile=target/load.classpath \
  -Dmdep.includeScope=test
env "${db_env[@]}" HOOK_INTERNAL_API_KEY=load-test-internal-key HOOK_ADMIN_API_KEY=load-test-operator-key HOOK_DATA_DIR="$DATA" \
  HOOK_MANAGEMENT_URL="http://127.0.0.1:$RECEIVER_PORT" HOOK_MANAGEMENT_INTERNAL_API_KEY=unused \
  HOOK_DELIVERY_ALLOW_PRIVATE_NETWORKS=true QUARKUS_HTTP_PORT="$PORT" QUARKUS_LOG_LEVEL=WARN \
  java ${SERVICE_JAVA_OPTS:-} -jar hook-service/target/quarkus-app/quarkus-run.jar > "$DATA/service.log" 2>&1 &
pid=$!
# The service's log stays in hook-service/target/load-service.log. kill and wait fail once the service has gone, so
# both are allowed to, or set -e would end the trap before the data directory is removed.
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; cp "$DATA/service.log" hook-service/target/load-service.log 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 1 60); do
  curl -fs "http://127.0.0.1:$PORT/q/health/ready" >/dev/null 2>&1 && break
  sleep 1
done
cp="hook-service/target/test-classes:hook-service/target/classes:$(cat hook-service/target/load.classpath)"
java -Dsun.net.httpserver.nodelay=true -cp "$cp" -Dbase="http://127.0.0.1:$PORT" -DinternalKey=load-test-internal-key \
  -DreceiverPort="$RECEIVER_PORT" -Daccounts="${ACCOUNTS:-8}" -Dworkers="${WORKERS:-8}" \
  -Dseconds="${SECONDS_PER_PHASE:-15}" -Dwarmup="${WARMUP_SECONDS:-60}" com.convplatform.hook.load.HookLoadTest
