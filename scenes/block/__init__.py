"""Topic ``block``: the whole block stage by stage, a worked example token by token.

params.py: the flags; numbers.py: what the video shows (NumPy only) and the pre/post-norm table;
script.py: each step's caption and narration; parts.py: its mobjects; scene.py: the steps and ``TOPIC``."""
