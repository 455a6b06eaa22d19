#!/usr/bin/env bash
# Build the base image codetest-base:bookworm from Debian with debootstrap + docker import.
#
# Why: no container registry is reachable here (and many user sites are air-gapped), but a
# Debian mirror is. The result is an ordinary minbase Debian root filesystem, the same
# thing debian:bookworm-slim is; users with a registry can skip this script and pass
# --build-arg BASE_IMAGE=debian:bookworm-slim to the Dockerfiles instead.
#
# The root filesystem tarball is cached under $CODETEST_CACHE (default /var/cache/codetest)
# so a second build is a docker import of a local file (seconds, not minutes).
#
# Usage: docker/build-base.sh [--tag TAG] [--mirror URL] [--suite SUITE] [--rebuild]
set -euo pipefail

TAG="codetest-base:bookworm"
SUITE="bookworm"
MIRROR=""
REBUILD=0
CACHE="${CODETEST_CACHE:-/var/cache/codetest}"
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) TAG="$2"; shift 2 ;;
    --mirror) MIRROR="$2"; shift 2 ;;
    --suite) SUITE="$2"; shift 2 ;;
    --rebuild) REBUILD=1; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "build-base.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

# The mirror this host's apt already uses (deb822 .sources or one-line .list), else deb.debian.org.
if [ -z "$MIRROR" ]; then
  MIRROR=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null \
             | awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)
  if [ -z "$MIRROR" ]; then
    MIRROR=$(grep -hsE '^deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
               | awk '{print $2}' | grep -E '/debian/?$' | head -n1 || true)
  fi
  MIRROR="${MIRROR:-http://deb.debian.org/debian}"
fi

command -v debootstrap >/dev/null || { echo "build-base.sh: debootstrap missing (apt-get install debootstrap)" >&2; exit 1; }
command -v docker >/dev/null || { echo "build-base.sh: docker CLI missing" >&2; exit 1; }

mkdir -p "$CACHE"
TARBALL="$CACHE/rootfs-$SUITE-minbase.tar.gz"

if [ "$REBUILD" = 1 ] || [ ! -s "$TARBALL" ]; then
  WORK=$(mktemp -d /tmp/codetest-debootstrap.XXXXXX)
  trap 'rm -rf "$WORK"' EXIT
  echo "build-base.sh: debootstrap $SUITE (minbase) from $MIRROR" >&2
  timeout 1200 debootstrap --variant=minbase "$SUITE" "$WORK/rootfs" "$MIRROR" \
    > "$WORK/debootstrap.log" 2>&1 || { tail -n 30 "$WORK/debootstrap.log" >&2; exit 1; }
  R="$WORK/rootfs"
  # What debian:*-slim does: no docs, man pages or locales beyond C; apt never recommends.
  cat > "$R/etc/dpkg/dpkg.cfg.d/docker-slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
CFG
  printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' > "$R/etc/apt/apt.conf.d/99norecommends"
  printf 'deb %s %s main\ndeb %s %s-updates main\n' "$MIRROR" "$SUITE" "$MIRROR" "$SUITE" > "$R/etc/apt/sources.list"
  SEC="${MIRROR%/debian}/debian-security"
  printf 'deb %s %s-security main\n' "${SEC%/}" "$SUITE" >> "$R/etc/apt/sources.list"
  rm -rf "$R"/var/cache/apt/archives/*.deb "$R"/var/lib/apt/lists/* "$R"/usr/share/doc/* "$R"/usr/share/man/* \
         "$R"/usr/share/locale/* "$R"/var/log/*.log
  : > "$R/etc/resolv.conf"; : > "$R/etc/hostname"
  tar --numeric-owner -C "$R" -czf "$TARBALL.tmp" .
  mv "$TARBALL.tmp" "$TARBALL"
fi

echo "build-base.sh: docker import $TARBALL as $TAG" >&2
docker import --change 'CMD ["/bin/bash"]' --change 'ENV LANG=C.UTF-8' "$TARBALL" "$TAG" >/dev/null
docker image inspect --format '{{.Id}} {{.Size}}' "$TAG"
