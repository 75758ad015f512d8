"""The render pipeline: everything between a topic's ``Params`` and the published files.

``options`` declares a render's options (``naming`` names its output); ``job`` renders one topic: it
checks the up-to-date key (``uptodate``), runs the scene under Manim (``driver``, or in ranges on
several workers: ``ranges``, ``pool``, ``cluster``, ``parallel``; both report a ``SceneRecord``),
stages the files in a private work folder (``fsutil``) and publishes them with their ``manifest`` as
one transaction (``publish``), SIGINT/SIGTERM handled by ``signals``; ``encoder`` and ``soundtrack``
make the video and its sound, ``script_file`` reads edited narration, ``exports`` writes the other
formats (GIF, alpha, storyboard, deck, handout, pptx), ``lesson`` renders lesson files, ``api`` is
the public :func:`scenes.render`, and ``step_frames`` draws each step's end frame without a video
(:func:`scenes.step_frames`). Every change to Manim's own code is in ``scenes.kit.manim_patches``.
Importing this package imports nothing; its modules import the kit (and with it Manim) and import
PyAV or Pillow only where they need them.
"""
