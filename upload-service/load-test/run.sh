#!/usr/bin/env bash
# Load test of upload-service alone: builds it, starts it on a new PostgreSQL database and a fresh data directory (local
# file store)
# with its heap capped (128 MB by default), runs UploadLoadTest against it, prints the figures and stops the service.
# UploadLoadTest plays management-service's JWKS and hook-service's intake on loopback and measures, in the same run,
# a bare loopback copy of the same request bytes to disk as the ceiling.
# Options (environment): WORKERS (8), ROUNDS (3: ceiling and service phases, one after the other, per size),
# SECONDS_PER_PHASE (10), WARMUP_SECONDS (60), SERVICE_HEAP (128m), SIZES (100000,5000000: the file sizes measured
# against the ceiling, in bytes), PORT (18083), OPS_PORT (19083: its management interface, where the metrics are read),
# STUB_PORT (18183), SERVICE_JAVA_OPTS (added to the service's java command), AFTER_CLEANUP_SECONDS (360: how long after
# the last run's cleanup to start; see wait_after_cleanup in service-support/load-test-lib.sh), PG_URL / PG_USER /
# PG_PASSWORD (the PostgreSQL to make the database upload_load on; default the one on 127.0.0.1:5432, else a private
# one; service-support's load-test-lib.sh).
# The quotas are set far above the load (one account is the whole load, by design); the statement that reserves an
# upload's bytes still runs for every upload, so its cost is in the figures.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${PORT:-18083}"
OPS_PORT="${OPS_PORT:-19083}"
STUB_PORT="${STUB_PORT:-18183}"
HEAP="${SERVICE_HEAP:-128m}"
DATA="$(mktemp -d)"
source service-support/load-test-lib.sh
build_for_load_test upload-service
database_for_load_test upload_load
wait_after_cleanup upload-service
# shellcheck disable=SC2086 # SERVICE_JAVA_OPTS holds several options
start_service upload-service "$PORT" "$OPS_PORT" "$DATA" "-Xmx$HEAP" ${SERVICE_JAVA_OPTS:-} -- "${DB_ENV[@]}" \
  UPLOAD_ADMIN_API_KEY=load-test-operator-key UPLOAD_DATA_DIR="$DATA" UPLOAD_STORAGE_DIR="$DATA/files" \
  UPLOAD_PUBLIC_BASE_URL="http://127.0.0.1:$PORT" UPLOAD_JWKS_URL="http://127.0.0.1:$STUB_PORT/jwks.json" \
  UPLOAD_HOOK_SERVICE_URL="http://127.0.0.1:$STUB_PORT" UPLOAD_HOOK_SERVICE_INTERNAL_API_KEY=test-internal-key \
  UPLOAD_MANAGEMENT_URL="http://127.0.0.1:$STUB_PORT" UPLOAD_MANAGEMENT_INTERNAL_API_KEY=test-internal-key \
  UPLOAD_QUOTA_BYTES_PER_DAY="${QUOTA_BYTES_PER_DAY:-1125899906842624}" UPLOAD_QUOTA_UPLOADS_PER_MINUTE="${QUOTA_UPLOADS_PER_MINUTE:-1000000000}"
status=0
java -Dsun.net.httpserver.nodelay=true -cp "$LOAD_CLASSPATH" -Dbase="http://127.0.0.1:$PORT" -DopsBase="http://127.0.0.1:$OPS_PORT" -DoperatorKey=load-test-operator-key -DstubPort="$STUB_PORT" \
  -Dworkers="${WORKERS:-8}" -Drounds="${ROUNDS:-3}" -Dseconds="${SECONDS_PER_PHASE:-10}" -Dwarmup="${WARMUP_SECONDS:-60}" -Dsizes="${SIZES:-100000,5000000}" -Dheap="-Xmx$HEAP" -DservicePid="$SERVICE_PID" -DserviceFiles="$DATA/files" \
  com.convplatform.load.upload.UploadLoadTest || status=$?
if grep -q -E "OutOfMemoryError|ERROR" "$DATA/service.log"; then
  echo "service log:"; grep -E -A3 "OutOfMemoryError|ERROR" "$DATA/service.log" | head -40
fi
if grep -q "WARN" "$DATA/service.log"; then
  echo "service log: $(grep -c WARN "$DATA/service.log") warnings; the first:"; grep "WARN" "$DATA/service.log" | head -20
fi
exit $status
