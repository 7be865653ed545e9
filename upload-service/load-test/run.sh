#!/usr/bin/env bash
# Load test of upload-service alone: builds it, starts it on a fresh data directory (embedded H2, local file store)
# with its heap capped (128 MB by default), runs UploadLoadTest against it, prints the figures and stops the service.
# UploadLoadTest plays management-service's JWKS and hook-service's intake on loopback and measures, in the same run,
# a bare loopback copy of the same request bytes to disk as the ceiling.
# Options (environment): WORKERS (8), SECONDS_PER_PHASE (15), WARMUP_SECONDS (20), SERVICE_HEAP (128m),
# PORT (18083), STUB_PORT (18183), SERVICE_JAVA_OPTS (added to the service's java command).
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${PORT:-18083}"
STUB_PORT="${STUB_PORT:-18183}"
HEAP="${SERVICE_HEAP:-128m}"
DATA="$(mktemp -d)"
./mvnw -B -q -ntp -pl crypto-common,service-support -am install -DskipTests
./mvnw -B -q -ntp -pl upload-service package -DskipTests
./mvnw -B -q -ntp -pl upload-service dependency:build-classpath -Dmdep.outputFile=target/load.classpath \
  -Dmdep.includeScope=test
UPLOAD_ADMIN_API_KEY=load-test-operator-key UPLOAD_DATA_DIR="$DATA" UPLOAD_STORAGE_DIR="$DATA/files" \
  UPLOAD_PUBLIC_BASE_URL="http://127.0.0.1:$PORT" UPLOAD_JWKS_URL="http://127.0.0.1:$STUB_PORT/jwks.json" \
  UPLOAD_HOOK_SERVICE_URL="http://127.0.0.1:$STUB_PORT" UPLOAD_HOOK_SERVICE_INTERNAL_API_KEY=test-internal-key \
  QUARKUS_HTTP_PORT="$PORT" QUARKUS_LOG_LEVEL=WARN \
  java "-Xmx$HEAP" ${SERVICE_JAVA_OPTS:-} -jar upload-service/target/quarkus-app/quarkus-run.jar > "$DATA/service.log" 2>&1 &
pid=$!
# The service's log stays in upload-service/target/load-service.log. kill and wait fail once the service has gone, so
# both are allowed to, or set -e would end the trap before the data directory is removed.
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; cp "$DATA/service.log" upload-service/target/load-service.log 2>/dev/null || true; rm -rf "$DATA"' EXIT
for _ in $(seq 1 60); do
  curl -fs "http://127.0.0.1:$PORT/q/health/ready" >/dev/null 2>&1 && break
  sleep 1
done
cp="upload-service/target/test-classes:upload-service/target/classes:$(cat upload-service/target/load.classpath)"
status=0
java -cp "$cp" -Dbase="http://127.0.0.1:$PORT" -DoperatorKey=load-test-operator-key -DstubPort="$STUB_PORT" \
  -Dworkers="${WORKERS:-8}" -Dseconds="${SECONDS_PER_PHASE:-15}" -Dwarmup="${WARMUP_SECONDS:-20}" -Dheap="-Xmx$HEAP" \
  com.convplatform.upload.load.UploadLoadTest || status=$?
if grep -q -E "OutOfMemoryError|ERROR" "$DATA/service.log"; then
  echo "service log:"; grep -E -A3 "OutOfMemoryError|ERROR" "$DATA/service.log" | head -40
fi
exit $status
