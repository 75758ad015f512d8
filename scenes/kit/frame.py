"""The frame and its safe area: Manim's 8-unit-high 16:9 picture, the margins, the caption band.

Manim's frame is 8 units high and 16:9 wide (about 14.22 units) at every quality, so these are
plain numbers. Content stays inside the *safe area*: a margin in from the left, right and top edges,
and above the caption band at the bottom (``CAPTION_TOP``). Topic code names these values instead of
writing ``6.85``.
"""

from __future__ import annotations

FRAME_HEIGHT = 8.0
FRAME_WIDTH = FRAME_HEIGHT * 16 / 9  # 14.22
FRAME_LEFT, FRAME_RIGHT = -FRAME_WIDTH / 2, FRAME_WIDTH / 2
FRAME_BOTTOM, FRAME_TOP = -FRAME_HEIGHT / 2, FRAME_HEIGHT / 2

MARGIN = 0.26  # in from the left, right and top edges
CAPTION_TOP = -3.25  # the caption band below this line is kept free for burned captions
SAFE_LEFT, SAFE_RIGHT = FRAME_LEFT + MARGIN, FRAME_RIGHT - MARGIN  # -6.85, 6.85
SAFE_TOP, SAFE_BOTTOM = FRAME_TOP - 0.15, CAPTION_TOP  # 3.85, -3.25
SAFE_WIDTH = SAFE_RIGHT - SAFE_LEFT
