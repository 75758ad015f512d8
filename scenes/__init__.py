"""Manim scenes, one module per topic, plus the shared kit (scenes.kit).

``TOPIC_MODULES`` lists the topics in the order render.py shows and renders
them; a listed module that does not exist yet is skipped.
"""

from __future__ import annotations

import importlib
from pathlib import Path

TOPIC_MODULES = ["residual", "heads", "bank", "rope", "block", "ffn"]


def load_topics() -> dict:
    """Import every topic module and return {slug: Topic}, in order."""
    here = Path(__file__).parent
    topics = {}
    for name in TOPIC_MODULES:
        if not (here / f"{name}.py").exists():
            continue
        module = importlib.import_module(f"scenes.{name}")
        topics[module.TOPIC.slug] = module.TOPIC
    return topics
