"""Customer records kept by a tool hook (seed 000).

The tool ``process_customer_request`` is only a declaration the model can call; the
hook ``customer_management_hook`` intercepts every call to it and does the work on
``session_state["customer_profiles"]``. This shows a hook short-circuiting a tool and
changing state itself.

When the request is wrong (no customer id, an unknown customer, an unknown action,
creating an id that exists) the hook raises. The runtime then gives the model an
error result and undoes whatever that call changed, so a half-done request never
reaches the store.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from core.exceptions import ToolRefusedError
from core.utils.log import log_info

STATE_KEY = "customer_profiles"
TOOL_NAME = "process_customer_request"
ACTIONS: tuple[str, ...] = ("create", "retrieve")


class CustomerRequestError(ToolRefusedError):
    """A customer request the hook refuses; the model sees the message."""


def customer_management_hook(
    session_state: dict[str, Any],
    function_name: str,
    function_call: Callable[..., Any],
    arguments: dict[str, Any],
) -> Any:
    """Handle ``process_customer_request`` on the session state; pass other tools through."""
    if function_name != TOOL_NAME:
        return function_call(**arguments)
    action = str(arguments.get("action") or "retrieve").strip().lower()
    customer_id = str(arguments.get("customer_id") or "").strip()
    if not customer_id:
        raise CustomerRequestError("customer_id is required.")
    if action == "create":
        return _create(session_state, customer_id, arguments.get("name"))
    if action == "retrieve":
        return _retrieve(session_state, customer_id)
    raise CustomerRequestError(f"Unknown action '{action}'. Use one of: {', '.join(ACTIONS)}.")


def _create(session_state: dict[str, Any], customer_id: str, name: object) -> str:
    clean_name = " ".join(str(name or "").split())
    if not clean_name:
        raise CustomerRequestError(f"A name is required to create customer {customer_id}.")
    profiles = session_state.setdefault(STATE_KEY, {})
    if customer_id in profiles:
        # refusing keeps the existing profile; overwriting would lose it silently
        raise CustomerRequestError(
            f"Customer {customer_id} already exists: {json.dumps(profiles[customer_id])}."
        )
    profiles[customer_id] = {"name": clean_name}
    log_info("customer hook: created customer", customer_id=customer_id)
    return f"Success! Customer {customer_id} has been created."


def _retrieve(session_state: dict[str, Any], customer_id: str) -> str:
    profiles = session_state.get(STATE_KEY) or {}
    profile = profiles.get(customer_id)
    if profile is None:
        known = ", ".join(sorted(profiles)) or "none yet"
        raise CustomerRequestError(f"Customer '{customer_id}' not found. Known customers: {known}.")
    log_info("customer hook: found customer", customer_id=customer_id)
    return f"Profile for {customer_id}: {json.dumps(profile)}"
