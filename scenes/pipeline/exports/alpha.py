"""Alpha video: measure a frame's alpha plane, and re-encode an alpha mov as VP9 webm for browsers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .video_info import ExportError, _frame_rate, frames_at


@dataclass(frozen=True)
class AlphaReport:
    """What the alpha plane of one frame holds."""

    has_alpha: bool          # the decoded frame carries an alpha plane at all
    background_alpha: int    # the largest alpha among the frame's corner pixels
    max_alpha: int           # the largest alpha anywhere (content is drawn)
    transparent_share: float  # the share of pixels with alpha 0

    @property
    def ok(self) -> bool:
        return self.has_alpha and self.background_alpha == 0 and self.max_alpha == 255


def alpha_report(path: Path, frame_index: int = -1) -> AlphaReport:
    """Decode one frame (the last by default, where content is drawn) and measure its alpha."""
    frame = frames_at(path, [frame_index])[0]
    has_alpha = len(frame.format.components) == 4  # yuva420p, argb, rgba, ...: a fourth plane
    rgba = frame.to_ndarray(format="rgba")  # (h, w, 4)
    alpha = rgba[..., 3]
    k = max(2, min(alpha.shape) // 60)  # corner blocks of a few pixels
    corners = np.concatenate([alpha[:k, :k].ravel(), alpha[:k, -k:].ravel(),
                              alpha[-k:, :k].ravel(), alpha[-k:, -k:].ravel()])
    return AlphaReport(has_alpha=has_alpha, background_alpha=int(corners.max()),
                       max_alpha=int(alpha.max()), transparent_share=float((alpha == 0).mean()))


def check_alpha(path: Path) -> AlphaReport:
    """Raise ``ExportError`` unless the video's background is fully transparent (alpha 0)."""
    report = alpha_report(path)
    if not report.ok:
        raise ExportError(f"{path.name} does not carry a transparent background "
                          f"(alpha plane: {report.has_alpha}, corner alpha {report.background_alpha}, "
                          f"largest alpha {report.max_alpha})")
    return report


def to_alpha_webm(src: Path, dst: Path) -> Path:
    """Re-encode an alpha video (Manim's lossless qtrle .mov) as VP9 webm with alpha, for browsers."""
    import av

    with av.open(str(src)) as source, av.open(str(dst), "w", format="webm") as target:
        stream = source.streams.video[0]
        rate = _frame_rate(stream)
        out = target.add_stream("libvpx-vp9", rate=rate)
        out.width, out.height = stream.codec_context.width, stream.codec_context.height
        out.pix_fmt = "yuva420p"
        out.options = {"crf": "32", "b": "0", "deadline": "good", "cpu-used": "5", "row-mt": "1"}
        for i, frame in enumerate(source.decode(stream)):
            frame = frame.reformat(format="yuva420p")
            frame.pts, frame.time_base = i, 1 / rate
            target.mux(out.encode(frame))
        target.mux(out.encode(None))
    return dst
