"""Typed session state: a pydantic model or TypedDict that every saved state must fit.

:class:`StateSchema` is built once per owner (``Agent(session_state_schema=Model,
session_state_schema_version=2, session_state_migrations={2: fn})``) and decides three things:

* **What fits.** The state is checked as the store will hold it: the JSON text of each
  top-level key, validated with pydantic in *strict* mode. Strict, because the data is
  never replaced by what pydantic would make of it: the tool's own value is stored,
  exactly, or refused. So ``"3"`` is not an ``int`` and ``1`` is not a ``bool``; what
  JSON can only carry as a string (dates, datetimes, UUIDs, enums of strings) is
  accepted as its string. Nothing is ever coerced, filled in or dropped silently.
* **How much to check.** Only the top-level keys that changed: each against its own
  field's type, plus the key rules (a required key may not be removed; an unknown key
  is refused when the model forbids extra keys, ``extra="forbid"``, and otherwise
  stored unchecked). A model whose fields depend on each other (model or field
  validators, aliases, discriminated fields) is checked whole instead, every time.
  Keys nobody changed are not checked again: state saved before the schema existed
  is brought into shape by a migration (which is checked whole).
* **Versions.** ``version`` is the code's schema version; ``migrations[n]`` turns a
  state of version ``n - 1`` into version ``n`` (a plain dict in, a dict out). A
  session stored without a version counts as version 1.

Transient keys (``current_session_id`` …) are never part of the schema.

**Counters.** A top-level field annotated ``Annotated[int, COUNTER]`` is a counter that
only grows (the Taskboard's ``next_task_id``: numbers chat has shown are never handed
out again). Each run records the schema's counters with the session
(``SessionData.counters``), so a restore in any process, which has no agent at hand,
keeps them (:mod:`core.governance.restore`).
"""

from __future__ import annotations

import copy
import json
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

import pydantic
import typing_extensions
from pydantic import BaseModel, TypeAdapter, ValidationError

from core.db import codec
from core.db.values import TRANSIENT_KEYS
from core.exceptions import StateMigrationError, StateSchemaError, StateValueError


class Counter:
    """The mark of a counter field: ``Annotated[int, COUNTER]`` (only grows)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "COUNTER"


#: mark a top-level int field as a counter that only grows (restores keep it)
COUNTER = Counter()

#: a migration: the state of version n - 1 in, the state of version n out
Migration = Callable[[dict[str, Any]], dict[str, Any]]

#: (required keys, extra keys forbidden, per-key validators or none: check whole)
_Rules = tuple[frozenset[str], bool, Mapping[str, TypeAdapter[Any]]]
_NO_FIELDS: Mapping[str, TypeAdapter[Any]] = {}


class StateSchema:
    """A state model, its version and its migrations, with the checks built once."""

    __slots__ = (
        "_fields",
        "_whole",
        "counters",
        "forbid_extra",
        "migrations",
        "model",
        "name",
        "required",
        "version",
    )

    def __init__(
        self,
        model: type[Any],
        *,
        version: int = 1,
        migrations: Mapping[int, Migration] | None = None,
    ) -> None:
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise ValueError(
                f"session_state_schema_version must be a whole number >= 1, not {version!r}"
            )
        self.model = model
        self.name: str = getattr(model, "__name__", repr(model))
        self.version = version
        self.migrations = _check_migrations(dict(migrations or {}), version)
        self._whole: TypeAdapter[Any] = TypeAdapter(model)
        if isinstance(model, type) and issubclass(model, BaseModel):
            self.required, self.forbid_extra, fields = _model_rules(model)
        elif typing_extensions.is_typeddict(model):
            self.required, self.forbid_extra, fields = _typeddict_rules(model)
        else:
            raise TypeError(
                f"session_state_schema must be a pydantic BaseModel or a TypedDict, not {model!r}"
            )
        #: key -> its type's validator; empty: the model is checked whole
        self._fields: Mapping[str, TypeAdapter[Any]] = fields
        #: top-level keys marked COUNTER: they only grow, a restore keeps them
        self.counters: tuple[str, ...] = _counter_keys(model)

    @property
    def per_key(self) -> bool:
        """Changed keys are checked one by one (else the whole state is, every time)."""
        return bool(self._fields)

    # -- checks ---------------------------------------------------------------------
    def check_texts(self, texts: Mapping[str, str], keys: Iterable[str] | None) -> None:
        """Check a state given as its key texts, where ``keys`` changed (None: any key).

        Raises :class:`StateSchemaError` naming each problem's path.
        """
        if not self._fields:
            self._check_whole(texts)
            return
        errors: list[tuple[str, str]] = []
        first = ""
        names = self._fields
        for key in sorted(texts if keys is None else keys):
            if key in TRANSIENT_KEYS:
                continue
            text = texts.get(key)
            problems: list[tuple[str, str]]
            if text is None:
                problems = (
                    [(_path((key,)), "is required by the schema and cannot be removed")]
                    if key in self.required
                    else []
                )
            elif key in names:
                problems = _validate(names[key], text, key)
            elif self.forbid_extra:
                problems = [
                    (
                        _path((key,)),
                        f"is not a field of {self.name} (fields: {', '.join(sorted(names))})",
                    )
                ]
            else:
                problems = []
            if problems and not errors:
                first = key
            errors.extend(problems)
        if keys is None:
            missing = sorted(self.required - set(texts))
            errors.extend((_path((k,)), "is required by the schema and missing") for k in missing)
            first = first or (missing[0] if missing else "")
        if errors:
            raise StateSchemaError(self.name, errors, first)

    def check_state(self, state: Mapping[str, Any]) -> None:
        """Check a whole plain state (every key): StateValueError if it is not JSON."""
        public = {k: v for k, v in state.items() if k not in TRANSIENT_KEYS}
        self.check_texts(codec.encode_state(public), None)

    def _check_whole(self, texts: Mapping[str, str]) -> None:
        document = codec.object_text({k: t for k, t in texts.items() if k not in TRANSIENT_KEYS})
        errors = _validate(self._whole, document, None)
        if errors:
            raise StateSchemaError(self.name, errors, _top_key(errors[0][0]))

    # -- versions -------------------------------------------------------------------
    def migrate(
        self, state: Mapping[str, Any], from_version: int, *, session_id: str
    ) -> dict[str, Any]:
        """The state of ``from_version`` brought to :attr:`version` and checked whole.

        Works on a private copy: the input is never changed. A step that raises, returns
        something other than a dict, or a result that does not fit the schema, raises
        :class:`StateMigrationError` naming the session and the step.
        """
        current = copy.deepcopy({k: v for k, v in state.items() if k not in TRANSIENT_KEYS})
        for step in range(from_version + 1, self.version + 1):
            try:
                result = self.migrations[step](current)
            except Exception as exc:
                raise StateMigrationError(session_id, step, f"{type(exc).__name__}: {exc}") from exc
            if not isinstance(result, dict):
                reason = f"it returned {type(result).__name__}, not a dict"
                raise StateMigrationError(session_id, step, reason)
            current = result
        try:
            self.check_state(current)
        except StateValueError as exc:  # not JSON, or does not fit the schema
            raise StateMigrationError(session_id, None, str(exc)) from exc
        return current

    def __repr__(self) -> str:
        return f"StateSchema({self.name}, version={self.version})"


def schema_of(
    model: type[Any] | StateSchema | None,
    version: int = 1,
    migrations: Mapping[int, Migration] | None = None,
) -> StateSchema | None:
    """The owner argument as a StateSchema (None: untyped state)."""
    if model is None:
        if migrations:
            raise ValueError("session_state_migrations need a session_state_schema")
        return None
    if isinstance(model, StateSchema):
        return model
    return StateSchema(model, version=version, migrations=migrations)


# -- building the checks ---------------------------------------------------------------


def _check_migrations(migrations: dict[int, Migration], version: int) -> dict[int, Migration]:
    """Every step 2..version present and callable; nothing beyond the code's version."""
    for step, fn in migrations.items():
        if isinstance(step, bool) or not isinstance(step, int) or not 2 <= step <= version:
            raise ValueError(
                f"session_state_migrations key {step!r}: a migration is keyed by the version it "
                f"produces, a whole number from 2 to the schema version {version}"
            )
        if not callable(fn):
            raise TypeError(f"session_state_migrations[{step}] is not callable: {fn!r}")
    missing = [step for step in range(2, version + 1) if step not in migrations]
    if missing:
        raise ValueError(
            f"schema version {version} needs a migration for every version from 2 on; "
            f"missing: {', '.join(map(str, missing))} (use lambda state: state for a "
            "version that changes no stored data)"
        )
    return migrations


def _counter_keys(model: type[Any]) -> tuple[str, ...]:
    """The top-level fields of ``model`` annotated with :data:`COUNTER`, sorted."""
    if isinstance(model, type) and issubclass(model, BaseModel):
        marked = [k for k, f in model.model_fields.items() if COUNTER in f.metadata]
    else:
        hints = typing.get_type_hints(model, include_extras=True)
        marked = [k for k, h in hints.items() if COUNTER in getattr(_bare(h), "__metadata__", ())]
    return tuple(sorted(marked))


def _model_rules(model: type[BaseModel]) -> _Rules:
    """(required keys, extra keys forbidden, per-key validators or none) of a BaseModel."""
    fields = model.model_fields
    required = frozenset(name for name, info in fields.items() if info.is_required())
    forbid = model.model_config.get("extra") == "forbid"
    decorators = model.__pydantic_decorators__
    whole_only = (
        bool(decorators.model_validators or decorators.field_validators)
        or bool(decorators.root_validators or decorators.validators)
        or any(
            info.alias is not None
            or info.validation_alias is not None
            or info.discriminator is not None
            for info in fields.values()
        )
    )
    if whole_only or not fields:
        return required, forbid, _NO_FIELDS
    config = {k: v for k, v in model.model_config.items() if k in _FIELD_CONFIG}
    adapters = {
        name: _adapter(
            typing.Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation,
            config,
        )
        for name, info in fields.items()
    }
    return required, forbid, adapters


#: model settings that change how one field's value validates
_FIELD_CONFIG = frozenset(
    {
        "arbitrary_types_allowed",
        "use_enum_values",
        "allow_inf_nan",
        "str_strip_whitespace",
        "str_to_lower",
        "str_to_upper",
        "str_min_length",
        "str_max_length",
        "ser_json_timedelta",
    }
)


def _typeddict_rules(
    model: type[Any],
) -> tuple[frozenset[str], bool, Mapping[str, TypeAdapter[Any]]]:
    """(required keys, extra keys forbidden, per-key validators) of a TypedDict."""
    hints = typing.get_type_hints(model, include_extras=True)
    required = set(cast(frozenset[str], model.__required_keys__))
    for name, hint in hints.items():  # string annotations hide the qualifier from typing
        origin = typing_extensions.get_origin(hint)
        if origin is typing_extensions.NotRequired:
            required.discard(name)
        elif origin is typing_extensions.Required:
            required.add(name)
    config = getattr(model, "__pydantic_config__", None) or {}
    forbid = config.get("extra") == "forbid"
    adapters = {name: _adapter(_bare(hint), {}) for name, hint in hints.items()}
    return frozenset(required), forbid, adapters


def _bare(hint: Any) -> Any:
    """A TypedDict key's type without its Required / NotRequired / ReadOnly qualifier."""
    while typing_extensions.get_origin(hint) in _QUALIFIERS:
        hint = typing_extensions.get_args(hint)[0]
    return hint


_QUALIFIERS = (
    typing_extensions.Required,
    typing_extensions.NotRequired,
    typing_extensions.ReadOnly,
)


def _adapter(annotation: Any, config: Mapping[str, Any]) -> TypeAdapter[Any]:
    """A validator for one key's type (config only where pydantic accepts one)."""
    if config:
        try:
            return TypeAdapter(annotation, config=pydantic.ConfigDict(**config))  # type: ignore[typeddict-item]
        except pydantic.PydanticUserError:  # a model or TypedDict carries its own config
            pass
    return TypeAdapter(annotation)


# -- errors -------------------------------------------------------------------------


def _validate(adapter: TypeAdapter[Any], text: str, key: str | None) -> list[tuple[str, str]]:
    """The problems of one JSON text (strict), as (path, message) pairs.

    ``key``: the top-level key the text is the value of (None: the text is the whole
    state, and each error's location starts with its key).
    """
    try:
        adapter.validate_json(text, strict=True)
    except ValidationError as exc:
        problems = []
        for error in exc.errors(include_url=False):
            loc = (key, *error.get("loc", ())) if key is not None else tuple(error.get("loc", ()))
            message = error["msg"]
            if error.get("type") not in ("missing", "extra_forbidden") and "input" in error:
                message += f" (got {_short(error['input'])})"
            problems.append((_path(loc), message))
        return problems
    return []


def _top_key(path: str) -> str:
    """The top-level key a path from :func:`_path` starts with ("" for the whole state)."""
    return path.split("'", 2)[1] if path.startswith("session_state['") else ""


def _path(loc: tuple[object, ...]) -> str:
    """``session_state['tasks'][0]['id']`` for the location ('tasks', 0, 'id')."""
    return "session_state" + "".join(f"[{part!r}]" for part in loc)


def _short(value: object, limit: int = 60) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
