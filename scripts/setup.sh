#!/usr/bin/env bash
# Set up what one of tblock's commands needs, installing only what is missing:
#   bash scripts/setup.sh render   system libraries Manim builds against (cairo, pango, pkg-config, a C
#                                  compiler) and the labels' font, then .venv with tblock installed editable,
#                                  with its voice extra (piper-tts, GPL-3.0-or-later) so --voice works;
#   bash scripts/setup.sh test     all of that, plus what only the tests use (chromium, LibreOffice Impress,
#                                  poppler) and the test extra in .venv.
# No TeX: formulas are compiled by the typst wheel that pip installs. Safe to run again: it does nothing
# when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE="${1:-render}"
case "$MODE" in
    render|test) ;;
    *) echo "usage: bash scripts/setup.sh [render|test]" >&2; exit 2 ;;
esac

PYTHON="${PYTHON:-python3}"
VENV=".venv"

RENDER_PACKAGES=(libcairo2-dev libpango1.0-dev pkg-config fonts-dejavu-core fonts-noto-cjk)  # Manim's cairo and
# pango; DejaVu Sans: the labels' font; Noto CJK: the glyphs DejaVu lacks (--lang zh), found by fontconfig's fallback
TEST_PACKAGES=(chromium libreoffice-impress poppler-utils)  # chromium: the browser tests (Playwright drives it;
# nothing downloads a browser); libreoffice-impress and poppler-utils: the lesson tests open the pptx and read PDFs

missing_debian_packages() {
    local pkgs=("${RENDER_PACKAGES[@]}")
    [[ "$MODE" == test ]] && pkgs+=("${TEST_PACKAGES[@]}")
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
        if ! pkg-config --exists cairo pangocairo 2>/dev/null; then
            echo "tblock setup: missing system libraries. Run:" >&2
            echo "  brew install cairo pango pkg-config" >&2
            exit 1
        fi
        return
    fi
    if ! command -v dpkg-query >/dev/null; then
        echo "tblock setup: not a Debian-like system; install cairo, pango and pkg-config yourself." >&2
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
    local stamp="$VENV/.tblock-installed-$MODE" extra="[voice]"
    [[ "$MODE" == test ]] && extra="[test]"  # the test extra holds the voice extra too
    # the test set-up holds the render one's packages too
    for done in "$stamp" "$VENV/.tblock-installed-test"; do
        [[ -f "$done" && "$done" -nt pyproject.toml ]] && return
    done
    [[ -x "$VENV/bin/python" ]] || "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip
    "$VENV/bin/python" -m pip install -q -e ".$extra"
    touch "$stamp"
}

install_system_packages
install_python_env
