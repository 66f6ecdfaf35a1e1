"""The commands' parameters converted without pydantic.

typer 0.29 converts every parameter's value through a pydantic ``TypeAdapter``, built when the parameter is first
given a value; loading pydantic for it was about half of the CPU a command such as ``strmqm`` or ``runmqsc`` takes
to start (docs/benchmarks.md, issue 38), and the test suite and every container probe start such commands all the
time. The commands here take plain values only: ``str``, ``int``, ``float``, ``bool``, ``Path``, each alone, in
``X | None`` or in ``list[X]``. For those, :func:`install` has typer use a converter of this module; any other
annotation still goes to typer's own builder, so a new kind of parameter keeps working (and loads pydantic).

A value that does not convert is refused as typer refuses it (click's ``BadParameter``: "Invalid value for
'--port': …", exit status 2). tests/cli/test_startup_cost.py checks that the commands load no pydantic and that a bad
value is still refused.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_TRUE = {"1", "true", "t", "yes", "y", "on"}
_FALSE = {"0", "false", "f", "no", "n", "off"}


def _integer(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a valid integer")
    if isinstance(value, int):
        return value
    try:
        return int(str(value).strip())
    except ValueError:
        raise ValueError(f"{value!r} is not a valid integer") from None


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{value!r} is not a valid number") from None


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"{value!r} is not a valid boolean")


_CONVERTERS: dict[Any, Callable[[Any], Any]] = {str: str, int: _integer, float: _number, bool: _boolean, Path: Path}


def plain_converter(annotation: Any) -> tuple[Callable[[Any], Any], bool] | None:
    """(converter, is a list) for a plain annotation (see the module doc), None for any other."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        rest = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(rest) != 1:
            return None
        annotation = rest[0]
        origin = typing.get_origin(annotation)
    if origin is list:
        args = typing.get_args(annotation)
        if len(args) == 1 and args[0] in _CONVERTERS:
            return _CONVERTERS[args[0]], True
        return None
    if origin is None and annotation in _CONVERTERS:
        return _CONVERTERS[annotation], False
    return None


def install() -> None:
    """Have typer convert plain parameters here (see the module doc)."""
    import typer.core
    from typer._click.exceptions import BadParameter
    from typer._coercion import RuntimeParam

    typer_builder = typer.core.build_runtime_param  # type: ignore[attr-defined]

    @dataclass(frozen=True)
    class PlainRuntimeParam(RuntimeParam):
        convert: Callable[[Any], Any]
        many: bool

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                if self.many:
                    items = value if isinstance(value, (list, tuple)) else [value]
                    return [self.convert(item) for item in items]
                return self.convert(value)
            except ValueError as e:
                raise BadParameter(str(e), ctx=ctx, param=param) from None

    def build(descriptor: Any) -> Any:
        plain = None
        if not (descriptor.is_file or descriptor.is_choice or descriptor.is_ranged or descriptor.is_tuple):
            plain = plain_converter(descriptor.annotation)
        if plain is None:
            return typer_builder(descriptor)
        convert, many = plain
        return PlainRuntimeParam(
            annotation=descriptor.annotation, parameter_info=descriptor.parameter_info, convert=convert, many=many
        )

    typer.core.build_runtime_param = build  # type: ignore[attr-defined]
