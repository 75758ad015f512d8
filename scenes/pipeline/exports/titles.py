"""The step titles the storyboard writes over each panel, marked for the catalog (scenes/locale).

A step's title is its method's name with spaces (``show_sequence`` -> 'show sequence'); :func:`step_title`
gives it in the render's language when the catalog has it, else as it was (every English title, and the
steps of topics not yet translated).
"""

from __future__ import annotations

from scenes.kit.i18n import N_, _

STEP_TITLES = (  # the translated topics' steps (Babel extracts them from here)
    N_("show tokens"), N_("score keys"), N_("build mixture"), N_("project update"), N_("switch to negate"),
    N_("show sentence"), N_("first attention"), N_("first ffn"), N_("later blocks"), N_("the sum"),
    N_("depth map"), N_("compare maps"),
    N_("show sequence"), N_("previous token"), N_("induction head"), N_("predict"),
    N_("show circuit"), N_("fan out"), N_("show patterns"), N_("mix values"), N_("project heads"), N_("sum heads"),
    N_("concat route"), N_("change wo"), N_("add to stream"),
    N_("show input"), N_("expand"), N_("bend"), N_("contract"), N_("every position"), N_("permute rows"),
    N_("show sum"), N_("logit lens"), N_("direct logit"), N_("ablation"),
    N_("outline"), N_("input"), N_("attention"), N_("attn out"), N_("ffn hidden"), N_("ffn out"), N_("lengths"),
    N_("heatmap"), N_("shares"), N_("check"), N_("compare"),  # block (norm1, add1, ... stay as named)
    N_("no order"), N_("same token"), N_("causal mask"), N_("absolute"), N_("relative"), N_("rope"), N_("summary"),
    N_("show pair"), N_("rotate by position"), N_("shift both"), N_("content matters"), N_("many frequencies"),
    N_("score by distance"), N_("where rope acts"),
)


def step_title(name: str) -> str:
    """The storyboard's title of step ``name`` in the current language: 'show_sequence' -> 'show sequence'."""
    return _(name.replace("_", " "))


def topic_title(slug: str, description: str) -> str:
    """'<slug>: <description>', the description in the current language when the catalog has it."""
    return f"{slug}: {_(description)}"
