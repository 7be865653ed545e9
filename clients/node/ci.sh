#!/usr/bin/env bash
# The Node kit's checks, as CI runs them: unit tests, shared vectors and the examples (node --test), then the type
# declarations against an example (tsc). Needs Node 20 or later and npm; the dev dependencies (express for the
# middleware test, typescript for the type check) come from the lock file.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
node --test test/*.test.js
npx --no-install tsc -p test/types
echo "clients/node: tests and type check passed"
