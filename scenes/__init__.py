"""Manim scenes, one package per topic, plus the shared kit (scenes.kit).

A topic lives in ``scenes/<slug>/``: ``numbers.py`` (NumPy only: what the video
shows, asked of the engine), ``scene.py`` (the steps and the module-level
``TOPIC``) and, where the topic needs its own mobjects, ``parts.py``.
``TOPIC_MODULES`` lists the topics in the order render.py shows and renders
them. Importing this package imports nothing heavy: :func:`load_topics` does.
"""

from __future__ import annotations

import importlib

TOPIC_MODULES = ["residual", "heads", "bank", "rope", "positions", "block", "ffn", "induction", "attribution", "ledger"]


def load_topics() -> dict:
    """Import every topic's scene module and return {slug: Topic}, in order.

    A topic that fails to import is an error (raised), never a silent skip.
    """
    topics = {}
    for name in TOPIC_MODULES:
        module = importlib.import_module(f"scenes.{name}.scene")
        topics[module.TOPIC.slug] = module.TOPIC
    return topics
