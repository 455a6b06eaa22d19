#!/usr/bin/env bash
# Copy the host's own toolchains that no Debian package matches into the image build context,
# so the Docker backend judges with exactly the versions the native backend uses:
#   rust  - the rustup toolchain (Debian bookworm has 1.63; rustup gives the host 1.9x)
#   node  - the node binary and its global modules (NodeSource's Node 20 and the npm -g libraries:
#           lodash, typescript, jest, esbuild), where Debian has Node 18
#   pylibs - Python packages pip put beside Debian's (pytest-json-report, pytest-metadata)
# Whatever the host lacks is skipped, and the Dockerfile falls back to Debian's package.
#
#   docker/stage-host-toolchains.sh [CONTEXT_DIR]     (default: docker/, writes CONTEXT_DIR/.host)
set -euo pipefail
CTX="${1:-$(cd "$(dirname "$0")" && pwd)}"
OUT="$CTX/.host"
rm -rf "$OUT"; mkdir -p "$OUT"
if command -v rustc >/dev/null 2>&1; then
  SR="$(rustc --print sysroot)"
  if [ -n "$SR" ] && [ "$SR" != /usr ] && [ -x "$SR/bin/rustc" ]; then
    mkdir -p "$OUT/rust/bin" "$OUT/rust/lib/rustlib/x86_64-unknown-linux-gnu"
    cp -a "$SR/bin/rustc" "$OUT/rust/bin/"
    cp -a "$SR"/lib/*.so* "$OUT/rust/lib/"
    cp -a "$SR/lib/rustlib/x86_64-unknown-linux-gnu/lib" "$OUT/rust/lib/rustlib/x86_64-unknown-linux-gnu/"
    # The sanitizer runtimes serve only nightly's -Zsanitizer.
    rm -f "$OUT"/rust/lib/rustlib/x86_64-unknown-linux-gnu/lib/librustc-*_rt.*san.a
    [ -d "$SR/lib/rustlib/x86_64-unknown-linux-gnu/bin" ] && \
      cp -a "$SR/lib/rustlib/x86_64-unknown-linux-gnu/bin" "$OUT/rust/lib/rustlib/x86_64-unknown-linux-gnu/"
    echo "stage: rust $("$SR/bin/rustc" --version)" >&2
  fi
fi
NODE="$(command -v node || true)"
if [ -n "$NODE" ] && [ -d /usr/lib/node_modules ]; then
  mkdir -p "$OUT/node/bin" "$OUT/node/lib"
  cp -a "$(readlink -f "$NODE")" "$OUT/node/bin/node"
  # Every global module but the package managers (npm, corepack): programs never install anything.
  mkdir -p "$OUT/node/lib/node_modules"
  for m in /usr/lib/node_modules/* /usr/lib/node_modules/.bin; do
    case "$(basename "$m")" in npm|corepack) continue ;; esac
    [ -e "$m" ] && cp -a "$m" "$OUT/node/lib/node_modules/"
  done
  echo "stage: node $("$NODE" --version), global modules: $(ls /usr/lib/node_modules | tr '\n' ' ')" >&2
fi
mkdir -p "$OUT/pylibs"
for d in /usr/local/lib/python3*/dist-packages/pytest_jsonreport* /usr/local/lib/python3*/dist-packages/pytest_json_report* \
         /usr/local/lib/python3*/dist-packages/pytest_metadata*; do
  [ -e "$d" ] && cp -a "$d" "$OUT/pylibs/"
done
du -sh "$OUT" >&2
