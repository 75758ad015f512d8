"""Topic ``bank``: one token's vector climbs a stack of tied blocks, with the residual switch.

params.py: the flags; numbers.py: what the video shows (NumPy only); script.py: each step's caption
and narration; parts.py: the topic's mobjects (panel, running plot, sum, depth maps); scene.py: the
steps and ``TOPIC``."""
