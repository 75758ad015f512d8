"""The registry of topics: their slugs in order, and their scene modules loaded by slug.

A topic lives in ``scenes/<slug>/`` (its ``scene.py`` defines the module-level ``TOPIC``).
``TOPIC_MODULES`` lists the topics in the order render.py shows and renders them. This module stands
below the pipeline (tests/test_house.py): it imports topic modules only, and only when
:func:`load_topics` is called, so importing it costs nothing.

Example::

    from scenes.topics import TOPIC_MODULES, load_topics
    topic = load_topics()["bank"]                 # a scenes.kit.Topic
    print(TOPIC_MODULES[0], topic.Params().changed())
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
