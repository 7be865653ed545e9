#!/usr/bin/env bash
# CI for deploy/monitoring: the consistency checks, with promtool's rule checks and rule unit tests when promtool
# can be had (Debian's prometheus package, unpacked, not installed). SCRAPE=1 also runs scrape.sh (needs the built
# jars; one to three minutes).
set -euo pipefail
cd "$(dirname "$0")"
if [ -z "${PROMTOOL:-}" ] && ! command -v promtool > /dev/null; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  if (cd "$work" && apt-get download prometheus > /dev/null 2>&1) && dpkg-deb -x "$work"/prometheus_*.deb "$work/x"; then
    export PROMTOOL="$work/x/usr/bin/promtool"
  else
    echo "promtool could not be downloaded (apt-get download prometheus); its checks are skipped" >&2
  fi
fi
python3 check.py
if [ "${SCRAPE:-0}" = 1 ]; then
  ./scrape.sh
fi
