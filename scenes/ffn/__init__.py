"""Topic ``ffn``: expand, bend, contract, add — the position-wise feed-forward sub-layer.

numbers.py: what the video shows (NumPy only); scene.py: the steps and ``TOPIC``."""
