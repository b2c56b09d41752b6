"""A flow's args set when the job starts: ``--arg NAME=VALUE`` and ``TREMORC_ARG_<NAME>``.

Precedence: ``--arg`` (the last one of a name wins) over the environment over the build-time
values (the ``deploy flow … with`` values or the definition's defaults). A value is read as a
JSON literal (Tremor's JSON: numbers, ``true``/``false``/``null``, ``"quoted"`` strings, arrays,
records) where it parses as one, else it is the text itself, a string; it must have the type of
the build-time value (a float arg also takes an integer). The environment variable of ``name``
is ``TREMORC_ARG_`` + ``name`` upper-cased with ``.`` as ``__`` (``flow.name`` when the job
deploys several flows).

Invariant: a run-time value is never part of a message of this module; it only replaces the
build-time value at the arg's ``sites`` (connector ``with`` key paths, see
``compiler/passes/deploy_args.py``) in the job's connector specs. Whatever else the job's driver
prints on stderr while it runs (an unreadable input's path, an error quoting a config) has every
run-time value of :data:`MASKED_LENGTH` characters or more replaced by ``<arg NAME>``
(:func:`redacted`).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from runtime_support.tremor.jsonio import decode_json

__all__ = [
    "ArgError",
    "ENV_PREFIX",
    "FlowArg",
    "bind_args",
    "env_name",
    "given_args",
    "parse_value",
    "redacted",
    "secret_masks",
]

#: Shorter values are not masked in what the job prints (they would mask ordinary text).
MASKED_LENGTH = 4

ENV_PREFIX = "TREMORC_ARG_"


class ArgError(ValueError):
    """A run-time arg that cannot be applied (the message names it, never its value)."""


@dataclass(frozen=True)
class FlowArg:
    """A deployed flow's arg: ``name`` (as given on the command line), its build-time
    ``value``, the ``(connector index, key path)`` ``sites`` that are exactly this arg, and why
    it cannot be set at run time (``fixed``; ``""`` when it can)."""

    name: str
    value: Any
    sites: tuple[tuple[int, tuple[Any, ...]], ...] = ()
    fixed: str = ""


def env_name(name: str) -> str:
    """The environment variable that sets the arg ``name``."""
    return ENV_PREFIX + name.upper().replace(".", "__")


def parse_value(text: str) -> Any:
    """``text`` as a JSON literal where it parses as one, else the string itself."""
    try:
        return decode_json(text)
    except Exception:  # noqa: BLE001 - any text that is not JSON is a string
        return text


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "record"


def _a(kind: str) -> str:
    return ("an " if kind[0] in "aei" else "a ") + kind


def _fits(value: Any, default: Any) -> bool:
    want, got = _kind(default), _kind(value)
    return got == want or (want == "float" and got == "integer")


def given_args(
    options: list[str], environ: Mapping[str, str], known: tuple[FlowArg, ...]
) -> dict[str, str]:
    """The texts set for each arg, ``--arg`` over the environment; raises :class:`ArgError`
    for a malformed option or an unknown name (naming the known ones)."""
    names = [a.name for a in known]
    listing = ", ".join(names) if names else "none"
    by_env = {env_name(n): n for n in names}
    texts: dict[str, str] = {}
    for var in sorted(environ):
        if var.startswith(ENV_PREFIX):
            if var not in by_env:
                raise ArgError(f"Unknown flow arg in ${var}: the flow's args are: {listing}")
            texts[by_env[var]] = environ[var]
    for option in options:
        name, eq, text = option.partition("=")
        if not eq:
            raise ArgError(f"--arg `{name}` takes the form NAME=VALUE")
        if name not in names:
            raise ArgError(f"Unknown flow arg `{name}`: the flow's args are: {listing}")
        texts[name] = text
    return texts


def bind_args(
    connectors: tuple[Any, ...],
    known: tuple[FlowArg, ...],
    options: list[str],
    environ: Mapping[str, str],
) -> tuple[Any, ...]:
    """``connectors`` (ConnectorSpecs) with the run-time args substituted (module doc)."""
    texts = given_args(options, environ, known)
    if not texts:
        return connectors
    params = [copy.deepcopy(spec.params) for spec in connectors]
    for arg in known:
        if arg.name not in texts:
            continue
        if arg.fixed:
            raise ArgError(f"The flow arg `{arg.name}` is set when the job is built: {arg.fixed}")
        value = parse_value(texts[arg.name])
        if not _fits(value, arg.value):
            raise ArgError(
                f"The flow arg `{arg.name}` takes {_a(_kind(arg.value))} (like its build-time "
                f"value), not {_a(_kind(value))}"
            )
        for index, path in arg.sites:
            target = params[index]
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
    return tuple(
        dataclasses.replace(spec, params=new) if new != spec.params else spec
        for spec, new in zip(connectors, params, strict=True)
    )


def secret_masks(
    known: tuple[FlowArg, ...], options: list[str], environ: Mapping[str, str]
) -> dict[str, str]:
    """Each run-time value's texts (as given, and as the string it parses to) → ``<arg NAME>``,
    longest first."""
    masks: dict[str, str] = {}
    for name, text in given_args(options, environ, known).items():
        value = parse_value(text)
        for shown in (text, value if isinstance(value, str) else ""):
            if len(shown) >= MASKED_LENGTH:
                masks[shown] = f"<arg {name}>"
    return dict(sorted(masks.items(), key=lambda item: -len(item[0])))


class _Masked:
    """A text stream that writes through ``stream`` with every mask applied."""

    def __init__(self, stream: Any, masks: dict[str, str]):
        self._stream = stream
        self._masks = masks

    def write(self, text: str) -> int:
        for secret, mask in self._masks.items():
            text = text.replace(secret, mask)
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def redacted(module: Any, name: str, masks: dict[str, str]) -> Iterator[None]:
    """``module.name`` (``sys.stderr``/``sys.stdout``) masked while the block runs, and still
    when an exception leaves it (the traceback Python then prints is masked too)."""
    if not masks:
        yield
        return
    stream = getattr(module, name)
    setattr(module, name, _Masked(stream, masks))
    yield
    setattr(module, name, stream)
