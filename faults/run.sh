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
#   REBUILD=1     build the PostgreSQL jars even when they look current
#
# Skips itself (exit 0) when nothing listens on 127.0.0.1:5432. Needs java 17, node 20, python3, openssl and the
# PostgreSQL client tools (psql, createdb, dropdb). The services are built for PostgreSQL (the database kind is fixed
# at build time) into <module>/target/faults-postgresql, beside the embedded-storage jars in target/quarkus-app,
# when those are missing or older than target/quarkus-app or the module's classes.
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
stale=0
for m in "${MODULES[@]}"; do
  jar="$m/target/faults-postgresql/quarkus-run.jar"
  if [ ! -f "$jar" ] || [ "${REBUILD:-0}" = 1 ]; then
    stale=1
  elif [ -f "$m/target/quarkus-app/quarkus-run.jar" ] && [ "$m/target/quarkus-app/quarkus-run.jar" -nt "$jar" ]; then
    stale=1
  elif [ -n "$(find "$m/target/classes" crypto-common/target/classes service-support/target/classes -newer "$jar" \
    -type f -print -quit 2> /dev/null)" ]; then
    stale=1
  fi
done
if [ "$stale" = 1 ]; then
  echo "== faults: building the services for PostgreSQL into <module>/target/faults-postgresql"
  start=$(date +%s)
  # Quarkus records its last build in target/quarkus-artifact.properties, which @QuarkusIntegrationTest reads: keep
  # it pointing at the embedded-storage jar.
  for m in "${MODULES[@]}"; do
    if [ -f "$m/target/quarkus-artifact.properties" ]; then
      cp "$m/target/quarkus-artifact.properties" "$m/target/.faults-artifact"
    fi
  done
  # shellcheck disable=SC2086 # FAULTS_MAVEN_OPTS holds several options (e.g. -o)
  ./mvnw -B -q -ntp ${FAULTS_MAVEN_OPTS:-} -pl "$(IFS=,; echo "${MODULES[*]}")" -am package -DskipTests \
    -Dquarkus.datasource.db-kind=postgresql -Dquarkus.package.output-directory=faults-postgresql
  for m in "${MODULES[@]}"; do
    if [ -f "$m/target/.faults-artifact" ]; then mv "$m/target/.faults-artifact" "$m/target/quarkus-artifact.properties"; fi
  done
  echo "== faults: built in $(($(date +%s) - start)) s"
fi

exec python3 faults/harness.py "$@"
