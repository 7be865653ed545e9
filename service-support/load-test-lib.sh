# Shared by the services' load-test/run.sh scripts (sourced from the repository root, after set -euo pipefail).

# database_for_load_test <name>
# The service's database, PostgreSQL (the platform's one): <name> made empty, never analysed (the planner's statistics
# start stale, as a fast-growing table's do in production), on PG_URL (a JDBC URL of a database to connect to as an
# administrator, default jdbc:postgresql://127.0.0.1:5432/postgres, user PG_USER, default postgres, PG_PASSWORD);
# without PG_URL and with nothing on 127.0.0.1:5432, a private PostgreSQL (local-postgres) started for the run and
# stopped at its end. Sets DB_ENV (the service's datasource settings). Call after build_for_load_test.
database_for_load_test() {
  local name=$1 admin="${PG_URL:-}" user="${PG_USER:-postgres}" password="${PG_PASSWORD:-}"
  local pg_jar=local-postgres/target/local-postgres.jar
  [ -f "$pg_jar" ] || ./mvnw -B -q -ntp -pl local-postgres -am install -DskipTests
  if [ -z "$admin" ]; then
    if (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; then
      admin=jdbc:postgresql://127.0.0.1:5432/postgres
    else
      local pg_dir
      pg_dir="$(mktemp -d)"
      chmod 755 "$pg_dir"
      java -jar "$pg_jar" --data "$pg_dir/data" > "$pg_dir/postgres.log" 2>&1 &
      LOAD_PG_PID=$!
      local port=""
      for _ in $(seq 1 120); do
        port=$(sed -n 's/^PostgreSQL ready on 127.0.0.1:\([0-9]*\) .*/\1/p' "$pg_dir/postgres.log")
        [ -n "$port" ] && break
        sleep 0.5
      done
      [ -n "$port" ] || { cat "$pg_dir/postgres.log" >&2; return 1; }
      echo "no PostgreSQL on 127.0.0.1:5432: a private one on port $port for this run"
      admin="jdbc:postgresql://127.0.0.1:$port/postgres"
    fi
  fi
  java -jar "$pg_jar" --create-databases "$admin" "$user" "$password" --fresh "$name"
  local host
  host=$(printf '%s' "$admin" | sed -E 's#^jdbc:postgresql://([^/?]+).*#\1#')
  DB_ENV=(QUARKUS_DATASOURCE_JDBC_URL="jdbc:postgresql://$host/$name" QUARKUS_DATASOURCE_USERNAME="$user"
    QUARKUS_DATASOURCE_PASSWORD="$password")
  DB_NAME="$name"
  DB_ADMIN_URL="$admin"
}

# build_for_load_test <module> [maven options...]
# Builds <module>'s jar and the load-tests module (the load generators), and writes load-tests/target/load.classpath;
# sets LOAD_CLASSPATH to the load generator's whole class path.
build_for_load_test() {
  local module=$1
  shift
  ./mvnw -B -q -ntp -pl "$module,load-tests,local-postgres" -am install -DskipTests "$@"
  ./mvnw -B -q -ntp -pl load-tests dependency:build-classpath -Dmdep.outputFile=target/load.classpath \
    -Dmdep.includeScope=runtime >/dev/null
  LOAD_CLASSPATH="load-tests/target/classes:$(cat load-tests/target/load.classpath)"
}

# start_service <module> <port> <ops port> <data dir> [java options...] -- [VAR=value...]
# Starts <module>'s jar in the background on <port>, its management interface (health, metrics) on <ops port>, with the
# given environment (logging at WARN), waits up to 60 s for its readiness, and on exit stops it, keeps its log in
# <module>/target/load-service.log, removes <data dir> and notes when it did so (<module>/target/load-cleanup.epoch,
# read by wait_after_cleanup).
# The JVM runs with the garbage collector that <module>'s JVM image pins (GC_CONTAINER_OPTIONS in its Dockerfile.jvm,
# which run-java.sh passes on), so the load test measures what is deployed; SERVICE_GC overrides it.
# kill and wait may fail (the service may have gone already); under set -e they would end the trap early.
start_service() {
  local module=$1 port=$2 ops=$3 data=$4
  shift 4
  local gc="${SERVICE_GC:-$(sed -n 's/^ENV GC_CONTAINER_OPTIONS="\(.*\)"$/\1/p' "$module/src/main/docker/Dockerfile.jvm")}"
  local java_opts=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    java_opts+=("$1")
    shift
  done
  [ $# -gt 0 ] && shift
  # shellcheck disable=SC2086 # $gc is empty or one or more options
  env "$@" QUARKUS_HTTP_PORT="$port" QUARKUS_MANAGEMENT_PORT="$ops" QUARKUS_LOG_LEVEL=WARN \
    java $gc ${java_opts[@]+"${java_opts[@]}"} -jar "$module/target/quarkus-app/quarkus-run.jar" > "$data/service.log" 2>&1 &
  SERVICE_PID=$!
  trap "kill $SERVICE_PID 2>/dev/null || true; wait $SERVICE_PID 2>/dev/null || true; \
    cp '$data/service.log' '$module/target/load-service.log' 2>/dev/null || true; rm -rf '$data'; \
    date +%s > '$module/target/load-cleanup.epoch' 2>/dev/null || true; \
    [ -n '${LOAD_PG_PID:-}' ] && { kill ${LOAD_PG_PID:-0} 2>/dev/null || true; wait ${LOAD_PG_PID:-0} 2>/dev/null || true; }" EXIT
  for _ in $(seq 1 60); do
    curl -fs "http://127.0.0.1:$ops/q/health/ready" >/dev/null 2>&1 && return 0
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
