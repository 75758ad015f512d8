"""Draw the legend of the visual grammar's roles, both themes side by side, into docs/img/roles.png.

Usage: .venv/bin/python scripts/role_legend.py [OUT.png]

Every swatch's colour comes from ``scenes.kit.roles`` (the one source), each theme's panel from its
background and text colours; tests/test_roles.py reads the swatches back from the image.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scenes.kit.roles import ROLES, role_swatches  # noqa: E402
from scenes.kit.theme import THEMES  # noqa: E402

ROW, SWATCH, PAD, PANEL_W = 44, 30, 24, 430
FONT_PATH = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "docs" / "img" / "roles.png"


def swatch_box(column: int, row: int) -> tuple[int, int, int, int]:
    """The pixel box (left, top, right, bottom) of the swatch in theme ``column``, legend row ``row``."""
    left = column * PANEL_W + PAD
    top = PAD + ROW + row * ROW
    return left, top, left + SWATCH * 2, top + SWATCH


def legend() -> Image.Image:
    """The legend image: one panel per theme (dark, light), a title and one row per role."""
    names = list(THEMES)
    rows = len(role_swatches(ROLES[names[0]]))
    image = Image.new("RGB", (PANEL_W * len(names), PAD * 2 + ROW * (rows + 1)))
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT_PATH, 20)
    for column, name in enumerate(names):
        look = THEMES[name]
        draw.rectangle([column * PANEL_W, 0, (column + 1) * PANEL_W, image.height], fill=look.background)
        draw.text((column * PANEL_W + PAD, PAD), f"{name} theme", fill=look.muted, font=font)
        for row, (meaning, colour) in enumerate(role_swatches(ROLES[name])):
            box = swatch_box(column, row)
            draw.rounded_rectangle(box, radius=5, fill=colour)
            draw.text((box[2] + 16, box[1] + 3), meaning, fill=look.text, font=font)
    return image


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else DEFAULT_OUT
    out.parent.mkdir(parents=True, exist_ok=True)
    legend().save(out)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
