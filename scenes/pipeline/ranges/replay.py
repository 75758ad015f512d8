"""The narration every range worker hears: the plan's speech, noted once and replayed, never made again.

The plan's run notes each text it spoke (:class:`Recorder`: its file, length and sentence starts);
each worker gets that table and speaks from it (:class:`ReplayNarrator`), so every worker's clock,
cues and captions are the plan's.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from scenes.kit.narration import Speech, SpeechService

from .tasks import RangeFailed

SpeechTable = dict[str, tuple[str, float, tuple[float, ...]]]  # text -> (file, seconds, sentence starts)


class ReplayNarrator(SpeechService):
    """The plan's narration replayed: each text's file, length and sentence starts, no synthesis."""

    def __init__(self, table: SpeechTable, voice: str = "") -> None:
        super().__init__(Path(tempfile.gettempdir()))
        self.table, self._voice = table, voice

    @property
    def voice(self) -> str:
        return self._voice

    def prefetch(self, texts: list[str]) -> None:
        """Nothing to start: every text was made before the workers began."""

    def _make(self, text: str, lang: str | None = None) -> Speech:
        """The plan's Speech of ``text`` (the plan spoke it in the render's language, ``lang``)."""
        if text not in self.table:
            raise RangeFailed(f"the narration {text[:40]!r} was not in the plan (the scene is not "
                              "deterministic)")
        path, duration, sentences = self.table[text]
        return Speech(text, Path(path), duration, tuple(sentences), self._voice)


class Recorder:
    """Wraps a speech service's ``speak`` to note every Speech the plan made (text -> path, length,
    sentences) in :attr:`table`."""

    def __init__(self, service: Any) -> None:
        self.service, self.table = service, {}
        speak = service.speak

        def recording(text: str) -> Any:
            speech = speak(text)
            self.table[speech.text] = (str(speech.path), speech.duration, tuple(speech.sentences))
            return speech

        service.speak = recording
