#!/usr/bin/env bash
# Installs the Debian packages SleepLedger needs to build, test and run, when missing.
# Usage: deploy/install-deps.sh [extra-package ...]
# Needs root (or sudo) only when something is missing. The Swift toolchain itself is
# expected on PATH (swift.org's Debian build).
set -euo pipefail

packages=(
  libpq-dev postgresql        # PostgreSQL client library and server (embedded default, tests)
  postgresql-15-auto-failover # pg_auto_failover's extension (deploy/ha/, deploy/ha-test.sh)
  pg-auto-failover-cli        # its pg_autoctl: a monitor, a primary and a secondary with failover
  libarchive-dev              # zip reading (importer)
  libssl-dev                  # SHA-256 and secure random (libcrypto)
  libmicrohttpd-dev           # the upload server's HTTP
  libargon2-dev               # Argon2id password hashes (sign-in)
  curl                        # the server tests' HTTP client
  python3-jsonschema          # the server tests check responses against docs/openapi.json
  openssl                     # throwaway TLS certificates in the server tests
  python3-prometheus-client   # an independent parser of the server's /metrics in the tests
  caddy                       # the reverse proxy of deploy/caddy (validated and run by the tests)
  libicu-dev                  # Unicode normalization and case folding of user handles (ICU)
  libarchive-tools zip unzip  # bsdtar and zip for test fixtures and benchmarks
  chromium chromium-driver    # the browser tests' headless Chromium and its WebDriver
  python3-selenium            # drives it from Tests/Browser/*.py (run with /usr/bin/python3)
  pgbackrest                  # backups and point-in-time recovery (sleepledger db backup, deploy/backup-drill.sh, deploy/ha-test.sh)
  prometheus                  # only for promtool: `promtool check rules` on deploy/prometheus (the tests)
  "$@"
)

missing=()
for package in "${packages[@]}"; do
  [ -n "$package" ] || continue
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  echo "install-deps: the Swift toolchain (swift) is not on PATH; install it from swift.org" >&2
  exit 69
fi

# PostgreSQL's server binaries live outside PATH on Debian; the tools find them there.
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
  echo "install-deps: initdb not found after installing postgresql" >&2
  exit 69
fi
