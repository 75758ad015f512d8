"""Click flags generated from the declarations: a topic's ``Params`` fields and the render options
(scenes/pipeline/options.py). A flag's text goes through the one rule (scenes/kit/values.py), so
the command line refuses a value with the same line as the API, the studio and lesson files."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import click

from scenes.kit import Alias
from scenes.kit.values import BadValue, flag_of, kind_of, parsed
from scenes.pipeline import api, options

NOTICES: list[str] = []  # old flag names used: printed once the input is known to be good
METAVARS = {"whole": "INTEGER", "number": "FLOAT", "path": "PATH", "words": "WORDS", "numbers": "NUMBERS",
            "text": "TEXT"}


class FlagType(click.ParamType):
    """A flag's text read by the one rule; a refusal is the rule's own line (a usage error)."""

    def __init__(self, f: dataclasses.Field) -> None:
        self.field = f
        self.name = kind_of(f)

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if not isinstance(value, str):
            return value  # a default, already a value
        try:
            return parsed(self.field, value)
        except BadValue as err:
            raise click.UsageError(str(err), ctx) from None

    def get_metavar(self, param: Any, ctx: Any = None) -> str:
        choices = self.field.metadata.get("choices")
        return "[" + "|".join(choices) + "]" if choices else METAVARS.get(self.name, "TEXT")


def option_for(f: dataclasses.Field, help: str | None = None) -> Callable:
    """One click option for one declared field: a switch for a bool, else a flag checked by the rule."""
    meta, flag = f.metadata, flag_of(f.name)
    names = [meta["short"]] if meta.get("short") else []
    text, dest = help or meta.get("help"), meta.get("dest", f.name)
    if isinstance(f.default, bool):
        spelled = f"{flag}/--no-{flag[2:]}" if meta.get("commands") is None else flag
        return click.option(*names, spelled, dest, is_flag=True if "/" not in spelled else None,
                            default=f.default, show_default="/" in spelled, help=text)
    return click.option(*names, flag, dest, type=FlagType(f), default=f.default, help=text,
                        show_default=f.default not in (None, ""), metavar=meta.get("metavar"))


def render_flags(command: str, without: tuple[str, ...] = (), **helps: str) -> Callable[[Callable], Callable]:
    """Attach the render options ``command`` takes (options.flags), in declaration order, but those
    named ``without``; ``helps`` replace a flag's help where the command means something more by it."""
    return declared_flags(command, options.RenderOptions, without, **helps)


def command_flags(command: str, without: tuple[str, ...] = (), **helps: str) -> Callable[[Callable], Callable]:
    """Attach the commands' own flags ``command`` takes (options.CommandOptions: ``--script``, ``--open``,
    ``--reuse``, ``--pdf``, ``--pptx``, ``--offline``, ...), as :func:`render_flags` attaches the render options."""
    return declared_flags(command, options.CommandOptions, without, **helps)


def declared_flags(command: str, declaration: type, without: tuple[str, ...] = (),
                   **helps: str) -> Callable[[Callable], Callable]:
    """Attach the fields of ``declaration`` that ``command`` takes, in declaration order, but ``without``."""

    def attach(func: Callable) -> Callable:
        for f in reversed([f for f in options.flags(command, declaration) if f.name not in without]):
            func = option_for(f, helps.get(f.name))(func)
        return func

    return attach


def topic_flags(topic: Any) -> Callable[[Callable], Callable]:
    """Attach one flag per field of ``topic.Params`` (in field order) and its old names (hidden)."""

    def attach(func: Callable) -> Callable:
        for f in reversed(dataclasses.fields(topic.Params)):
            func = option_for(f)(func)
        for old, alias in topic.Params.ALIASES.items():
            func = click.option(f"--{old}", f"alias__{old.replace('-', '_')}", default=None, hidden=True,
                                help=alias.help)(func)
        return func

    return attach


def param_flags(topic: Any) -> set[str]:
    """The flags made from ``topic.Params`` (``--depth``, ``--residual``, ``--no-residual``)."""
    found = set()
    for f in dataclasses.fields(topic.Params):
        found.add(flag_of(f.name))
        if isinstance(f.default, bool):
            found.add("--no-" + f.name.replace("_", "-"))
    return found


def notice(text: str) -> None:
    """Queue a one-line notice (an old flag name used); :func:`flush_notices` prints it."""
    NOTICES.append(text)


def flush_notices() -> None:
    """Print the queued notices on stderr, once every check has passed."""
    for text in NOTICES:
        click.echo(text, err=True)
    NOTICES.clear()


def apply_aliases(topic: Any, kwargs: dict, ctx: click.Context) -> set[str]:
    """Turn old flags into their new field's value, with a one-line notice each; the fields set."""
    given = {name for name in kwargs if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE}
    for old, alias in topic.Params.ALIASES.items():
        value = kwargs.pop(f"alias__{old.replace('-', '_')}", None)
        if value is not None:
            kwargs[alias.field] = aliased_value(old, alias, value, ctx)
            given.add(alias.field)
    with cli_errors():  # --seed beside --weights: refused before the other checks, as before
        api.refuse_unused(topic, kwargs, given)
    return given


def aliased_value(old: str, alias: Alias, value: str, ctx: click.Context) -> Any:
    """The new field's value of ``--old VALUE``, with its notice; both names given is an error."""
    new_flag = flag_of(alias.field)
    if ctx.get_parameter_source(alias.field) is not click.core.ParameterSource.DEFAULT:
        raise click.UsageError(f"--{old} is the old name of {new_flag}; give only {new_flag}")
    try:
        converted = alias.convert(value)
    except ValueError as err:
        raise click.UsageError(f"--{old}: {err}") from None
    why = f" ({alias.help})" if alias.help else ""
    notice(f"note: --{old} is now {new_flag}{why}; using {new_flag} {converted}")
    return converted


def topic_params(topic: Any, kwargs: dict, ctx: click.Context) -> Any:
    """The topic's Params from its flags in ``kwargs`` (popped), old names applied; usage errors."""
    fields = [f.name for f in dataclasses.fields(topic.Params)]
    values = {name: kwargs.pop(name) for name in fields}
    values.update({k: kwargs.pop(k) for k in [k for k in kwargs if k.startswith("alias__")]})
    given = apply_aliases(topic, values, ctx)
    with cli_errors():
        params = api.make_params(topic, values, given)
    for line in params.notes:  # a value filled in for the user (a checkpoint's own sentence)
        notice(line)
    return params


def render_options(kwargs: dict, command: str = "render", **fixed: Any) -> options.RenderOptions:
    """The RenderOptions from the render flags of ``command`` in ``kwargs`` (popped) and ``fixed``."""
    values = {f.name: kwargs.pop(f.name) for f in options.flags(command) if f.name in kwargs}
    values = {k: v for k, v in values.items() if v is not None}
    with cli_errors():
        return api.make_options(**{**values, **fixed})


@contextlib.contextmanager
def cli_errors() -> Iterator[None]:
    """The API's errors as click's: bad input a usage error (one line, exit 2), a failed render exit 1."""
    try:
        yield
    except (api.RenderError, options.OptionError) as err:
        raise click.UsageError(str(err)) from None
    except api.RenderFailed as err:
        raise click.ClickException(str(err)) from None
