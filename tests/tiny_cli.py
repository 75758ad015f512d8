"""``python tests/tiny_cli.py ARGS``: render.py with only test-only topics (tiny, tiny2, tiny3).

The signal, concurrency and publishing tests run this in a subprocess, as a user runs render.py.
"""

from __future__ import annotations

import _signal
import posix


def _stop_while_starting(signum: int, frame: object) -> None:
    posix.write(2, b"Error: interrupted while starting; nothing was written\n")
    posix._exit(128 + signum)


if __name__ == "__main__":
    _signal.signal(_signal.SIGINT, _stop_while_starting)
    _signal.signal(_signal.SIGTERM, _stop_while_starting)

import os  # noqa: E402
import sys  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

if __name__ == "__main__":
    from scenes.pipeline import signals

    signals.install()  # as render.py does: before the heavy imports
    try:
        import tiny_topic

        from scenes import cli as render
    except signals.Interrupted as stop:
        print(f"Error: interrupted by {stop.name} while starting; nothing was written", file=sys.stderr)
        sys.exit(stop.exit_code)
    render.TOPICS.clear()
    for slug in ("tiny", "tiny2", "tiny3"):
        render.TOPICS[slug] = getattr(tiny_topic, slug.upper())
    sys.exit(render.main(sys.argv[1:]))
