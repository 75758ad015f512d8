"""The visual grammar's roles: one source of colour, far apart, readable, and nothing else in topic code.

Topic code (scenes/<topic>/*.py) names no colour itself: no hex string, no colour-named string or
tuple given to a colour argument, no Manim colour constant (BLUE, GREEN_C, ...). Every role colour
keeps a minimum CIELAB distance from every other role in its theme and a 3:1 contrast against the
background; the legend image in docs/img is drawn from the roles.
"""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import numpy as np
import pytest
from manim.utils.color import manim_colors

from scenes.kit.roles import ROLES, SINGLE_ROLES, role_swatches
from scenes.kit.theme import THEMES
from scenes.topics import TOPIC_MODULES

ROOT = Path(__file__).resolve().parents[1]
MIN_DISTANCE = 20.0  # CIE76 ΔE between any two roles (heads included) of one theme
MIN_CONTRAST = 3.0  # WCAG contrast of a role against its theme's background
HEX = re.compile(r"#[0-9A-Fa-f]{3}(?:[0-9A-Fa-f]{3})?(?:[0-9A-Fa-f]{2})?\b")
MANIM_COLOURS = {name for name in dir(manim_colors) if name.isupper()}
COLOUR_WORDS = {"red", "green", "blue", "yellow", "orange", "purple", "white", "black", "gray", "grey", "pink", "teal"}


def topic_files() -> list[Path]:
    """Every module of every topic package."""
    files = [p for name in TOPIC_MODULES for p in sorted((ROOT / "scenes" / name).glob("*.py"))]
    assert files, "no topic modules found"
    return files


def colour_literals(source: str) -> list[str]:
    """The colour literals and Manim colour constants in one module's source, as 'line: what'."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and HEX.fullmatch(node.value.strip()):
            found.append(f"{node.lineno}: hex {node.value!r}")
        elif isinstance(node, ast.Name) and node.id in MANIM_COLOURS:
            found.append(f"{node.lineno}: Manim constant {node.id}")
        elif isinstance(node, ast.alias) and node.name in MANIM_COLOURS:
            found.append(f"{node.lineno}: imports Manim constant {node.name}")
        elif isinstance(node, ast.Attribute) and node.attr in MANIM_COLOURS:
            found.append(f"{node.lineno}: Manim constant .{node.attr}")
        elif isinstance(node, ast.keyword) and node.arg and "colo" in node.arg:
            found += [f"{node.lineno}: {what}" for what in literal_colour(node.value)]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in {
                "ManimColor", "rgb_to_color", "rgb_to_hex", "color_to_rgb"}:
            found.append(f"{node.lineno}: colour made in place ({ast.unparse(node)[:40]})")
    return found


def literal_colour(value: ast.expr) -> list[str]:
    """A colour argument's value if it is a literal colour: a colour word or a tuple/list of numbers."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value.lower() in COLOUR_WORDS:
        return [f"colour word {value.value!r}"]
    if isinstance(value, ast.Tuple | ast.List) and value.elts and all(
            isinstance(e, ast.Constant) and isinstance(e.value, int | float) for e in value.elts):
        return [f"rgb literal {ast.unparse(value)}"]
    return []


def test_the_scanner_finds_every_kind_of_literal():
    source = ('from manim import BLUE\nx = "#59A14F"\nf(color=GREEN_C)\ng(fill_color=(1, 0.5, 0))\n'
              'h(stroke_color="red")\nk = manim.YELLOW\nm = ManimColor("#fff")\n'
              'ok = f(color=roles().attn, at=(1, 2, 3))\n')
    found = colour_literals(source)
    assert sorted(int(f.split(":")[0]) for f in found) == [1, 2, 3, 4, 5, 6, 7, 7], found


@pytest.mark.parametrize("path", topic_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_topic_code_names_no_colour(path):
    found = colour_literals(path.read_text(encoding="utf-8"))
    assert not found, f"{path.relative_to(ROOT)} names colours itself (take them from roles()): {found}"


def test_only_the_kit_s_roles_and_theme_hold_colour_values():
    """Colour values live in scenes/kit/roles.py (roles) and scenes/kit/theme.py (neutrals), nowhere else."""
    homes = {ROOT / "scenes" / "kit" / "roles.py", ROOT / "scenes" / "kit" / "theme.py"}
    found = {str(p.relative_to(ROOT)): hits for p in sorted((ROOT / "scenes").rglob("*.py")) if p not in homes
             for hits in [[h for h in colour_literals(p.read_text(encoding="utf-8")) if "hex" in h]] if hits}
    assert not found, f"colour values outside the kit's roles and theme: {found}"


def lab(hex_colour: str) -> np.ndarray:
    """CIELAB (D65) of an sRGB hex colour."""
    rgb = np.array([int(hex_colour.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)])
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ linear
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two hex colours."""
    def luminance(c: str) -> float:
        rgb = np.array([int(c.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4)])
        linear = np.where(rgb <= 0.03928, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
        return float(linear @ [0.2126, 0.7152, 0.0722])
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def named_colours(theme_name: str) -> dict[str, str]:
    roles = ROLES[theme_name]
    named = {name: getattr(roles, name) for name in SINGLE_ROLES}
    named.update({f"head {r}": c for r, c in enumerate(roles.heads)})
    return named


@pytest.mark.parametrize("theme_name", sorted(THEMES))
def test_roles_are_far_apart(theme_name):
    named = named_colours(theme_name)
    close = [(a, b, round(float(np.linalg.norm(lab(named[a]) - lab(named[b]))), 1))
             for a, b in itertools.combinations(named, 2)
             if np.linalg.norm(lab(named[a]) - lab(named[b])) < MIN_DISTANCE]
    assert not close, f"{theme_name}: roles closer than ΔE {MIN_DISTANCE}: {close}"


@pytest.mark.parametrize("theme_name", sorted(THEMES))
def test_roles_read_on_the_background(theme_name):
    background = THEMES[theme_name].background
    low = {n: round(contrast(c, background), 2) for n, c in named_colours(theme_name).items()
           if contrast(c, background) < MIN_CONTRAST}
    assert not low, f"{theme_name}: roles under {MIN_CONTRAST}:1 against {background}: {low}"


def test_every_theme_has_roles():
    assert set(ROLES) == set(THEMES)
    for roles in ROLES.values():
        assert len(set(roles.heads)) == len(roles.heads) >= 4


def test_the_legend_is_drawn_from_the_roles(tmp_path):
    """docs/img/roles.png is the legend script's output: each swatch's pixels are its role's colour."""
    from PIL import Image

    import scripts.role_legend as legend
    docs = Image.open(ROOT / "docs" / "img" / "roles.png").convert("RGB")
    for column, name in enumerate(THEMES):
        for row, (_, colour) in enumerate(role_swatches(ROLES[name])):
            left, top, right, bottom = legend.swatch_box(column, row)
            pixel = docs.getpixel(((left + right) // 2, (top + bottom) // 2))
            want = tuple(int(colour.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4))
            assert pixel == want, f"docs/img/roles.png is stale at {name}/{row}: rerun scripts/role_legend.py"


def test_a_check_is_a_muted_line_at_the_floor():
    from manim import ManimColor

    from scenes.kit import LABEL_SIZE, check_line, theme
    line = check_line("max |difference| < 10⁻¹²")
    texts = [m for m in line.family_members_with_points() if m.has_points()]
    assert texts and all(ManimColor(m.get_color()).to_hex().upper() == theme().muted.upper() for m in texts)
    assert {part.font_size for part in line} == {LABEL_SIZE}


def test_tokens_take_neutrals_not_roles():
    from scenes.kit import theme, token_color
    shades = [token_color(i, 3).upper() for i in range(3)]
    assert shades[0] == theme().text.upper() and shades[-1] == theme().muted.upper()
    taken = {c.upper() for r in ROLES.values() for c in (*(getattr(r, n) for n in SINGLE_ROLES), *r.heads)}
    assert not taken & set(shades)
