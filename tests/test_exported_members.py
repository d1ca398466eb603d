"""The public surface: every package face says what it exports, and each name has one home.

Like httpx's test over ``__all__``: a face lists its public names in ``__all__``, each
of them resolves (an attribute, or a submodule the face names), and what a face
exports is defined inside its own package, so a name is not published twice. Errors
are published by ``core.exceptions`` alone.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

import pytest

import bots
import core
import tools

#: alembic's scripts are loaded by alembic only, by file
NOT_FACES = ("core.db.migrations",)
#: faces that gather names from across core on purpose: ``from core import Agent``,
#: the testing kit (``from core.testing import ScriptedModel, FakeOpenAIServer``), and
#: ``core.agent``, which exports the run events, Function, Toolkit and Message beside
#: Agent because Agno's ``agno.agent`` does (code written for Agno imports them there)
GATHERING = {"core", "core.agent", "core.testing"}


def _faces() -> list[str]:
    names = []
    for root in (core, tools, bots):
        names.append(root.__name__)
        for info in pkgutil.walk_packages(root.__path__, f"{root.__name__}."):
            if info.ispkg and not info.name.startswith(NOT_FACES):
                names.append(info.name)
    return sorted(names)


FACES = _faces()


def _exported(face: ModuleType) -> list[tuple[str, object]]:
    out = []
    for name in face.__all__:
        try:
            value = getattr(face, name)
        except AttributeError:
            value = importlib.import_module(f"{face.__name__}.{name}")
        out.append((name, value))
    return out


@pytest.mark.parametrize("name", FACES)
def test_every_face_has_a_docstring_and_all(name: str) -> None:
    """A package face documents itself and lists its public names."""
    face = importlib.import_module(name)
    assert (face.__doc__ or "").strip(), f"{name} has no docstring"
    assert isinstance(getattr(face, "__all__", None), list | tuple), f"{name} has no __all__"
    assert all(isinstance(item, str) for item in face.__all__)
    assert len(set(face.__all__)) == len(face.__all__), f"{name}.__all__ repeats a name"


@pytest.mark.parametrize("name", FACES)
def test_exported_names_resolve_and_live_in_their_package(name: str) -> None:
    """Each name in __all__ resolves; classes and functions are defined in the package."""
    face = importlib.import_module(name)
    for public, value in _exported(face):
        if isinstance(value, ModuleType):
            assert value.__name__.startswith(f"{name}."), f"{name}.{public}"
            continue
        home = getattr(value, "__module__", None)
        if not (inspect.isclass(value) or inspect.isfunction(value)) or home is None:
            continue
        if name in GATHERING:
            root = name.split(".")[0]
            assert home.startswith(f"{root}."), f"{name}.{public} comes from {home}"
        else:
            assert home == name or home.startswith(f"{name}."), (
                f"{name}.{public} is defined in {home}: export it from there"
            )


def test_errors_have_one_public_path() -> None:
    """No face but core.exceptions lists an exception class in its __all__."""
    offenders = []
    for name in FACES:
        face = importlib.import_module(name)
        if not hasattr(face, "__all__"):
            continue  # reported by test_every_face_has_a_docstring_and_all
        if name == "core.exceptions" or name.startswith("core.exceptions."):
            continue
        for public, value in _exported(face):
            is_error = inspect.isclass(value) and issubclass(value, BaseException)
            if is_error and value.__module__.startswith("core."):
                offenders.append(f"{name}.{public}")
    assert offenders == []


def test_the_core_face_loads_nothing_until_asked() -> None:
    """``import core`` is cheap; ``core.Agent`` is the class at its Agno path."""
    from core.agent import Agent

    assert core.Agent is Agent
    assert set(core.__all__) <= set(dir(core))
    with pytest.raises(AttributeError):
        _ = core.NoSuchThing  # type: ignore[attr-defined]
