"""Agno's model inheritance: a member without a model of its own uses its team's.

A sub-team's members take the sub-team's model (its own, or the one it inherited).
Applied to a run's members before they run, and by ``initialize_team()`` ahead of any
run, as in Agno. A member given a model keeps it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from core.models.base import Model
from core.models.default import default_model

M = TypeVar("M")


def inherit_model(members: Sequence[M], model: Model | None) -> list[M]:
    """``members``, each model-less one given ``model`` (sub-teams' members in turn)."""
    for member in members:
        if model is not None and getattr(member, "_model", model) is None:
            member.model = model  # type: ignore[attr-defined]
        inner: Any = getattr(member, "members", None)
        if isinstance(inner, list) and getattr(member, "kind", None) == "team":
            inherit_model(inner, getattr(member, "_model", None))
    return list(members)


class ModelInheritance:
    """A Team's model (given, else the environment's default) and ``initialize_team()``."""

    _model: Model | None
    members: Any

    @property
    def model(self) -> Model | None:
        """The model given, else the environment's default, read on each use (None: none;
        :mod:`core.models.default`)."""
        return self._model if self._model is not None else default_model()

    @model.setter
    def model(self, model: Model | None) -> None:
        self._model = model

    @property
    def model_id(self) -> str | None:
        """The id of this owner's model (None without one)."""
        return self.model.id if self.model is not None else None

    def initialize_team(self) -> None:
        """Give model-less members this team's model now (a run does it too)."""
        if isinstance(self.members, list):
            inherit_model(self.members, self._model)
