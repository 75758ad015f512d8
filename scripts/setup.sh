#!/usr/bin/env bash
# Set up everything tblock needs, installing only what is missing:
#   1. system libraries (cairo, pango, pkg-config, a C compiler) and a small LaTeX with dvisvgm,
#   2. a virtual environment in .venv with tblock installed editable (plus the test extra).
# Safe to run again: it does nothing when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
VENV=".venv"
STAMP="$VENV/.tblock-installed"

DEBIAN_PACKAGES=(libcairo2-dev libpango1.0-dev pkg-config texlive-latex-base
    texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended dvisvgm fonts-dejavu-core
    chromium libreoffice-impress poppler-utils)  # chromium: the browser tests (Playwright drives it; nothing
# downloads a browser); libreoffice-impress and poppler-utils: the lesson tests open the pptx and read the PDFs

missing_debian_packages() {
    local pkgs=("${DEBIAN_PACKAGES[@]}")
    command -v cc >/dev/null 2>&1 || pkgs+=(gcc)
    "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1 || pkgs+=(python3-venv)
    "$PYTHON" -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
        || pkgs+=(python3-dev)
    for p in "${pkgs[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
    done
}

install_system_packages() {
    if [[ "$(uname)" == "Darwin" ]]; then
        if ! pkg-config --exists cairo pangocairo 2>/dev/null || ! command -v dvisvgm >/dev/null; then
            echo "tblock setup: missing system libraries. Run:" >&2
            echo "  brew install cairo pango pkg-config && brew install --cask mactex-no-gui" >&2
            exit 1
        fi
        return
    fi
    if ! command -v dpkg-query >/dev/null; then
        echo "tblock setup: not a Debian-like system; install cairo, pango, pkg-config, a LaTeX with dvisvgm yourself." >&2
        return
    fi
    local missing
    missing=$(missing_debian_packages | tr '\n' ' ')
    [[ -z "${missing// }" ]] && return
    if [[ "$(id -u)" -ne 0 ]]; then
        echo "tblock setup: missing system packages. Run:" >&2
        echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends $missing" >&2
        exit 1
    fi
    echo "tblock setup: installing $missing"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
}

install_python_env() {
    if [[ -f "$STAMP" && "$STAMP" -nt pyproject.toml ]]; then
        return
    fi
    [[ -x "$VENV/bin/python" ]] || "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip
    "$VENV/bin/python" -m pip install -q -e ".[test]"
    touch "$STAMP"
}

install_system_packages
install_python_env
