#!/usr/bin/env bash
# Load test of hook-service alone: builds it, starts it on a new PostgreSQL database (see service-support's
# load-test-lib.sh: never analysed, so the planner's statistics are stale throughout) and a fresh data directory (a
# generated signing CA), with the SSRF guard's private-network seam on (the receivers are on loopback), runs HookLoadTest against it,
# prints the figures and stops the service. HookLoadTest plays management-service's account lookup and the receivers.
# Options (environment): WORKERS (8,64: intake calls in flight at once, a list), BATCH (1,32: events per intake call, a
# list; 1 posts each event to POST /internal/v1/events, more use the batch intake, as upload-service sends them); every
# combination is measured. ACCOUNTS (8), SECONDS_PER_PHASE (15), WARMUP_SECONDS (150: on two cores the JIT compiler
# keeps compiling for two to three minutes of load), BACKLOG (100000: the backlog phases' pending deliveries, drained
# once as they are and once while a disabled endpoint holds as many; 0 skips them), PORT (18082), OPS_PORT (19082: its
# management interface, where the metrics are read), RECEIVER_PORT
# (18182: the account lookup; each account's receiver on one of the next ports), PG_URL / PG_USER / PG_PASSWORD (the PostgreSQL to make the database hook_load on; default the one on
# 127.0.0.1:5432, else a private one), SERVICE_JAVA_OPTS.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${PORT:-18082}"
OPS_PORT="${OPS_PORT:-19082}"
RECEIVER_PORT="${RECEIVER_PORT:-18182}"
DATA="$(mktemp -d)"
source service-support/load-test-lib.sh
build_for_load_test hook-service
database_for_load_test hook_load
# shellcheck disable=SC2086 # SERVICE_JAVA_OPTS holds several options
start_service hook-service "$PORT" "$OPS_PORT" "$DATA" ${SERVICE_JAVA_OPTS:-} -- "${DB_ENV[@]}" \
  HOOK_INTERNAL_API_KEY=load-test-internal-key HOOK_ADMIN_API_KEY=load-test-operator-key HOOK_DATA_DIR="$DATA" \
  HOOK_MANAGEMENT_URL="http://127.0.0.1:$RECEIVER_PORT" HOOK_MANAGEMENT_INTERNAL_API_KEY=unused \
  HOOK_DELIVERY_ALLOW_PRIVATE_NETWORKS=true HOOK_SIGNING_DEVELOPMENT_CA=true
java -Dsun.net.httpserver.nodelay=true -cp "$LOAD_CLASSPATH" -Dbase="http://127.0.0.1:$PORT" -DopsBase="http://127.0.0.1:$OPS_PORT" -DinternalKey=load-test-internal-key \
  -DreceiverPort="$RECEIVER_PORT" -Daccounts="${ACCOUNTS:-8}" -Dworkers="${WORKERS:-8,64}" \
  -Dseconds="${SECONDS_PER_PHASE:-15}" -Dwarmup="${WARMUP_SECONDS:-150}" -Dbatch="${BATCH:-1,32}" -DservicePid="$SERVICE_PID" \
  -Dbacklog="${BACKLOG:-100000}" -DoperatorKey=load-test-operator-key -DpacedRate="${PACED_RATE:-0}" \
  com.convplatform.load.hook.HookLoadTest
