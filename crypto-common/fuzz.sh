#!/usr/bin/env bash
# Fuzzes the targets of ParserFuzzTest (the parsers that read attacker bytes) with Jazzer, one after the other.
# Options (environment):
#   SECONDS_PER_TARGET  how long to fuzz each target (default 600; .ci/run uses a few seconds)
#   TARGETS             which targets, space-separated (default: all of them)
# New inputs that reach new code go to crypto-common/target/fuzz-corpus/<target>/ (kept between runs of the same
# checkout). A crash stops that target, is written to
# src/test/resources/com/convplatform/crypto/fuzz/ParserFuzzTestInputs/<target>/crash-<sha1>, which makes it a
# regression test of the plain build, and makes this script exit non-zero once every target has run.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${SECONDS_PER_TARGET:-600}"
TARGETS="${TARGETS:-certificateUrls pem derCertificates signatures jsonFields timestamps hookVerifier}"
INPUTS=crypto-common/src/test/resources/com/convplatform/crypto/fuzz/ParserFuzzTestInputs

./mvnw -B -q -ntp -pl crypto-common test-compile dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile=target/fuzz.classpath >/dev/null
classpath="crypto-common/target/test-classes:crypto-common/target/classes:$(cat crypto-common/target/fuzz.classpath)"

failed=()
for target in $TARGETS; do
  corpus="crypto-common/target/fuzz-corpus/$target"
  mkdir -p "$corpus"
  echo "== fuzzing $target for ${SECONDS_PER_TARGET} s"
  log="crypto-common/target/fuzz-$target.log"
  if java -Xmx1g -cp "$classpath" com.code_intelligence.jazzer.Jazzer \
      --target_class=com.convplatform.crypto.fuzz.ParserFuzzTest --target_method="$target" \
      '--instrumentation_includes=com.convplatform.crypto.**' \
      -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -artifact_prefix="$INPUTS/$target/" \
      "$corpus" "$INPUTS/$target" >"$log" 2>&1; then
    grep -E "^Done [0-9]+ runs" "$log" || true
  else
    echo "FINDING in $target (its log: $log):"
    grep -v "^INFO: Instrumented" "$log" | grep -E -A25 "== Java Exception|ERROR|Uncaught|deadly signal|timeout" | head -40
    failed+=("$target")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing found something in: ${failed[*]}; the inputs are under $INPUTS/<target>/ (crash-*, timeout-*)"
  exit 1
fi
echo "fuzzing: nothing found in ${TARGETS// /, } (${SECONDS_PER_TARGET} s each)"
