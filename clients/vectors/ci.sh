#!/bin/sh
# The shared kit vectors' checks on the Java side and in plain openssl, for CI (run from anywhere).
# The root build (./mvnw verify) already runs crypto-common's kits tests (KitVectorsTest, HookReceiverTest,
# JavaKitExamplesTest); this adds the two parts outside the reactor: the JAX-RS receiver filter (built against the
# installed crypto-common) and the openssl + curl examples.
set -eu
cd "$(dirname "$0")/../.."
echo "== kit vectors: crypto-common's kits tests, and crypto-common installed for the filter module"
./mvnw -B -ntp -o -pl crypto-common install -Dtest='KitVectorsTest,HookReceiverTest,JavaKitExamplesTest' \
  -Dsurefire.failIfNoSpecifiedTests=false
echo "== kit vectors: JAX-RS receiver filter (clients/vectors/examples/jaxrs-receiver)"
./mvnw -B -ntp -o -f clients/vectors/examples/jaxrs-receiver/pom.xml verify
echo "== kit vectors: plain openssl + curl examples"
clients/vectors/check-openssl.sh
