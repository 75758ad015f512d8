"""The command group: built-in commands plus one generated command per topic, and the wording of
every command-line error (one line, ``Error: ... Try 'render.py TOPIC --help'.``, exit code 2)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from scenes.pipeline import api, signals
from scenes.topics import load_topics

from .flags import NOTICES, param_flags

TOPICS = load_topics()
PUBLISHED: list[str] = []  # what this command has published so far (for the interruption message)
USAGE = ("TOPIC [FLAGS] | list | show TOPIC | all | deck TOPIC [FLAGS] | storyboard TOPIC [FLAGS] | "
         "script TOPIC [FLAGS] | lesson FILE | vocab WEIGHTS | studio")
TOPIC_COMMAND: list[Callable[[Any], click.Command]] = []  # set by scenes/cli/topic.py: topic -> its command


def unknown_topic(name: str) -> click.UsageError:
    """The one-line error for a topic that does not exist, with the closest name."""
    return click.UsageError(str(api.unknown_topic(name, list(TOPICS))))


def option_names(command: click.Command) -> list[str]:
    """Every visible flag spelling of ``command`` (``-q``, ``--quality``, ``--no-residual``, ...)."""
    names: list[str] = []
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            names += [*param.opts, *param.secondary_opts]
    return names


def commands_with(option: str, ctx: click.Context) -> list[str]:
    """Where ``option`` is a flag: the topics whose parameter it is, "a topic's render" for the render
    flags, and the built-in commands that take it."""
    first = next(iter(TOPICS.values()))
    found = [slug for slug, topic in TOPICS.items() if option in param_flags(topic)]
    if option in set(option_names(TOPIC_COMMAND[0](first))) - param_flags(first):
        found.append("a topic's render")
    for name, command in cli.commands.items():
        if isinstance(command, click.Group):
            command = command.get_command(ctx, "all")
        if command is not None and option in option_names(command):
            found.append(name)
    return found


def no_such_option(err: click.NoSuchOption, args: list[str]) -> str:
    """A better line than click's for an unknown flag: where it belongs, or the closest flag."""
    option, ctx = err.option_name, err.ctx
    if ctx is None:
        return err.format_message()
    prog = ctx.find_root().info_name or api.PROGRAM
    if ctx.command is cli:  # a flag before the command
        command = next((a for a in args if a in cli.list_commands(ctx)), None)
        if command is not None:
            at = args.index(command)
            moved = " ".join([command, *args[:at], *args[at + 1:]])
            return f"No such option {option!r} before the command: flags go after it, as in '{prog} {moved}'"
        return f"No such option {option!r}: flags go after the topic, as in '{prog} residual {option} ...'"
    here = ctx.command_path.removeprefix(ctx.find_root().info_name or "").strip()
    owners = [name for name in commands_with(option, ctx) if name != here]
    if owners:
        listed = ", ".join(owners[:-1]) + " and " + owners[-1] if len(owners) > 1 else owners[0]
        return f"No such option {option!r} for {here}: it is a flag of {listed}"
    return f"No such option {option!r}{api.did_you_mean(option, option_names(ctx.command))}"


def short_usage(ctx: click.Context | None) -> str:
    """One usage line for a command given no arguments (its full help is one --help away)."""
    if ctx is None or ctx.command is cli:
        return f"Usage: {ctx.info_name if ctx is not None else api.PROGRAM} {USAGE}"
    return f"Usage: {ctx.command_path} {' '.join(ctx.command.collect_usage_pieces(ctx))}"


def one_line(message: str, path: str) -> str:
    """``Error: MESSAGE. Try 'PATH --help'.`` with no doubled punctuation."""
    message = message.strip().rstrip(".")
    return f"Error: {message}{'' if message.endswith('?') else '.'} Try '{path} --help'."


def interrupted_line(stop: signals.Interrupted) -> str:
    """What a stopped command says it left behind."""
    done = (f"finished before it: {', '.join(PUBLISHED)}; nothing else was published" if PUBLISHED
            else "nothing was published")
    return f"Error: interrupted by {stop.name}; {done}"


SPELLED_SWITCH = ("true", "false", "yes", "no", "on", "off", "1", "0")  # a value a switch given one was meant as


def switch_with_value(argv: list[str], ctx: click.Context | None) -> str | None:
    """How to write a switch given a value (``--residual false``, which click reads as a stray argument):
    ``--residual is a switch ...``, or None when ``argv`` holds no such pair."""
    switches = {name: param for param in (ctx.command.params if ctx is not None else [])
                if isinstance(param, click.Option) and param.is_flag for name in (*param.opts, *param.secondary_opts)}
    for flag, word in zip(argv, argv[1:]):
        param = switches.get(flag)
        if param is not None and word.lower() in SPELLED_SWITCH:
            on = next(o for o in param.opts if o.startswith("--"))
            off = f", {param.secondary_opts[0]} for off" if param.secondary_opts else "; leave it out for off"
            return f"{flag} is a switch and takes no value (got {flag} {word}): write {on} for on{off}"
    return None


def usage_error_line(err: click.UsageError, argv: list[str], prog_name: str | None) -> str:
    """A usage error as one line."""
    path = err.ctx.command_path if err.ctx is not None else (prog_name or api.PROGRAM)
    message = no_such_option(err, argv) if isinstance(err, click.NoSuchOption) else err.format_message()
    return one_line(switch_with_value(argv, err.ctx) or message, path)


class TopicGroup(click.Group):
    """Built-in commands plus one generated command per topic; every error is one line."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(super().list_commands(ctx)) + list(TOPICS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is None and name in TOPICS:
            return TOPIC_COMMAND[0](TOPICS[name])
        return command

    def resolve_command(self, ctx: click.Context, args: list[str]):
        name = args[0] if args else None
        if name is not None and not name.startswith("-") and self.get_command(ctx, name) is None:
            raise unknown_topic(name)
        return super().resolve_command(ctx, args)

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        """click's main, but a usage error is one line (no usage dump) and SIGINT/SIGTERM end with
        one line and exit code 130/143."""
        PUBLISHED.clear()
        NOTICES.clear()
        argv = list(sys.argv[1:] if args is None else args)
        code = self.run(argv, api.PROGRAM, complete_var, **extra)  # every message names the tblock command
        if standalone_mode:
            sys.exit(code)
        return code

    def run(self, argv: list[str], prog_name: str | None, complete_var: str | None, **extra: Any) -> int:
        """The exit code of running ``argv``; every error printed as one line."""
        try:
            value = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
            return value if isinstance(value, int) else 0
        except click.exceptions.NoArgsIsHelpError as err:
            click.echo(short_usage(err.ctx), err=True)
            click.echo(f"Try '{err.ctx.command_path} --help' for more.", err=True)
            return 2
        except click.UsageError as err:
            click.echo(usage_error_line(err, argv, prog_name), err=True)
            return err.exit_code
        except click.ClickException as err:
            err.show()
            return err.exit_code
        except click.exceptions.Abort:
            click.echo("Aborted!", err=True)
            return 1
        except signals.Interrupted as stop:
            click.echo(interrupted_line(stop), err=True)
            return stop.exit_code


@click.group(cls=TopicGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tblock", prog_name="tblock")
def cli() -> None:
    """Render explainer videos of a transformer block; numbers from the tblock engine."""
