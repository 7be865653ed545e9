#!/bin/sh
# The shared kit vectors checked in plain openssl, for CI (run from anywhere). The Java side runs in the root build
# (./mvnw verify): crypto-common's kits tests (KitVectorsTest, HookReceiverTest, JavaKitExamplesTest) and the JAX-RS
# receiver filter in clients/java.
set -eu
cd "$(dirname "$0")/../.."
echo "== kit vectors: plain openssl + curl examples"
clients/vectors/check-openssl.sh
