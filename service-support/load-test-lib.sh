# Shared by the services' load-test/run.sh scripts (sourced from the repository root, after set -euo pipefail).

# database_for_load_test <schema>
# With DB=postgresql, sets DB_BUILD_OPTS (the build's datasource kind, fixed at build time) and DB_ENV (the service's
# datasource: schema <schema>, emptied first, in the database PG_URL, default jdbc:postgresql://127.0.0.1:5432/test,
# user PG_USER, default postgres); with DB=h2, the default, leaves both empty (the service's embedded H2).
database_for_load_test() {
  local schema=$1
  DB_BUILD_OPTS=()
  DB_ENV=()
  case "${DB:-h2}" in
    h2) ;;
    postgresql)
      DB_BUILD_OPTS+=(-Dquarkus.datasource.db-kind=postgresql)
      DB_ENV+=(QUARKUS_DATASOURCE_JDBC_URL="${PG_URL:-jdbc:postgresql://127.0.0.1:5432/test}?currentSchema=$schema"
        QUARKUS_DATASOURCE_USERNAME="${PG_USER:-postgres}" QUARKUS_FLYWAY_SCHEMAS="$schema"
        QUARKUS_FLYWAY_CLEAN_DISABLED=false QUARKUS_FLYWAY_CLEAN_AT_START=true) ;;
    *) echo "DB must be h2 or postgresql, not '$DB'" >&2; return 1 ;;
  esac
}

# build_for_load_test <module> [maven options...]
# Builds <module>'s jar and the load-tests module (the load generators), and writes load-tests/target/load.classpath;
# sets LOAD_CLASSPATH to the load generator's whole class path.
build_for_load_test() {
  local module=$1
  shift
  ./mvnw -B -q -ntp -pl "$module,load-tests" -am install -DskipTests "$@"
  ./mvnw -B -q -ntp -pl load-tests dependency:build-classpath -Dmdep.outputFile=target/load.classpath \
    -Dmdep.includeScope=runtime >/dev/null
  LOAD_CLASSPATH="load-tests/target/classes:$(cat load-tests/target/load.classpath)"
}

# start_service <module> <port> <data dir> [java options...] -- [VAR=value...]
# Starts <module>'s jar in the background on <port> with the given environment (logging at WARN), waits up to 60 s
# for its readiness, and on exit stops it, keeps its log in <module>/target/load-service.log, removes <data dir> and
# notes when it did so (<module>/target/load-cleanup.epoch, read by wait_after_cleanup).
# The JVM runs with the garbage collector that <module>'s JVM image pins (GC_CONTAINER_OPTIONS in its Dockerfile.jvm,
# which run-java.sh passes on), so the load test measures what is deployed; SERVICE_GC overrides it.
# kill and wait may fail (the service may have gone already); under set -e they would end the trap early.
start_service() {
  local module=$1 port=$2 data=$3
  shift 3
  local gc="${SERVICE_GC:-$(sed -n 's/^ENV GC_CONTAINER_OPTIONS="\(.*\)"$/\1/p' "$module/src/main/docker/Dockerfile.jvm")}"
  local java_opts=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    java_opts+=("$1")
    shift
  done
  [ $# -gt 0 ] && shift
  # shellcheck disable=SC2086 # $gc is empty or one or more options
  env "$@" QUARKUS_HTTP_PORT="$port" QUARKUS_LOG_LEVEL=WARN \
    java $gc ${java_opts[@]+"${java_opts[@]}"} -jar "$module/target/quarkus-app/quarkus-run.jar" > "$data/service.log" 2>&1 &
  SERVICE_PID=$!
  trap "kill $SERVICE_PID 2>/dev/null || true; wait $SERVICE_PID 2>/dev/null || true; \
    cp '$data/service.log' '$module/target/load-service.log' 2>/dev/null || true; rm -rf '$data'; \
    date +%s > '$module/target/load-cleanup.epoch' 2>/dev/null || true" EXIT
  for _ in $(seq 1 60); do
    curl -fs "http://127.0.0.1:$port/q/health/ready" >/dev/null 2>&1 && return 0
    sleep 1
  done
  echo "$module was not ready after 60 s; its log: $module/target/load-service.log" >&2
  return 1
}

# wait_after_cleanup <module> [seconds]
# Waits until <seconds> (default 360, AFTER_CLEANUP_SECONDS) have passed since <module>'s last load test removed its
# data. On ext4 without a journal (this project's build machine), creating a file skips every inode freed in the last
# minute, or in the last six while its inode table block is still unwritten: with the hundreds of thousands of files
# a run of the upload load test removes at its end, each file the next run creates scans a whole inode group first.
# Measured: that took 40-55 % of upload-service's CPU in the next run's first minutes, and none once they had passed.
# Nothing in a deployed service removes files in bulk, so the measurement waits that state out. AFTER_CLEANUP_SECONDS=0
# skips the wait (the figures are then not comparable).
wait_after_cleanup() {
  local module=$1 quiet="${2:-${AFTER_CLEANUP_SECONDS:-360}}" stamp="$1/target/load-cleanup.epoch"
  [ -f "$stamp" ] || return 0
  local left=$(($(cat "$stamp") + quiet - $(date +%s)))
  if [ "$left" -gt 0 ]; then
    echo "waiting ${left} s: the last load test removed its files less than ${quiet} s ago (see wait_after_cleanup)"
    sleep "$left"
  fi
}
