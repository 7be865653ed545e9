#!/usr/bin/env bash
# Load test of management-service alone: builds it, starts it on a fresh data directory with an operator key,
# runs ManagementLoadTest against it, prints the figures and stops the service.
# Options (environment): WORKERS (16), SECONDS_PER_OP (15), KEY_TYPE (rsa|ec), PORT (18081), SERVICE_JAVA_OPTS (added to
# the service's java command, e.g. a JFR recording).
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${PORT:-18081}"
DATA="$(mktemp -d)"
./mvnw -B -q -ntp -pl crypto-common,service-support -am install -DskipTests
./mvnw -B -q -ntp -pl management-service package -DskipTests
./mvnw -B -q -ntp -pl management-service dependency:build-classpath -Dmdep.outputFile=target/load.classpath \
  -Dmdep.includeScope=test
MANAGEMENT_ADMIN_API_KEY=load-test-operator-key MANAGEMENT_DATA_DIR="$DATA" QUARKUS_HTTP_PORT="$PORT" \
  QUARKUS_LOG_LEVEL=WARN java ${SERVICE_JAVA_OPTS:-} -jar management-service/target/quarkus-app/quarkus-run.jar > "$DATA/service.log" 2>&1 &
pid=$!
# The service's log stays in management-service/target/load-service.log. kill and wait fail once the service has gone, so
# both are allowed to, or set -e would end the trap before the data directory is removed.
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; cp "$DATA/service.log" management-service/target/load-service.log 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 1 60); do
  curl -fs "http://127.0.0.1:$PORT/q/health/ready" >/dev/null 2>&1 && break
  sleep 1
done
cp="management-service/target/test-classes:management-service/target/classes:$(cat management-service/target/load.classpath)"
java -cp "$cp" -Dbase="http://127.0.0.1:$PORT" -DadminKey=load-test-operator-key \
  -Dworkers="${WORKERS:-16}" -Dseconds="${SECONDS_PER_OP:-15}" -DkeyType="${KEY_TYPE:-rsa}" \
  com.convplatform.management.load.ManagementLoadTest
