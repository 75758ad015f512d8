"""The registry of topics: their modules, in the order the CLI lists and renders them.

A topic lives in ``scenes/<slug>/`` (params.py, numbers.py, script.py, parts.py, scene.py with the
module-level ``TOPIC``). This floor sits above the topics and below the pipeline.
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
