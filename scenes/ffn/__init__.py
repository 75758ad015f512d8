"""Topic ``ffn``: expand, bend, contract, add — the position-wise feed-forward sub-layer.

params.py: the flags; numbers.py: what the video shows (NumPy only); script.py: each step's
caption and narration; parts.py: the topic's mobjects; scene.py: the steps and ``TOPIC``."""
