#!/usr/bin/env bash
# Prepare a machine to build reports and run tests: system libraries, then .venv.
#   scripts/bootstrap.sh          runtime (WeasyPrint's pango, fonts) + .venv with the package
#   scripts/bootstrap.sh test     also the test tools and, for parity tests, LibreOffice + poppler
# System packages are installed with apt-get when running as root (or with sudo); otherwise the
# missing ones are listed with the command to install them.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-run}

runtime_pkgs=(libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core fonts-wqy-microhei python3-venv)
test_pkgs=(libreoffice-calc-nogui poppler-utils)
pkgs=("${runtime_pkgs[@]}")
[ "$mode" = test ] && pkgs+=("${test_pkgs[@]}")

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; else sudo="none"; fi
  if [ "$sudo" = none ]; then
    echo "reportgen: missing system packages: ${missing[*]}" >&2
    echo "  install them with: apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 2
  fi
  echo "reportgen: installing system packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

py=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$py" -m venv .venv
fi
stamp=.venv/.installed-$mode
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  if [ "$mode" = test ]; then
    .venv/bin/python -m pip install -q -e ".[test]"
  else
    .venv/bin/python -m pip install -q -e .
  fi
  touch "$stamp"
fi
