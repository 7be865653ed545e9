#!/usr/bin/env bash
# The fault harness (faults/README.md): management-service, three hook-service replicas and two upload-service
# replicas on the local PostgreSQL (databases of the run's own, reached through a proxy the harness cuts), a receiver
# that fails, times out and answers slowly on a schedule, a steady load of uploads; SIGKILL and SIGTERM of replicas,
# database cuts, a management-service outage and a rotation of the hook signing key; then one table of figures.
# Exit 0 when nothing was lost or stuck, 1 when something was, 2 when the platform could not be started.
#
#   faults/run.sh [--minutes N] [--short] [--rate R] [--seed S]
#
#   --minutes N   length of the load and faults (default 30)
#   --short       the CI version: 80 s of load, one fault of each kind (about 4 minutes in all once built)
#   --rate R      uploads per second (default 4; 3 with --short)
#   --seed S      the schedule's random seed (printed at the start, to run the same schedule again)
#   KEEP=1        keep the work directory (logs, receiver log, events, table) and the run's databases
#   REBUILD=1     build the jars even when they are there
#
# Skips itself (exit 0) when nothing listens on 127.0.0.1:5432. Needs java 17, node 20, python3, openssl and the
# PostgreSQL client tools (psql, createdb, dropdb). The services' jars (target/quarkus-app) are built when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
  exit 0
fi
if ! (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; then
  echo "faults: SKIPPED: nothing listens on 127.0.0.1:5432 (the harness runs the services on PostgreSQL)"
  exit 0
fi
for tool in java node python3 openssl psql createdb dropdb; do
  command -v "$tool" > /dev/null || { echo "faults: $tool is needed and not installed" >&2; exit 2; }
done

MODULES=(management-service hook-service upload-service)
missing=0
for m in "${MODULES[@]}"; do
  [ -f "$m/target/quarkus-app/quarkus-run.jar" ] || missing=1
done
if [ "$missing" = 1 ] || [ "${REBUILD:-0}" = 1 ]; then
  echo "== faults: building the services"
  # shellcheck disable=SC2086 # FAULTS_MAVEN_OPTS holds several options (e.g. -o)
  ./mvnw -B -q -ntp ${FAULTS_MAVEN_OPTS:-} -pl "$(IFS=,; echo "${MODULES[*]}")" -am package -DskipTests
fi

exec python3 faults/harness.py "$@"
