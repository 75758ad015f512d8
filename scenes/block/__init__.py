"""Topic ``block``: the whole block stage by stage, a worked example token by token.

numbers.py: what the video shows (NumPy only); scene.py: the steps and ``TOPIC``."""
