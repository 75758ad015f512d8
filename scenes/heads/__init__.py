"""Topic ``heads``: several head mixtures, projected into stream coordinates, summed into one update.

numbers.py: what the video shows (NumPy only); scene.py: the steps and ``TOPIC``."""
