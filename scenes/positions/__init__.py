"""Topic ``positions``: why a block needs positions, and where absolute, relative and rotary schemes put them.

numbers.py: what the video shows (NumPy only); scene.py: the steps and ``TOPIC``."""
