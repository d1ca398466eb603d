"""Merging state: deep merge for run arguments, JSON Merge Patch for agentic updates."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """A new dict: ``override`` wins; dicts recurse, lists and scalars replace."""
    merged: dict[str, Any] = copy.deepcopy(dict(base))
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def apply_merge_patch(target: dict[str, Any], patch: Mapping[str, Any]) -> None:
    """Apply an RFC 7386 JSON Merge Patch in place: objects merge, ``None`` deletes."""
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        elif isinstance(value, Mapping):
            current = target.get(key)
            if not isinstance(current, dict):
                current = {}
                target[key] = current
            apply_merge_patch(current, value)
        else:
            target[key] = copy.deepcopy(value)
