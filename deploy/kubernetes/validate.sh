#!/usr/bin/env bash
# Builds the base and the production overlay with kustomize (kubectl kustomize) and validates every object against
# the Kubernetes API schemas (npm package kubernetes-models 4.5.1: types, enums and required fields; it does not
# refuse unknown fields). Needs kubectl and Node.js with npm; installs the two npm packages into a temporary directory.
set -euo pipefail
cd "$(dirname "$0")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm install --silent --no-audit --no-fund kubernetes-models@4.5.1 js-yaml@4.1.0 > /dev/null)
for target in base overlays/production; do
  out="$work/$(echo "$target" | tr / -).yaml"
  kubectl kustomize "$target" > "$out"
  echo "== $target"
  KVAL_DIR="$work" node validate.mjs "$out"
done
