#!/usr/bin/env bash
# Build the images the Docker backend and compose need, with no registry.
#
#   docker/build-images.sh                 base (debootstrap) + codetest-runtime:latest
#   docker/build-images.sh --api           ... + codetest-api:latest (compose's API service;
#                                          the tag from CODETEST_API_IMAGE)
#   docker/build-images.sh --lb            ... + codetest-lb:latest (HAProxy for the replicas profile)
#   docker/build-images.sh --api-only      only the API image (runtime image already built)
#   BASE_IMAGE=debian:bookworm-slim docker/build-images.sh   use a registry image instead
#
# Every step is bounded in time; a second run reuses the cached root filesystem and
# Docker's layer cache, so it takes seconds.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
DOCKER="$(command -v /usr/bin/docker || command -v docker)"
BASE_IMAGE="${BASE_IMAGE:-}"
RUNTIME_TAG="${CODETEST_DOCKER_IMAGE:-codetest-runtime:latest}"
API_TAG="${CODETEST_API_IMAGE:-codetest-api:latest}"
LB_TAG="${CODETEST_LB_IMAGE:-codetest-lb:latest}"
API=0; LB=0; RUNTIME=1
for a in "$@"; do
  case "$a" in
    --api) API=1 ;;
    --api-only) API=1; RUNTIME=0 ;;
    --lb) LB=1 ;;
    --lb-only) LB=1; RUNTIME=0 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "build-images.sh: unknown argument $a" >&2; exit 2 ;;
  esac
done

if [ -z "$BASE_IMAGE" ]; then
  BASE_IMAGE="codetest-base:bookworm"
  if ! "$DOCKER" image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
    timeout 1500 "$HERE/build-base.sh" --tag "$BASE_IMAGE"
  fi
fi

if [ "$RUNTIME" = 1 ]; then
  # The host's own Rust and Node (and their npm -g libraries) go into the image as they are, so both
  # backends judge with the same versions (Dockerfile.runtime falls back to Debian's without them).
  "$HERE/stage-host-toolchains.sh" "$HERE"
  echo "build-images.sh: $RUNTIME_TAG from $BASE_IMAGE" >&2
  # --network host: the build downloads packages; no bridge network exists on these hosts.
  timeout 1800 "$DOCKER" build --network host -q --build-arg BASE_IMAGE="$BASE_IMAGE" \
    -t "$RUNTIME_TAG" -f "$HERE/Dockerfile.runtime" "$HERE"
fi

if [ "$LB" = 1 ]; then
  echo "build-images.sh: $LB_TAG (HAProxy) from $BASE_IMAGE" >&2
  timeout 900 "$DOCKER" build --network host -q --build-arg BASE_IMAGE="$BASE_IMAGE" \
    -t "$LB_TAG" -f "$HERE/Dockerfile.lb" "$HERE"
fi

if [ "$API" = 1 ]; then
  # A wheelhouse of codetest and its dependencies, made with the host's pip (and its
  # index or mirror), so the image build itself needs no package index. Its own small build
  # context (not docker/, which holds the staged toolchains), and two layers: the dependencies
  # (byte-identical wheels while the versions stay, so Docker reuses that layer) and codetest
  # itself (the only layer a code change rebuilds). SOURCE_DATE_EPOCH makes locally built
  # wheels reproducible, so an unchanged dependency built from an sdist keeps its layer too.
  PY="${PYTHON:-$ROOT/.venv/bin/python}"; [ -x "$PY" ] || PY=python3
  CTX="$(mktemp -d "${TMPDIR:-/tmp}/codetest-api-build.XXXXXX")"
  trap 'rm -rf "$CTX"' EXIT
  mkdir -p "$CTX/deps" "$CTX/app"
  echo "build-images.sh: wheelhouse for codetest (pip wheel)" >&2
  SOURCE_DATE_EPOCH=315532800 timeout 900 "$PY" -m pip wheel -q -w "$CTX/deps" "$ROOT"
  mv "$CTX"/deps/codetest-*.whl "$CTX/app/"
  cp "$HERE/Dockerfile.api" "$CTX/Dockerfile"
  echo "build-images.sh: $API_TAG from $RUNTIME_TAG" >&2
  timeout 1800 "$DOCKER" build --network host -q --build-arg RUNTIME_IMAGE="$RUNTIME_TAG" \
    -t "$API_TAG" "$CTX"
  rm -rf "$CTX"; trap - EXIT
fi
"$DOCKER" image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep '^codetest-' >&2 || true
