#!/usr/bin/env bash
# The two commands of tblock. Each sets up what it needs first (only what is missing; scripts/setup.sh).
#   bash run.sh render [render.py all flags]   render every topic (default: preview quality, into media/)
#   bash run.sh test   [pytest flags]          run the test suite (sets up what the tests add: chromium, ...)
set -euo pipefail
cd "$(dirname "$0")"

command="${1:-}"
shift || true
case "$command" in
    render)
        bash scripts/setup.sh render
        exec .venv/bin/python render.py all "$@"
        ;;
    test)
        bash scripts/setup.sh test
        exec .venv/bin/python -m pytest -n 2 --dist loadfile "$@"  # two processes; a file's tests stay in one
        ;;
    *)
        echo "usage: bash run.sh render [flags for 'render.py all'] | bash run.sh test [pytest flags]" >&2
        exit 2
        ;;
esac
