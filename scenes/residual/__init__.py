"""Topic ``residual``: follow one head's mixture into an update and add it to the stream.

numbers.py: what the video shows (NumPy only); scene.py: the steps and ``TOPIC``."""
