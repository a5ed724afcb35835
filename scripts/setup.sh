#!/usr/bin/env bash
# Installs what the browser and database tests need on a Debian machine, when it is missing:
# Chromium (the web envs drive it through playwright-core) and PostgreSQL's server.
# Says what it did. Elsewhere, install Chromium yourself (`npx playwright install chromium`) or
# set DREAMGYM_CHROMIUM to a Chromium/Chrome executable.
set -euo pipefail

missing=()
if [[ -n "${DREAMGYM_CHROMIUM:-}" ]]; then
  echo "setup: Chromium: using DREAMGYM_CHROMIUM=${DREAMGYM_CHROMIUM}"
elif command -v chromium >/dev/null 2>&1; then
  echo "setup: Chromium: found $(command -v chromium)"
else
  missing+=(chromium)
fi
if compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  echo "setup: PostgreSQL: found $(ls -d /usr/lib/postgresql/*/bin | head -1)"
else
  missing+=(postgresql)
fi

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: nothing to install"
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
