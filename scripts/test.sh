#!/usr/bin/env bash
# Run the whole test suite from nothing: set up (toolchains, venv, torch, Docker engine and
# images where this is root), then pytest. The backend-independent suites (attacks, verdicts)
# run against every backend this machine can bring up: native, docker:runc, docker:runsc.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
cd "$HERE"
if [ "$(id -u)" = 0 ] && [ "${CODETEST_SKIP_DOCKER:-0}" != 1 ]; then
  scripts/setup.sh --train --docker
else
  scripts/setup.sh --train
fi
backends="native"
if [ "${CODETEST_SKIP_DOCKER:-0}" != 1 ] && docker info >/dev/null 2>&1; then
  backends="$backends,docker:runc"
  docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q runsc && backends="$backends,docker:runsc"
fi
export CODETEST_TEST_BACKENDS="${CODETEST_TEST_BACKENDS:-$backends}"
echo "test: backends $CODETEST_TEST_BACKENDS" >&2
exec .venv/bin/python -m pytest -q -rs -p no:cacheprovider "$@"
