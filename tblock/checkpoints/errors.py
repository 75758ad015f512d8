"""The one error every checkpoint refusal raises, and the sentence for pickled files."""

from __future__ import annotations

from pathlib import Path

PICKLED_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")


class CheckpointError(ValueError):
    """A checkpoint that cannot be used as it is; the message names the file and the tensor."""


def pickled_message(path: Path) -> str:
    """Why a pickled file is refused, and how to convert it to safetensors."""
    return (
        f"{path}: refusing to unpickle a {path.suffix} checkpoint (unpickling can run arbitrary code); convert it "
        "once where you trust it, e.g. transformers' AutoModelForCausalLM.from_pretrained(folder).save_pretrained(out) "
        "or safetensors.torch.save_file({k: v.clone() for k, v in torch.load(path, weights_only=True).items()}, "
        "'model.safetensors'), then load the folder with config.json + model.safetensors"
    )
