"""What every studio request must pass before a route sees it.

- **Host**: the request's Host header must be the address served (``127.0.0.1:8765``; with a
  loopback address also ``localhost:8765``). A page on another site whose DNS name is rebound to
  127.0.0.1 sends its own name as Host and is refused (DNS rebinding). Bound to every interface
  (``0.0.0.0``), an IP-literal Host or this machine's name on the served port is accepted.
- **State-changing requests** (POST, PUT, PATCH, DELETE) must say ``Content-Type:
  application/json`` (a cross-site form cannot, and a cross-site script cannot without a CORS
  preflight, which the studio never answers) and, when they carry an ``Origin`` (every browser's
  do), it must be the studio's own. A request without ``Origin`` is not from a browser's page
  (curl, a script) and passes.
- **Files** are served only from under ``--out``: ``..`` (also as ``%2e%2e``), absolute paths,
  backslashes, NUL and symlinks that lead out are refused (:func:`safe_file`).
- **World files** (``--world``) are read only from the studio's working folder (where it was
  started) or from the worlds it saved itself (the page's table, an upload:
  ``OUT/.cache/studio/worlds/``); any other path is refused before it is opened (:func:`world_path`).
"""

from __future__ import annotations

import ipaddress
import json
import socket
from pathlib import Path
from typing import Any

CHANGING = ("POST", "PUT", "PATCH", "DELETE")
WILDCARDS = ("0.0.0.0", "::", "")


class Refused(ValueError):
    """A path or request the studio will not serve: the one-line reason."""


def served_hosts(host: str, port: int) -> set[str]:
    """The Host header values this studio answers (``host:port``, with loopback also ``localhost``)."""
    name = f"[{host}]" if ":" in host else host
    hosts = {f"{name}:{port}"}
    if is_loopback(host):
        hosts |= {f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"}
    return hosts


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


def host_allowed(header: str | None, host: str, port: int) -> bool:
    """Whether a request's Host header names this studio (see the module's rules)."""
    if not header:
        return False
    header = header.strip().lower()
    if header in served_hosts(host, port):
        return True
    if host not in WILDCARDS:
        return False
    name, _, given_port = header.rpartition(":")
    if given_port != str(port):
        return False
    try:
        ipaddress.ip_address(name.strip("[]"))
        return True  # an address, not a name someone could rebind
    except ValueError:
        return name in ("localhost", socket.gethostname().lower())


def refusal(headers: dict[str, str], method: str, host: str, port: int) -> tuple[int, str] | None:
    """``(status, reason)`` when a request must be refused, else None (``headers`` lower-cased)."""
    if not host_allowed(headers.get("host"), host, port):
        return 421, (f"refused: Host {headers.get('host')!r} is not this studio's address "
                     f"({sorted(served_hosts(host, port))[0]}); open the URL the studio printed")
    if method not in CHANGING:
        return None
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        return 415, f"refused: a {method} must be sent as application/json (got {kind or 'no content type'!r})"
    origin = headers.get("origin")
    if origin is not None and origin.lower() != f"http://{headers['host'].strip().lower()}":
        return 403, f"refused: a {method} from {origin!r} (another site); only the studio's own page may change state"
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return 403, f"refused: a {method} from a {site} page; only the studio's own page may change state"
    return None


class Guard:
    """ASGI middleware: every HTTP request passes :func:`refusal` first, else gets its JSON error."""

    def __init__(self, app: Any, host: str, port: int) -> None:
        self.app, self.host, self.port = app, host, port

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            refused = refusal(headers, scope["method"], self.host, self.port)
            if refused is not None:
                status, reason = refused
                body = json.dumps({"error": reason}).encode()
                await send({"type": "http.response.start", "status": status,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def safe_path(root: Path, rel: str) -> Path:
    """The path ``rel`` (a URL path, already percent-decoded) under ``root``, which need not exist yet;
    :class:`Refused` for ``..``, an absolute path, a backslash or NUL, or a symlink out of ``root``."""
    if not rel or rel.startswith("/") or "\\" in rel or "\0" in rel or ":" in rel.split("/")[0]:
        raise Refused(f"refused: {rel!r} is not a path under --out")
    if any(part in ("..", ".") for part in rel.split("/")):
        raise Refused(f"refused: {rel!r} leaves --out")
    base = Path(root).resolve()
    try:
        path = (base / rel).resolve()
    except (OSError, RuntimeError):
        raise Refused(f"refused: {rel!r} is not a path under --out") from None
    if not path.is_relative_to(base):
        raise Refused(f"refused: {rel!r} leads out of --out")
    return path


def safe_file(root: Path, rel: str) -> Path:
    """The file ``rel`` under ``root`` (:func:`safe_path`'s rules); FileNotFoundError if there is none."""
    path = safe_path(root, rel)
    if not path.is_file():
        raise FileNotFoundError(rel)
    return path


def world_path(value: Any, folder: Path, out: Path) -> Any:
    """A ``--world`` value the studio may read: a file under its working ``folder`` (a relative path is
    taken from there) or one it saved under ``OUT/.cache/studio/worlds/``, as its resolved path (a text).
    :class:`Refused` for any other place, decided from the path alone: the file is not opened. A value
    that is no text is returned as it is (the flag's own check refuses it)."""
    if not isinstance(value, str) or not value.strip():
        return value
    if "\0" in value:
        raise Refused(f"--world {value!r} is not a path the studio can read")
    saved = Path(out).absolute() / ".cache" / "studio" / "worlds"
    roots = [Path(folder).resolve(), saved.resolve()]
    try:
        path = (Path(folder) / value).resolve()  # an absolute value stays itself
    except (OSError, RuntimeError, ValueError):
        raise Refused(f"--world {value!r} is not a path the studio can read") from None
    if not any(path.is_relative_to(root) for root in roots):
        raise Refused(f"--world {value!r} is outside the studio's folder {roots[0]}; put the file there, "
                      "or upload it on the page (Your own numbers)")
    return str(path)


def request_flags(values: Any, folder: Path, out: Path) -> dict[str, Any]:
    """A request's ``params`` by field name (``--depth`` and ``depth`` alike), its ``--world`` held to
    the studio's folders (:func:`world_path`); :class:`Refused` when ``params`` is no object."""
    if values is None:
        return {}
    if not isinstance(values, dict):
        raise Refused("\"params\" must be an object of flags, e.g. {\"wo\": \"identity\"}")
    values = {k.removeprefix("--").replace("-", "_"): v for k, v in values.items()}
    if "world" in values:
        values["world"] = world_path(values["world"], folder, out)
    return values
