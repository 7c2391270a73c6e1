"""The boundary to the system under test (DESIGN §3.2), and loading `module:factory` plug-ins.

The system only ever sees a `CaseView`: an opaque id, the question and the frozen sources.
The gold answer, gold sources, expected behaviour, tags and the readable case id stay on this
side, so a right answer can only come from the sources.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from typing import Protocol, runtime_checkable

from qaeval_tui.core.errors import UsageError
from qaeval_tui.core.models.golden import LoadedCase
from qaeval_tui.core.models.run import CaseView, SUTOutput
from qaeval_tui.core.text import one_line


@runtime_checkable
class SystemAdapter(Protocol):
    """Anything with `answer(view) -> SUTOutput`; an optional `name` attribute labels its runs."""

    def answer(self, view: CaseView) -> SUTOutput: ...


def opaque_id(content_hash: str) -> str:
    """An id for the system that names no label: derived from the case's content hash."""
    return f"q-{content_hash[:20]}"


def case_view(loaded: LoadedCase) -> CaseView:
    """What crosses to the system for one case: opaque id, question, sources. Nothing else."""
    return CaseView(
        opaque_id=opaque_id(loaded.content_hash), question=loaded.case.question, sources=loaded.case.sources
    )


def describe_failure(exc: BaseException) -> str:
    """One line for an exception raised by user code, even one whose message itself fails to print.

    `SystemExit` is named as such: plug-in code that calls `sys.exit()` has failed, it has not
    finished, so it must never end a run or a gate with the exit code it chose.
    The text is folded onto one line with control characters escaped (`one_line`, which also
    shows half a UTF-16 pair as an escape, so the store and every UTF-8 writer can take it): a
    message from user code can never print a second line that reads like another error.
    """
    name = one_line(type(exc).__name__)
    try:
        if isinstance(exc, SystemExit):
            return f"{name}({one_line(repr(exc.code))}): the code tried to exit the process"
        text = one_line(str(exc))
    except Exception:  # a broken __str__ or __repr__ must not turn one failed case into a crash
        text = "(its message could not be printed)"
    return f"{name}: {text}" if text else name


def load_factory(spec: str, option: str = "--adapter") -> object:
    """Import `module:factory` and call the zero-argument factory; every failure is a UsageError.

    The current folder is importable, so a local `my_eval.py` works as `my_eval:make_adapter`.
    """
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise UsageError(f"{option} {spec!r}: expected module:factory, e.g. qaeval_tui.bundled.hub:make_reference_hub")
    here = os.getcwd()
    if here not in sys.path:
        sys.path.append(here)
    try:
        module = importlib.import_module(module_name)
    except KeyboardInterrupt:
        raise
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):
            raise UsageError(
                f"{option} {spec!r}: no module named {exc.name!r}; install it, or run qaeval from the folder holding it"
            ) from exc
        raise UsageError(f"{option} {spec!r}: importing {module_name!r} failed: {describe_failure(exc)}") from exc
    except BaseException as exc:  # any import-time failure of user code (sys.exit too) is shown plainly
        raise UsageError(f"{option} {spec!r}: importing {module_name!r} failed: {describe_failure(exc)}") from exc
    factory = module
    for part in attribute.split("."):
        if not hasattr(factory, part):
            raise UsageError(f"{option} {spec!r}: module {module_name!r} has no attribute {attribute!r}")
        factory = getattr(factory, part)
    if not callable(factory):
        raise UsageError(f"{option} {spec!r}: {attribute!r} is not callable; give a zero-argument factory")
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        signature = None
    if signature is not None:
        required = [
            p.name
            for p in signature.parameters.values()
            if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        if required:
            raise UsageError(
                f"{option} {spec!r}: the factory needs arguments ({', '.join(required)}); give a zero-argument factory"
            )
    try:
        return factory()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # the user's factory failing (or exiting) is reported, not a traceback
        raise UsageError(f"{option} {spec!r}: the factory raised {describe_failure(exc)}") from exc


def load_adapter(spec: str) -> SystemAdapter:
    """The adapter built by `module:factory`; it must have an `answer(view)` method."""
    adapter = load_factory(spec, "--adapter")
    if not isinstance(adapter, SystemAdapter) or not callable(adapter.answer):
        raise UsageError(
            f"--adapter {spec!r}: the factory returned {one_line(type(adapter).__name__)}, "
            "which has no answer(view) method"
        )
    return adapter


def adapter_label(adapter: object, spec: str) -> str:
    """How runs name the adapter: its `name` attribute when it has one, else the spec."""
    name = getattr(adapter, "name", None)
    return name if isinstance(name, str) and name else spec
