"""Every step's settled frame, measured: the numbers drawn too small to read (kit ``small_digits``).

A scene runs with its animations skipped (each play jumps to its end, nothing is encoded), and at
the end of every step the digits of every Text and DecimalNumber on screen are measured.

    >>> step_offenders(HeadsScene)            # doctest: +SKIP
    {'show_circuit': [], 'fan_out': [], ...}
"""

from __future__ import annotations

from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from scenes.kit.layout import MIN_DIGIT_HEIGHT, DrawnDigit, small_digits


def step_offenders(scene_class: type, minimum: float = MIN_DIGIT_HEIGHT,
                   **kwargs: Any) -> dict[str, list[DrawnDigit]]:
    """Each step's name -> the pieces of text on screen at its end whose digits are below ``minimum``."""
    from manim import tempconfig

    found: dict[str, list[DrawnDigit]] = {}

    class Probe(scene_class):
        def end_step(self) -> None:
            found[self.steps[-1]["name"]] = small_digits(self.mobjects, minimum)
            super().end_step()

    with TemporaryDirectory() as tmp, tempconfig({"media_dir": str(Path(tmp) / "m"), "write_to_movie": False,
                                                  "save_last_frame": True, "disable_caching": True,
                                                  "pixel_width": 320, "pixel_height": 180,
                                                  "verbosity": "WARNING"}):
        Probe(**kwargs).render()
    return found
