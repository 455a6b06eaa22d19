#!/usr/bin/env bash
# Host setup for the Docker backend: Debian's docker.io, runsc (gVisor) and debootstrap,
# a dockerd with no bridge network, runsc registered as a runtime, and the images.
#
#   scripts/docker-host.sh install     apt-get install docker.io runsc debootstrap
#   scripts/docker-host.sh start       write daemon.json, start dockerd, wait for it
#   scripts/docker-host.sh stop        stop the dockerd this script started
#   scripts/docker-host.sh restart     stop, then start (the fault tests use it)
#   scripts/docker-host.sh status      is the engine up, which runtimes
#   scripts/docker-host.sh images      docker/build-images.sh --api (base, runtime and API images)
#   scripts/docker-host.sh all         install, start, images
#
# dockerd runs with --bridge=none --iptables=false: no bridge network and no NAT rules
# are ever created on the host; sandbox containers use --network none. Builds use
# --network host (package downloads), never a bridge.
#
# Where there is a systemd or another dockerd already, `start` uses what is there if it
# answers and only checks that runsc is registered.
set -euo pipefail

DATA_ROOT="${CODETEST_DOCKER_DATA_ROOT:-/var/lib/docker}"
LOG="${CODETEST_DOCKERD_LOG:-/var/log/codetest-dockerd.log}"
PIDFILE="${CODETEST_DOCKERD_PIDFILE:-/var/run/codetest-dockerd.pid}"
DAEMON_JSON="${CODETEST_DOCKER_DAEMON_JSON:-/etc/docker/daemon.json}"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
# Debian installs the engine's CLI as /usr/bin/docker; prefer it over any other on PATH.
DOCKER="$(command -v /usr/bin/docker || command -v docker || true)"

log() { echo "docker-host: $*" >&2; }

install_packages() {
  export DEBIAN_FRONTEND=noninteractive
  local want="docker.io debootstrap"
  # gVisor is packaged as `runsc` in Debian (bookworm and later); skip it where it is not.
  if apt-cache show runsc >/dev/null 2>&1; then want="$want runsc"; else log "no runsc package: gVisor stays off"; fi
  local missing=""
  for p in $want; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
  if [ -n "$missing" ]; then
    log "installing$missing"
    timeout 900 apt-get update -qq || true
    timeout 900 apt-get install -y -qq --no-install-recommends $missing >/dev/null
  fi
  DOCKER="$(command -v /usr/bin/docker || command -v docker)"
}

write_daemon_json() {
  # Register runsc as a runtime, keeping whatever else an existing daemon.json says.
  #   --oci-seccomp: without it gVisor ignores the container's seccomp profile;
  #   --network=none: the sandbox has no network stack at all (with --network none too);
  #   the default ptrace platform works in nested VMs without /dev/kvm (docs/docker.md).
  mkdir -p "$(dirname "$DAEMON_JSON")"
  local runsc; runsc="$(command -v runsc || true)"
  [ -n "$runsc" ] || { [ -f "$DAEMON_JSON" ] || echo '{}' > "$DAEMON_JSON"; return; }
  python3 - "$DAEMON_JSON" "$runsc" <<'PY'
import json, os, sys
path, runsc = sys.argv[1], sys.argv[2]
cfg = json.load(open(path)) if os.path.exists(path) and os.path.getsize(path) else {}
cfg.setdefault("runtimes", {}).setdefault(
    "runsc", {"path": runsc, "runtimeArgs": ["--network=none", "--oci-seccomp"]})
with open(path + ".tmp", "w") as f:
    json.dump(cfg, f, indent=2)
os.replace(path + ".tmp", path)
PY
}

engine_up() { "$DOCKER" version --format '{{.Server.Version}}' >/dev/null 2>&1; }

start_daemon() {
  [ -n "$DOCKER" ] || { log "docker CLI missing: run '$0 install'"; exit 1; }
  if engine_up; then
    log "engine already running ($("$DOCKER" version --format '{{.Server.Version}}'))"
    return
  fi
  write_daemon_json
  mkdir -p "$DATA_ROOT" "$(dirname "$LOG")"
  log "starting dockerd (data root $DATA_ROOT, log $LOG)"
  # setsid: the daemon outlives this shell and the CI step that ran it.
  setsid nohup dockerd --bridge=none --iptables=false --ip-masq=false --ip-forward=false \
      --data-root="$DATA_ROOT" --config-file="$DAEMON_JSON" \
      --pidfile="$PIDFILE" >>"$LOG" 2>&1 </dev/null &
  for _ in $(seq 1 120); do
    engine_up && { log "engine up"; return; }
    sleep 0.5
  done
  log "dockerd did not answer within 60 s; last lines of $LOG:"; tail -n 20 "$LOG" >&2
  exit 1
}

stop_daemon() {
  if [ ! -s "$PIDFILE" ]; then log "no $PIDFILE: not started by this script"; return 0; fi
  local pid; pid="$(cat "$PIDFILE")"
  if kill -0 "$pid" 2>/dev/null; then
    log "stopping dockerd $pid"
    kill -TERM "$pid"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then log "dockerd $pid still up after 30 s: SIGKILL"; kill -KILL "$pid" || true; fi
  fi
  rm -f "$PIDFILE"
}

status() {
  if engine_up; then
    "$DOCKER" info --format 'engine {{.ServerVersion}}; runtimes: {{range $k, $v := .Runtimes}}{{$k}} {{end}}; default {{.DefaultRuntime}}; cgroup v{{.CgroupVersion}}'
  else
    echo "engine not reachable"; return 1
  fi
}

case "${1:-all}" in
  install) install_packages ;;
  start) start_daemon ;;
  stop) stop_daemon ;;
  restart) stop_daemon; start_daemon ;;
  status) status ;;
  # --api: codetest-api:latest (compose's API service, deploy/k8s's image) FROM the runtime image;
  # a rebuild after a code change redoes only its codetest layer (seconds).
  images) "$HERE/docker/build-images.sh" --api ;;
  all) install_packages; start_daemon; "$HERE/docker/build-images.sh" --api ;;
  *) sed -n '2,12p' "$0"; exit 2 ;;
esac
