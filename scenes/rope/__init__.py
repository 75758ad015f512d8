"""Topic ``rope``: positions as rotations of queries and keys.

numbers.py: what the video shows (NumPy only); scene.py: the steps and ``TOPIC``."""
