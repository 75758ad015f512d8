"""Pacing: a narrated step's animations stretched over the sentences that describe them (plain Python).

A silent render plays every animation at its own pace. With a voice, a step's picture would
otherwise stop while the voice is still speaking: after a run of animations the scene waits, on a
still frame, for the sentence a cue names (:meth:`scenes.kit.base.StepScene.cue`), and after the
last one it holds until the narration ends. Pacing turns those still seconds into motion: a first
run of the scene with every animation skipped records each play as a :class:`Beat`; :func:`pace_of`
gives each animation the factor that stretches its run of animations over the wait that follows
it (at most :data:`MAX_STRETCH` times as slow); the render then plays the k-th animation that much
longer. Cues still start their animations when the voice says their words.

>>> beats = [Beat("move", 1.0), Beat("cue", 2.0), Beat("move", 0.5), Beat("move", 0.5), Beat("hold", 3.5)]
>>> pace_of(beats, pause=1.0)
(3.0, 3.0, 3.0)
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_STRETCH = 3.0  # an animation plays at most this many times its own length
REST = 0.5         # seconds a step stays still after its last animation, before its pause


@dataclass(frozen=True)
class Beat:
    """One play of a scene: ``kind`` is "move" (animations), "cue" (waiting for a sentence), "hold" (the
    step's end, waiting for the narration to finish and then the pause) or "wait" (a pause the scene
    asks for itself, left as it is)."""

    kind: str
    duration: float


def pace_of(beats: list[Beat], pause: float) -> tuple[float, ...]:
    """Each animation's stretch factor, in the order they play: a run of animations spreads over the
    cue or hold that ends it.

    Only animations are counted (a paced run waits less, and may skip a wait the first run had). A
    wait cut in pieces (a burned caption turning its page) counts whole; a hold gives all but the
    pause and :data:`REST`.
    """
    factors = [1.0] * len(beats)
    run: list[int] = []
    waited = {"cue": 0.0, "hold": 0.0}

    def spread() -> None:
        natural = sum(beats[i].duration for i in run)
        room = waited["cue"] + (max(0.0, waited["hold"] - pause - REST) if waited["hold"] else 0.0)
        if natural > 0 and room > 0:
            for i in run:
                factors[i] = min(MAX_STRETCH, (natural + room) / natural)
        run.clear()
        waited.update(cue=0.0, hold=0.0)

    for k, beat in enumerate(beats):
        if beat.kind == "move":
            if any(waited.values()):
                spread()
            run.append(k)
        elif beat.kind in waited:
            waited[beat.kind] += beat.duration
    spread()
    return tuple(f for f, beat in zip(factors, beats) if beat.kind == "move")
