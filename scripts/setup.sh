#!/usr/bin/env bash
# Set up codetest on a fresh Debian/Ubuntu machine: toolchains, a virtualenv, the package.
#
#   scripts/setup.sh             toolchains + .venv with codetest and its test tools
#   scripts/setup.sh --train     also torch (CPU build) + transformers for the GRPO trainer
#   scripts/setup.sh --docker    also the Docker engine, gVisor and the sandbox images
#
# Idempotent: what is already there is kept. apt-get runs only as root and only for what is missing.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
cd "$HERE"
TRAIN=0; DOCKER=0
for a in "$@"; do
  case "$a" in
    --train) TRAIN=1 ;;
    --docker) DOCKER=1 ;;
    --all) TRAIN=1; DOCKER=1 ;;
    *) echo "setup.sh: unknown option $a" >&2; exit 2 ;;
  esac
done
log() { echo "setup: $*" >&2; }

# Toolchains the sandbox runs (each missing one is reported by `codetest languages`, never fatal).
# docker/Dockerfile.runtime installs the same list, so both backends judge with the same versions.
declare -A NEED=([gcc]=gcc [g++]=g++ [javac]=default-jdk-headless [node]=nodejs [python3]=python3
                 [rustc]=rustc)
# verl's SUPPORTED_LANGUAGES that Debian packages (docs/api.md, "Languages").
TOOLCHAIN_PACKAGES="golang-go ruby php-cli lua5.4 r-base-core racket iverilog mono-mcs mono-runtime
  libmono-system-core4.0-cil scala kotlin ldc sqlite3"
# Libraries LLM-written code imports, as SandboxFusion's images have them (docs/api.md, "Libraries").
LIBRARY_PACKAGES="golang-github-stretchr-testify-dev junit5 libjavatuples-java libtest-deep-perl
  python3-numpy python3-pandas python3-scipy python3-sortedcontainers python3-requests
  python3-pytest python3-pytest-cov libdata-compare-perl lua-unit"
# npm -g (Node's global modules, NODE_PATH in the jail) and pip (the system Python the jail runs).
NPM_PACKAGES="lodash@4.17.21 typescript@5.6.3 jest@29.7.0 esbuild@0.23.1"
PIP_PACKAGES="pytest-json-report==1.5.0 pytest-metadata==3.0.0"
missing=""
for bin in "${!NEED[@]}"; do command -v "$bin" >/dev/null 2>&1 || missing="$missing ${NEED[$bin]}"; done
for p in $TOOLCHAIN_PACKAGES $LIBRARY_PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
# libseccomp (the syscall filter) and the venv module of the system Python.
dpkg -s libseccomp2 >/dev/null 2>&1 || missing="$missing libseccomp2"
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing="$missing python3-venv"
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    timeout 900 apt-get update -qq
    timeout 1800 apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 $missing >/dev/null \
      || log "apt-get install failed or timed out; the languages it did not install stay unavailable"
  else
    log "missing:$missing (install them, or those languages stay unavailable)"
  fi
fi
if [ "$(id -u)" = 0 ] && [ "${CODETEST_SETUP_UPGRADE:-1}" = 1 ] && command -v apt-get >/dev/null; then
  # The runtime image installs these from the same mirror at build time; bringing the host's
  # copies to the mirror's current version keeps native and Docker on the same toolchain versions.
  # (CODETEST_SETUP_UPGRADE=0 skips it.)
  [ -z "$missing" ] && { timeout 900 apt-get update -qq -o DPkg::Lock::Timeout=600 || true; }
  upgradable=$(apt list --upgradable 2>/dev/null | cut -d/ -f1 | grep -xE "$(echo $TOOLCHAIN_PACKAGES $LIBRARY_PACKAGES \
    gcc-12 g++-12 openjdk-17-jdk-headless openjdk-17-jre-headless python3.11 | tr ' ' '|')" || true)
  if [ -n "$upgradable" ]; then
    log "upgrading to the mirror's versions (as the image has them): $(echo $upgradable)"
    DEBIAN_FRONTEND=noninteractive timeout 1200 apt-get install -y -qq --only-upgrade -o DPkg::Lock::Timeout=600 \
      $upgradable >/dev/null || log "apt-get upgrade of the toolchains failed; /healthz shows host and image versions"
  fi
fi
if [ "$(id -u)" = 0 ]; then
  if command -v npm >/dev/null 2>&1; then
    need_npm=""
    for p in $NPM_PACKAGES; do
      name="${p%@*}"; want="${p##*@}"
      have=$(node -p "try{require('/usr/lib/node_modules/$name/package.json').version}catch(e){''}" 2>/dev/null || true)
      [ "$have" = "$want" ] || need_npm="$need_npm $p"
    done
    if [ -n "$need_npm" ]; then
      log "npm -g$need_npm"
      timeout 900 npm install -g --no-audit --no-fund $need_npm >/dev/null 2>&1 || log "npm install failed: jest/typescript stay unavailable"
    fi
  fi
  /usr/bin/python3 -c 'import pytest_jsonreport, pytest_metadata' 2>/dev/null \
    || timeout 600 /usr/bin/python3 -m pip install -q --break-system-packages --no-deps $PIP_PACKAGES \
    || log "pip install of $PIP_PACKAGES failed (pytest --json-report stays unavailable)"
  # go test in a fresh jail would rebuild testify every time: leave a build cache to copy from.
  SEED=/usr/local/lib/codetest/gocache
  if command -v go >/dev/null 2>&1 && [ -d /usr/share/gocode/src/github.com/stretchr/testify ] && [ ! -d "$SEED" ]; then
    T=$(mktemp -d); printf 'package main\nimport ("testing"\n"github.com/stretchr/testify/assert")\nfunc TestX(t *testing.T){assert.Equal(t, 2, 1+1)}\n' > "$T/main_test.go"
    (cd "$T" && GOCACHE="$SEED" GOPATH="$T/go:/usr/share/gocode" GO111MODULE=off CGO_ENABLED=0 \
       timeout 300 go test -vet=off -count=1 main_test.go >/dev/null) || log "go test seed cache failed"
    chmod -R a+rX /usr/local/lib/codetest 2>/dev/null || true; rm -rf "$T"
  fi
fi

PY="${PYTHON:-python3}"
if ! .venv/bin/python -m pip --version >/dev/null 2>&1; then  # absent, or left half-made
  log "creating .venv"
  rm -rf .venv; "$PY" -m venv .venv
  .venv/bin/python -m pip install -q -U pip
fi
if [ "$TRAIN" = 1 ]; then
  # torch first and pinned: a plain `torch` would pull several GB of CUDA wheels.
  .venv/bin/python -c 'import torch' 2>/dev/null || .venv/bin/python -m pip install -q "torch==2.13.0"
  .venv/bin/python -m pip install -q -e '.[test,train]'
else
  .venv/bin/python -m pip install -q -e '.[test]'
fi
if [ "$TRAIN" = 1 ]; then
  # The trainers' own reward clients, run against the service by tests/test_clients_real.py,
  # tests/test_trainer_trl.py and bench/trainer_load.py. TRL with its dependencies (datasets,
  # accelerate; torch is already the CPU build above, so nothing pulls CUDA). verl and OpenRLHF
  # without theirs (--no-deps: vllm, deepspeed, flash-attn, ray are GPU training stacks), plus the
  # few modules their reward request code imports.
  .venv/bin/python -m pip install -q "trl==1.16.0" "requests>=2.31" "aiohttp>=3.9" "pylatexenc>=2.10"
  .venv/bin/python -m pip install -q --no-deps "verl==0.9.1" "openrlhf==0.11.2"
fi
if [ "$DOCKER" = 1 ]; then
  if [ "$(id -u)" = 0 ]; then
    scripts/docker-host.sh all
  else
    log "--docker needs root (it installs and starts dockerd)"
  fi
fi
# --- scale-out (issue 13, docs/scale.md): Ray, the Kubernetes schemas, Debian's docker-compose ---
# The tests of `--ray`, deploy/k8s and the compose replicas profile need these; none of them
# is imported by codetest itself unless asked for (`pip install codetest[ray]`).
.venv/bin/python -m pip install -q -e '.[scale-test]'
if [ "$DOCKER" = 1 ] && [ "$(id -u)" = 0 ] && ! command -v docker-compose >/dev/null 2>&1 \
   && command -v apt-get >/dev/null; then
  log "installing docker-compose (Debian)"
  DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq --no-install-recommends docker-compose >/dev/null \
    || { timeout 900 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 900 \
         apt-get install -y -qq --no-install-recommends docker-compose >/dev/null; }
fi
# --- end scale-out ---
log "done: .venv/bin/codetest languages"
