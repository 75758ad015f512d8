"""Topic ``induction``: a trained previous-token head and induction head completing a repeated sequence.

params.py (flags), numbers.py (NumPy only: what the video shows), script.py (captions and speech),
parts.py (the token row, arcs and readouts), scene.py (the steps and ``TOPIC``)."""
