#!/usr/bin/env bash
# Runs the crypto benchmark (not a test): bare provider operations vs. our code, ops/s and ratios.
# Usage: crypto-common/bench.sh   (from the repository root or from crypto-common/)
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -B -q -ntp -pl crypto-common test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test
cp="crypto-common/target/test-classes:crypto-common/target/classes:$(cat crypto-common/target/bench.classpath)"
exec java ${BENCH_JAVA_OPTS:-} -cp "$cp" com.convplatform.crypto.bench.CryptoBenchmark "$@"
