"""Topic ``ledger``: sizing a model in your head — a block's six matrices to scale, 12d², the stack,
the exact total, compute against length, and two variants.

params.py: the flags; numbers.py: what the video shows (NumPy only); script.py: each step's
caption and narration; parts.py: the topic's mobjects; scene.py: the steps and ``TOPIC``."""
