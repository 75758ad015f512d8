"""Manim scenes, one package per topic, plus the shared kit (scenes.kit).

A topic lives in ``scenes/<slug>/``: ``numbers.py`` (NumPy only: what the video
shows, asked of the engine), ``scene.py`` (the steps and the module-level
``TOPIC``) and, where the topic needs its own mobjects, ``parts.py``.
The registry of topics is ``scenes.topics`` (``TOPIC_MODULES``, :func:`load_topics`, re-exported here
for users). The render pipeline (render job, publishing, manifest, exports, the worker pool) is
``scenes.pipeline``; :func:`render` is its public entry, :func:`step_frames` the quick look (each
step's end frame, no video). This file is the facade on top of the house: nothing of the project
imports it. Importing this package imports nothing heavy: :func:`load_topics`, :func:`render` and
:func:`step_frames` do, when called.
"""

from __future__ import annotations

from scenes.topics import TOPIC_MODULES, load_topics

__all__ = ["TOPIC_MODULES", "load_topics", "render", "render_lesson", "step_frames"]


def render(topic, **values):
    """Render ``topic`` (a slug such as ``"bank"``, or a Topic) and return its Manifest.

    Takes the topic's parameters by field name (``depth=6``, ``residual=False``) and the render
    options of ``python render.py TOPIC`` by the same names (``quality``, ``format``, ``gif_width``,
    ``theme``, ``last_frame``, ``sections``, ``voice``, ``out``, ...; scenes/pipeline/options.py),
    checked as the CLI checks them: bad input raises ``scenes.pipeline.api.RenderError`` (a
    ``ValueError``) with the CLI's one-line message, a failed render ``RenderFailed``. In Jupyter the
    returned manifest shows the video with its captions. See scenes/pipeline/api.py.
    """
    # lazy: every `import scenes.x` runs this file, and the engine's numbers must not load the pipeline
    from scenes.pipeline.api import render as render_topic

    return render_topic(topic, **values)


def render_lesson(path, out="media", **options):
    """Render the lesson file ``path`` (docs/lessons.md) and return its clips' manifests, in lesson order.

    Takes ``deck``, ``pptx``, ``pdf``, ``storyboard`` (build those files under ``OUT/<lesson-name>/``),
    ``jobs``, ``force`` and ``verbose`` as ``python render.py lesson FILE`` does; a bad file raises
    ``scenes.pipeline.lesson.LessonError`` (a ``RenderError``) naming the clip and the key. See
    scenes/pipeline/lesson.py.
    """
    # lazy: every `import scenes.x` runs this file, and the engine's numbers must not load the pipeline
    from scenes.pipeline.lesson import render_lesson as render_file

    return render_file(path, out, **options)


def step_frames(topic, out="media", *, on_frame=None, **values):
    """Each step's end frame of ``topic`` as a PNG, in seconds, without rendering the video.

    The scene is drawn with its animations skipped; ``on_frame(index, step_name, path)`` hears of
    each frame as it lands in ``OUT/.cache/frames/``; returns the paths in step order. ``values``: the
    topic's parameters and the options a still takes (``quality``, ``theme``, ``lang``, ...), checked as
    :func:`render` checks them (``RenderError``). See scenes/pipeline/step_frames.py.
    """
    # lazy: every `import scenes.x` runs this file, and the engine's numbers must not load the pipeline
    from scenes.pipeline.step_frames import step_frames as draw_frames

    return draw_frames(topic, out, on_frame=on_frame, **values)
