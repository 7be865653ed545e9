#!/usr/bin/env bash
# The cost of one operation of a service on PostgreSQL, for docs/capacity.md: runs the service's load-test/run.sh
# in the database the load test makes afresh (PG_DB: hook_load, upload_load or
# management_load, on 127.0.0.1:5432 as user
# postgres) and, every INTERVAL seconds (5) while it runs, samples
#   - the operations done so far, from the service's /q/metrics on its management interface (OPS_PORT; hook:
#     hook_deliveries_delivered_total; upload: upload_uploads_total; management: management_tokens_issued_total; the
#     value before the exemplar,
#     ` # {span_id=...,trace_id=...} 1.0 <time>`, that a counter carries once it was incremented inside a traced request),
#   - the service's process CPU time (/proc/<pid>/stat; its JIT compiler's and garbage collector's threads apart, by
#     thread name), and that of each PostgreSQL process serving PG_DB (its
#     connections and its autovacuum workers, from pg_stat_activity; a process is counted between two samples that both
#     see it),
#   - PG_DB's rows inserted, updated and deleted and its commits (pg_stat_database),
#   - the cluster's WAL position (pg_current_wal_lsn()),
#   - the bytes the service's TCP connections received and sent (ss -ti: bytes_received, bytes_acked), split into
#     its inbound connections (to its HTTP port), PostgreSQL (port 5432) and its other outbound connections.
# It then sums the intervals of the measured part of the run (from WARMUP_SECONDS after the first operation to the
# last busy interval; see "The measured window" below) and prints each cost per operation. WAL is read in that range with pg_walinspect (created in
# PG_DB when missing): the records that touch PG_DB's blocks, plus PG_DB's share of the commit records, so that other
# databases' writes in the same cluster are not counted; the cluster's whole WAL in the range is printed too.
# The load test's own table (rates, latency, the generator's CPU per operation) is in the run's log, printed first.
#
# Usage: load-tests/capacity.sh hook|upload|management   (from the repository root or anywhere)
# Options (environment): everything run.sh takes (WARMUP_SECONDS defaults to 60 here, and BATCH=32 WORKERS=8 for hook,
# SIZES=100000 ROUNDS=2 for upload), INTERVAL (5), PG_DB (<service>_load), OUT (a new directory under /tmp: the run's log
# and the samples), ANALYSE_ONLY (set: no run, only the figures from the samples already in OUT; the WAL is read back
# only while PostgreSQL still has it).
# Linux only (/proc, ss). Rows, WAL and bytes per operation do not depend on other load on the machine; CPU time does
# (a busy machine slows warm code, and a service held to a low rate stays unoptimised longer: see docs/capacity.md).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd -P)"
which="${1:?usage: load-tests/capacity.sh hook|upload|management}"
case "$which" in
  hook) module=hook-service; metric=hook_deliveries_delivered_total; port="${PORT:-18082}" mport="${OPS_PORT:-19082}"
    export BATCH="${BATCH:-32}" WORKERS="${WORKERS:-8}" ;;
  upload) module=upload-service; metric=upload_uploads_total; port="${PORT:-18083}" mport="${OPS_PORT:-19083}"
    export SIZES="${SIZES:-100000}" ROUNDS="${ROUNDS:-2}" ;;
  management) module=management-service; metric=management_tokens_issued_total; port="${PORT:-18081}"
    mport="${OPS_PORT:-19081}"
    window=last ;;
  *) echo "usage: load-tests/capacity.sh hook|upload|management" >&2; exit 2 ;;
esac
export WARMUP_SECONDS="${WARMUP_SECONDS:-60}"
window="${window:-all}"
INTERVAL="${INTERVAL:-5}"
# the database the load test makes afresh (its run.sh: database_for_load_test <module>_load)
PG_DB="${PG_DB:-${module%-service}_load}"
OUT="${OUT:-$(mktemp -d /tmp/capacity-$which.XXXX)}"
mkdir -p "$OUT"
psql_() { psql -h 127.0.0.1 -U postgres -d "$PG_DB" -XAtq -F ' ' "$@"; }

if [ -z "${ANALYSE_ONLY:-}" ]; then
# run.sh makes PG_DB afresh, connected to the server's postgres database (it cannot drop a database it is connected to)
PG_URL="jdbc:postgresql://127.0.0.1:5432/postgres" PORT="$port" OPS_PORT="$mport" "$module/load-test/run.sh" \
  >"$OUT/run.log" 2>&1 &
run=$!
# Should this script end early, the load test ends with it (its run.sh then stops the service).
trap 'kill $run 2>/dev/null || true' EXIT INT TERM

# The service is the java process started from this checkout with its module's jar.
service_pid() {
  local p
  for p in $(pgrep -f -- "-jar $module/target/quarkus-app/quarkus-run.jar" || true); do
    [ "$(readlink "/proc/$p/cwd")" = "$ROOT" ] && echo "$p" && return 0
  done
  return 1
}
ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
# The CPU ticks of a java process's JIT compiler threads and of its garbage collector's threads (by thread name).
jit_gc_ticks() {
  { cat /proc/"$1"/task/*/stat 2>/dev/null || true; } | awk '{
    comm = substr($0, index($0, "(") + 1); comm = substr(comm, 1, match(comm, /\) [A-Z] /) - 1)
    rest = substr($0, match($0, /\) [A-Z] /) + 2); split(rest, f, " "); t = f[12] + f[13]
    if (comm ~ /^C[12] CompilerThre/) jit += t
    else if (comm ~ /^(GC Thread|G1 |VM Thread|VM Periodic)/) gc += t
  } END { printf "%d %d", jit, gc }'
}

# samples: t load1 ops service_ticks xact ins upd del wal_bytes cluster_xact jit_ticks gc_ticks
# pgcpu: t pid ticks (one line per PostgreSQL process serving PG_DB)
# net: t in|db|out local-peer bytes_received bytes_acked (one line per TCP connection of the service)
: >"$OUT/samples"
: >"$OUT/pgcpu"
: >"$OUT/net"
svc=""
while kill -0 $run 2>/dev/null; do
  sleep "$INTERVAL"
  if [ -z "$svc" ]; then
    svc="$(service_pid)" || { svc=""; continue; }
  fi
  [ -d "/proc/$svc" ] || break
  t=$(date +%s.%N)
  load1=$(cut -d' ' -f1 /proc/loadavg)
  ops=$(curl -fs "http://127.0.0.1:$mport/q/metrics" | awk -v m="$metric" '$1 ~ "^" m "({|$)" {sub(/ # .*/, ""); s += $NF} END {printf "%.0f", s}') || ops=""
  [ -n "$ops" ] || continue
  st=$(ticks "$svc")
  jg=$(jit_gc_ticks "$svc")
  db=$(psql_ -c "select xact_commit, tup_inserted, tup_updated, tup_deleted,
      pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0'), (select sum(xact_commit) from pg_stat_database)
      from pg_stat_database where datname = current_database()") || continue
  # A sample that fails (PostgreSQL out of connections, a thread or process gone meanwhile) is skipped, not fatal.
  { psql_ -c "select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()" ||
    true; } | while read -r p; do echo "$t $p $(ticks "$p")"; done >>"$OUT/pgcpu"
  { ss -tinpH state established 2>/dev/null || true; } | awk -v t="$t" -v pid="pid=$svc," -v port=":$port" '
    /^[^ \t]/ { mine = index($0, pid) > 0; local = $3; peer = $4; next }
    mine {
      rx = 0; tx = 0
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^bytes_received:/) { split($i, a, ":"); rx = a[2] }
        if ($i ~ /^bytes_acked:/) { split($i, a, ":"); tx = a[2] }
      }
      class = local ~ port "$" ? "in" : peer ~ /:5432$/ ? "db" : "out"
      print t, class, local "-" peer, rx, tx
      mine = 0
    }' >>"$OUT/net"
  [ -n "$jg" ] && echo "$t $load1 $ops $st $db $jg" >>"$OUT/samples"
done
wait $run || echo "run.sh ended with status $? (see $OUT/run.log)"
fi
cat "$OUT/run.log"

# The measured window: from WARMUP_SECONDS after the first sample with operations to the last one that added more than
# a twentieth of the busiest interval's (so that a few operations at the end, such as upload's 20 files of 10 MiB, or
# the last stragglers of a phase, do not stretch it). For management, whose load test runs the token phase after a
# phase of client enumeration (no tokens, but CPU), only the last unbroken run of busy intervals.
read -r w0 w1 <<<"$(awk -v warm="$WARMUP_SECONDS" -v iv="$INTERVAL" -v run="$window" '
  { t[NR] = $1; ops[NR] = $3 }
  END {
    for (i = 2; i <= NR; i++) if (ops[i] - ops[i - 1] > most) most = ops[i] - ops[i - 1]
    for (i = 2; i <= NR; i++) if (first == "" && ops[i] > ops[1]) first = t[i]
    for (i = 2; i <= NR; i++) if (start == "" && first != "" && t[i] >= first + warm + iv) start = i
    for (i = 2; i <= NR; i++) if (ops[i] - ops[i - 1] > most / 20) last = i
    if (run == "last") {
      for (i = last; i > 2 && ops[i - 1] - ops[i - 2] > most / 20; i--) {}
      if (i - 1 > start) start = i - 1
    }
    print start, last
  }' "$OUT/samples")"
if [ -z "$w0" ] || [ -z "$w1" ] || [ "$w1" -le "$w0" ]; then
  echo "no measured window in $OUT/samples (run too short?)" >&2
  exit 1
fi
read -r t0 lsn0 <<<"$(awk -v n="$w0" 'NR == n { print $1, $9 }' "$OUT/samples")"
read -r t1 lsn1 <<<"$(awk -v n="$w1" 'NR == n { print $1, $9 }' "$OUT/samples")"
pgms=$(awk -v t0="$t0" -v t1="$t1" -v hz="$(getconf CLK_TCK)" '
  $1 + 0 >= t0 - 0.001 && $1 + 0 <= t1 + 0.001 {
    if (($2) in last) sum += $3 - last[$2]
    last[$2] = $3
  }
  END { printf "%.0f", sum * 1000 / hz }' "$OUT/pgcpu")
# Bytes per connection class: each connection's growth since the previous sample (all of it for a connection opened
# since; what a connection closed between two samples carried after the first is not seen).
net=$(awk -v a="$w0" -v b="$w1" 'FNR == NR { times[FNR] = $1; next }
  { line[$1] = line[$1] SUBSEP $0 }
  END {
    for (i = a + 1; i <= b; i++) {
      split(line[times[i - 1]], prev, SUBSEP); delete before
      for (k in prev) if (prev[k] != "") { split(prev[k], f, " "); before[f[3]] = f[4] " " f[5] }
      split(line[times[i]], cur, SUBSEP)
      for (k in cur) if (cur[k] != "") {
        split(cur[k], f, " "); rx0 = 0; tx0 = 0
        if (f[3] in before) { split(before[f[3]], g, " "); rx0 = g[1]; tx0 = g[2] }
        rx[f[2]] += f[4] - rx0; tx[f[2]] += f[5] - tx0
      }
    }
    printf "%.0f %.0f %.0f %.0f %.0f %.0f", rx["in"], tx["in"], rx["db"], tx["db"], rx["out"], tx["out"]
  }' "$OUT/samples" "$OUT/net")
# WAL in the window: records with a block of PG_DB, and PG_DB's share (by commits) of the records without blocks. The
# load test made PG_DB afresh after the extension was created above: create it again.
psql_ -c "create extension if not exists pg_walinspect" >/dev/null || true
wal=$(psql_ -c "with r as (select record_length as len, fpi_length as fpi, block_ref
    from pg_get_wal_records_info(pg_lsn('0/0') + $lsn0::numeric, pg_lsn('0/0') + $lsn1::numeric))
  select coalesce(sum(len) filter (where block_ref like '%/' || (select oid from pg_database where datname = current_database()) || '/%'), 0),
         coalesce(sum(len) filter (where block_ref is null or block_ref = ''), 0),
         coalesce(sum(fpi) filter (where block_ref like '%/' || (select oid from pg_database where datname = current_database()) || '/%'), 0)
  from r") || { echo "pg_walinspect could not read the window's WAL (recycled?): only the cluster's WAL is shown" >&2; wal="-1 -1 -1"; }
awk -v a="$w0" -v b="$w1" -v hz="$(getconf CLK_TCK)" -v pgms="$pgms" -v wal="$wal" -v net="$net" -v which="$which" \
  -v iv="$INTERVAL" '
  NR == a { split($0, s) }
  NR >= a && NR <= b { load += $2; nl++ }
  NR == b {
    split($0, e); split(wal, w, " "); split(net, x, " ")
    n = e[3] - s[3]; secs = e[1] - s[1]
    printf "\n%s on PostgreSQL, measured window %.0f s (samples %d to %d), %d operations, %.0f/s, load average %.1f (mean of the samples)\n", which, secs, a, b, n, n / secs, load / nl
    printf "%-44s %14s %14s\n", "per operation", "", "per second"
    printf "%-44s %14.3f %14.0f\n", "service CPU ms", (e[4] - s[4]) * 1000 / hz / n, (e[4] - s[4]) * 1000 / hz / secs
    printf "%-44s %14.3f %14.0f\n", "  of which its JIT compiler threads", (e[11] - s[11]) * 1000 / hz / n, (e[11] - s[11]) * 1000 / hz / secs
    printf "%-44s %14.3f %14.0f\n", "  and its garbage collector threads", (e[12] - s[12]) * 1000 / hz / n, (e[12] - s[12]) * 1000 / hz / secs
    printf "%-44s %14.3f %14.0f\n", "PostgreSQL CPU ms (this database'"'"'s processes)", pgms / n, pgms / secs
    printf "%-44s %14.2f %14.0f\n", "commits", (e[5] - s[5]) / n, (e[5] - s[5]) / secs
    printf "%-44s %14.2f %14.0f\n", "rows inserted", (e[6] - s[6]) / n, (e[6] - s[6]) / secs
    printf "%-44s %14.2f %14.0f\n", "rows updated", (e[7] - s[7]) / n, (e[7] - s[7]) / secs
    printf "%-44s %14.2f %14.0f\n", "rows deleted", (e[8] - s[8]) / n, (e[8] - s[8]) / secs
    share = (e[10] > s[10]) ? (e[5] - s[5]) / (e[10] - s[10]) : 1
    ours = w[1] + w[2] * share
    if (w[1] >= 0) {
      printf "%-44s %14.0f %14.0f\n", "WAL bytes, this database", ours / n, ours / secs
      printf "%-44s %14.0f %14.0f\n", "  of which records on its blocks", w[1] / n, w[1] / secs
      printf "%-44s %14.0f %14.0f\n", "  and its share of blockless ones (commits)", w[2] * share / n, w[2] * share / secs
      printf "%-44s %14.0f %14.0f\n", "  (full-page images after a checkpoint)", w[3] / n, w[3] / secs
    }
    printf "%-44s %14.0f %14.0f\n", "WAL bytes, the whole cluster", (e[9] - s[9]) / n, (e[9] - s[9]) / secs
    printf "%-44s %14.0f %14.0f\n", "network bytes in, from callers", x[1] / n, x[1] / secs
    printf "%-44s %14.0f %14.0f\n", "network bytes out, to callers", x[2] / n, x[2] / secs
    printf "%-44s %14.0f %14.0f\n", "network bytes in, from PostgreSQL", x[3] / n, x[3] / secs
    printf "%-44s %14.0f %14.0f\n", "network bytes out, to PostgreSQL", x[4] / n, x[4] / secs
    printf "%-44s %14.0f %14.0f\n", "network bytes in, other outbound connections", x[5] / n, x[5] / secs
    printf "%-44s %14.0f %14.0f\n", "network bytes out, other outbound conns.", x[6] / n, x[6] / secs
  }' "$OUT/samples"
echo "samples, PostgreSQL process CPU and the run's log: $OUT"
