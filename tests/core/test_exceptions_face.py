"""core.exceptions is a face: every error defined once in a private module, named here."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import core
import core.exceptions as exceptions


def test_every_exported_name_is_an_exception_defined_in_a_private_module() -> None:
    """Each name in __all__ is an Exception class whose home is a core.exceptions._* module."""
    for name in exceptions.__all__:
        value = getattr(exceptions, name)
        assert inspect.isclass(value) and issubclass(value, Exception), name
        home = value.__module__
        assert home.startswith("core.exceptions._"), f"{name} is defined in {home}"
        assert getattr(importlib.import_module(home), name) is value


def test_every_private_module_error_is_exported() -> None:
    """No error hides in a private module: each one defined there is in the face's __all__."""
    for info in pkgutil.iter_modules(exceptions.__path__, "core.exceptions."):
        module = importlib.import_module(info.name)
        defined = {
            name
            for name, value in vars(module).items()
            if inspect.isclass(value)
            and issubclass(value, BaseException)
            and value.__module__ == info.name
        }
        assert defined == set(getattr(module, "__all__", ())), info.name
        assert defined <= set(exceptions.__all__), info.name


def test_no_other_core_module_defines_an_exception() -> None:
    """Outside core.exceptions no core module defines an Exception subclass (of any name)."""
    defined_elsewhere = []
    for info in pkgutil.walk_packages(core.__path__, "core."):
        if info.name == "core.exceptions" or info.name.startswith(
            ("core.exceptions.", "core.db.migrations")  # alembic scripts: loaded by alembic
        ):
            continue
        module = importlib.import_module(info.name)
        defined_elsewhere += [
            f"{info.name}.{name}"
            for name, value in vars(module).items()
            if inspect.isclass(value)
            and issubclass(value, Exception)
            and value.__module__ == info.name
        ]
    assert defined_elsewhere == []
