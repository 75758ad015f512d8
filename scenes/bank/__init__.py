"""Topic ``bank``: one token's vector climbs a stack of tied blocks, with the residual switch.

numbers.py: what the video shows (NumPy only); scene.py: the steps and ``TOPIC``."""
