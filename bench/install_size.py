"""How much a fresh Debian machine installs for each set-up command, counted from the package lists.

    .venv/bin/python bench/install_size.py          # needs apt (apt-get update done); changes nothing

For each set of packages, apt resolves what ``apt-get install --no-install-recommends SET`` would install
on a machine where nothing is installed yet (a simulation, ``-s``, against an empty dpkg status file:
every package the set pulls, down to libc), and the installed sizes of those packages are added up
(``Installed-Size`` from ``dpkg-query`` where the package is installed here, else from ``apt-cache
show``; KiB, printed as MB of 10^6 bytes). The sets:

- before: what ``scripts/setup.sh`` installed for every command while formulas went through LaTeX (TeX Live, dvisvgm,
  chromium, LibreOffice Impress and poppler along with the libraries);
- render: ``bash run.sh render`` now; test: ``bash run.sh test`` now.

Each also gets what setup.sh adds on a machine with only Python (a C compiler, python3-venv,
python3-dev). "before - render" counts the packages only the old set pulls. Packages of priority
``required`` or ``important`` are on every Debian install already, so the saving is also given without
them (the conservative figure).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FRESH = ["gcc", "python3-venv", "python3-dev"]  # setup.sh adds these on a machine with only Python
BEFORE = ["libcairo2-dev", "libpango1.0-dev", "pkg-config", "texlive-latex-base", "texlive-latex-recommended",
          "texlive-latex-extra", "texlive-fonts-recommended", "dvisvgm", "fonts-dejavu-core", "chromium",
          "libreoffice-impress", "poppler-utils"]  # scripts/setup.sh's DEBIAN_PACKAGES before Typst


def setup_sets() -> dict[str, list[str]]:
    """The render and test sets as scripts/setup.sh declares them now."""
    text = (ROOT / "scripts" / "setup.sh").read_text()

    def listed(name: str) -> list[str]:
        body = re.search(rf"^{name}=\(([^)]*)\)", text, re.M | re.S).group(1)
        return [w for w in re.sub(r"#[^\n]*", "", body).split() if not w.startswith("$")]

    render = listed("RENDER_PACKAGES")
    return {"render": render, "test": render + listed("TEST_PACKAGES")}


def resolved(packages: list[str]) -> set[str]:
    """Every package apt installs for ``packages`` on a machine with nothing installed."""
    with tempfile.NamedTemporaryFile() as empty:
        done = subprocess.run(["apt-get", "-s", "-o", f"Dir::State::status={empty.name}", "install",
                               "--no-install-recommends", *packages], capture_output=True, text=True, check=True)
    return {line.split()[1] for line in done.stdout.splitlines() if line.startswith("Inst ")}


def fields(packages: set[str]) -> dict[str, tuple[int, int, str]]:
    """{package: (installed size in KiB, download size in bytes, priority)} from ``apt-cache show``
    (the candidate version, the one ``apt-get install`` would take)."""
    done = subprocess.run(["apt-cache", "show", "--no-all-versions", *sorted(packages)], capture_output=True,
                          text=True, check=True)
    found = {}
    for stanza in done.stdout.split("\n\n"):
        name = re.search(r"^Package: (\S+)", stanza, re.M)
        if name is None:
            continue
        size = re.search(r"^Installed-Size: (\d+)", stanza, re.M)
        download = re.search(r"^Size: (\d+)", stanza, re.M)
        priority = re.search(r"^Priority: (\S+)", stanza, re.M)
        found[name.group(1)] = (int(size.group(1)) if size else 0, int(download.group(1)) if download else 0,
                                priority.group(1) if priority else "optional")
    return found


def mb(kib: int) -> float:
    return kib * 1024 / 1e6


def main() -> None:
    sets = {"before": BEFORE, **setup_sets()}
    closure = {name: resolved(pkgs + FRESH) for name, pkgs in sets.items()}
    info = fields(set().union(*closure.values()))

    def total(packages: set[str], base: bool = True) -> int:
        return sum(info[p][0] for p in packages if base or info[p][2] not in ("required", "important"))

    def download(packages: set[str]) -> float:
        return sum(info[p][1] for p in packages) / 1e6

    def row(name: str, packages: set[str]) -> str:
        return (f"| {name} | {len(packages)} | {download(packages):.0f} | {mb(total(packages)):.0f} | "
                f"{mb(total(packages, base=False)):.0f} |")

    print("| set | packages | download MB | installed MB | installed MB, without required/important |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in sets:
        print(row(name, closure[name]))
    print(row("**before - render**", closure["before"] - closure["render"]))
    print(row("render's own (not in before)", closure["render"] - closure["before"]))
    saved = closure["before"] - closure["render"]
    groups = {"TeX Live and dvisvgm": ["texlive-latex-base", "texlive-latex-recommended", "texlive-latex-extra",
                                       "texlive-fonts-recommended", "dvisvgm"],
              "chromium": ["chromium"], "libreoffice-impress": ["libreoffice-impress"],
              "poppler-utils": ["poppler-utils"]}
    print("\nWhat each left-out group pulls beyond the render set (a package pulled by two groups counts in both):")
    for name, pkgs in groups.items():
        alone = resolved(sets["render"] + FRESH + pkgs) - closure["render"]
        print(f"- {name}: {len(alone)} packages, {download(alone):.0f} MB download, "
              f"{mb(total(alone)):.0f} MB installed")
    largest = sorted(saved, key=lambda p: -info[p][0])[:8]
    print("\nLargest saved: " + ", ".join(f"{p} {mb(info[p][0]):.0f} MB" for p in largest))


if __name__ == "__main__":
    main()
