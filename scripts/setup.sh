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
declare -A NEED=([gcc]=gcc [g++]=g++ [javac]=default-jdk-headless [node]=nodejs [python3]=python3
                 [rustc]=rustc)
missing=""
for bin in "${!NEED[@]}"; do command -v "$bin" >/dev/null 2>&1 || missing="$missing ${NEED[$bin]}"; done
# libseccomp (the syscall filter) and the venv module of the system Python.
dpkg -s libseccomp2 >/dev/null 2>&1 || missing="$missing libseccomp2"
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing="$missing python3-venv"
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    timeout 900 apt-get update -qq
    timeout 1800 apt-get install -y -qq --no-install-recommends $missing >/dev/null
  else
    log "missing:$missing (install them, or those languages stay unavailable)"
  fi
fi

PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  log "creating .venv"
  "$PY" -m venv .venv
  .venv/bin/python -m pip install -q -U pip
fi
if [ "$TRAIN" = 1 ]; then
  # torch first and pinned: a plain `torch` would pull several GB of CUDA wheels.
  .venv/bin/python -c 'import torch' 2>/dev/null || .venv/bin/python -m pip install -q "torch==2.13.0"
  .venv/bin/python -m pip install -q -e '.[test,train]'
else
  .venv/bin/python -m pip install -q -e '.[test]'
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
