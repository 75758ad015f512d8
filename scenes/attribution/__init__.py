"""Topic ``attribution``: which component of a trained model wrote its prediction, tested by ablation.

params.py (flags), numbers.py (NumPy only: what the video shows), script.py (captions and speech),
parts.py (the term rows, lens rows, attribution bars and ablation panels), scene.py (the steps and ``TOPIC``)."""
