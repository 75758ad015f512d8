"""Narration pacing shared by the kit and the render options, importable without Manim."""

from __future__ import annotations

PAUSE = 1.0  # seconds of quiet after each narrated step before the next one starts (render.py --pause)
