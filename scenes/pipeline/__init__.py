"""The render pipeline: everything between a topic's ``Params`` and the published files.

``render_job`` renders one topic into a private work folder (``fsutil``) and publishes its files
with their ``manifest`` as one transaction (``publish``), SIGINT/SIGTERM handled by ``signals``;
``encoder`` and ``soundtrack`` make the video and its sound, ``script_file`` reads edited narration,
``exports`` writes the other formats (GIF, alpha, storyboard, deck, handout, pptx), ``pool`` renders
every topic in worker processes, ``api`` is the public :func:`scenes.render`, and ``step_frames``
draws each step's end frame without a video (:func:`scenes.step_frames`). Importing this
package imports nothing heavy; each module imports Manim, PyAV or Pillow only where it needs them.
"""
