#!/usr/bin/env bash
# Installs what the browser, database and Python tests need on a Debian machine, when it is missing:
# Chromium and its headless shell (the web envs drive it through playwright-core), PostgreSQL's server, HAProxy (the
# many-instance topology test), and a Python venv
# (.venv/, from python/requirements-test.txt) for the OpenEnv-protocol server and the client package.
# Says what it did. Elsewhere, install Chromium yourself (`npx playwright install chromium`) or
# set DREAMGYM_CHROMIUM to a Chromium/Chrome executable.
set -euo pipefail

missing=()
if [[ -n "${DREAMGYM_CHROMIUM:-}" ]]; then
  echo "setup: Chromium: using DREAMGYM_CHROMIUM=${DREAMGYM_CHROMIUM}"
else
  if command -v chromium >/dev/null 2>&1; then
    echo "setup: Chromium: found $(command -v chromium)"
  else
    missing+=(chromium)
  fi
  # The headless shell is what headless runs drive (2.4x the full browser's throughput here).
  if [[ -x /usr/lib/chromium/chromium-headless-shell ]] || command -v chromium-headless-shell >/dev/null 2>&1; then
    echo "setup: Chromium headless shell: found"
  else
    missing+=(chromium-headless-shell)
  fi
fi
if compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  echo "setup: PostgreSQL: found $(ls -d /usr/lib/postgresql/*/bin | head -1)"
else
  missing+=(postgresql)
fi
if command -v haproxy >/dev/null 2>&1 || [[ -x /usr/sbin/haproxy ]]; then
  echo "setup: HAProxy: found $(command -v haproxy || echo /usr/sbin/haproxy)"
else
  missing+=(haproxy)
fi

setup_venv() {
  local venv=.venv req=python/requirements-test.txt stamp
  stamp="$( (cat "$req"; cat python/pyproject.toml 2>/dev/null || true) | sha256sum | cut -d' ' -f1)"
  if [[ -x "$venv/bin/python" ]] && [[ "$(cat "$venv/.installed" 2>/dev/null)" == "$stamp" ]]; then
    echo "setup: Python venv: up to date ($venv)"
    return
  fi
  if ! command -v python3 >/dev/null 2>&1; then
    echo "setup: python3 is missing; install it (apt-get install -y python3 python3-venv) and run npm run setup again." >&2
    exit 1
  fi
  echo "setup: Python venv: installing $req into $venv…"
  python3 -m venv "$venv"
  # Where pypi.org does not resolve (a machine with a local package index only), pip's retries of
  # it cost minutes a package: skip them.
  local pip=("$venv/bin/pip" install --quiet --disable-pip-version-check)
  getent hosts pypi.org >/dev/null 2>&1 || pip+=(--retries 0)
  "${pip[@]}" -r "$req"
  if [[ -f python/pyproject.toml ]]; then
    "${pip[@]}" -e python
  fi
  echo "$stamp" > "$venv/.installed"
  echo "setup: Python venv: ready ($venv/bin/python)"
}
cd "$(dirname "$0")/.."

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: system packages: nothing to install"
  setup_venv
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: missing ${missing[*]} and this is not a Debian-like system (no apt-get)." >&2
  echo "setup: install Chromium with 'npx playwright install chromium' (or set DREAMGYM_CHROMIUM), and PostgreSQL from your system's packages." >&2
  exit 1
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
    echo "setup: missing ${missing[*]}; run as root: apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi
echo "setup: installing ${missing[*]} from Debian's packages (apt-get)…"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: installed ${missing[*]}"
setup_venv
