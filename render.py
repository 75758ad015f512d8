#!/usr/bin/env python
"""Render tblock's explainer videos (also installed as the ``tblock`` command).

    python render.py list                        # the topics
    python render.py show bank                   # a topic's parameters
    python render.py bank --depth 6 --no-residual -q high
    python render.py all -q preview --jobs 2

The commands live in scenes/cli/ (docs/reference.md). The stop handlers come first, so SIGINT or
SIGTERM while Python still imports is one line, exit 128 + n, and nothing written.
"""

import _signal  # the C module, already loaded: a stop handler within the first milliseconds
import posix
import sys


def stop_while_starting(signum: int, frame: object) -> None:
    """SIGINT/SIGTERM before the real handlers are set: nothing is written yet; one line, 128 + n."""
    name = {2: "SIGINT", 15: "SIGTERM"}.get(signum, str(signum))
    posix.write(2, f"Error: interrupted by {name} while starting; nothing was written\n".encode())
    posix._exit(128 + signum)


if __name__ == "__main__":
    _signal.signal(_signal.SIGINT, stop_while_starting)
    _signal.signal(_signal.SIGTERM, stop_while_starting)
    from scenes.cli import main  # after the handlers, on purpose

    sys.exit(main())
