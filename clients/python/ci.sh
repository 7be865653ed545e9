#!/usr/bin/env bash
# Runs the Python kit's tests in a virtual environment of their own: installs the package (editable) with its test,
# Flask and FastAPI extras, then runs pytest.
#   clients/python/ci.sh                  from anywhere; VENV=dir to choose or reuse the environment
#   clients/python/ci.sh --install-only   only prepare the environment (the journey uses it)
set -euo pipefail
cd "$(dirname "$0")"
VENV="${VENV:-${TMPDIR:-/tmp}/convplatform-python-venv}"
if [ ! -x "$VENV/bin/python" ]; then
  # System site packages: cryptography and pytest come from the machine when it has them.
  python3 -m venv --system-site-packages "$VENV"
fi
# A local package mirror, where the machine has one, instead of an index it cannot reach.
if [ -z "${PIP_INDEX_URL:-}" ] && [ -d /opt/pypi/simple ]; then export PIP_INDEX_URL=file:///opt/pypi/simple; fi
extras='.[test,flask,fastapi]'
if ! "$VENV/bin/pip" install -q --retries 1 --timeout 30 -e "$extras" 2>"$VENV/pip.log"; then
  echo "== the flask/fastapi extras could not be installed (see $VENV/pip.log); their tests will be skipped" >&2
  "$VENV/bin/pip" install -q --retries 1 --timeout 30 -e '.[test]' || "$VENV/bin/pip" install -q --no-deps -e .
fi
[ "${1:-}" = --install-only ] && exit 0
"$VENV/bin/python" -m pytest -q tests
