"""The customer hook on plain dicts: create, retrieve, pass-through and refusals."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tools.customers import (
    CustomerDBTools,
    CustomerHookMissingError,
    CustomerRequestError,
    customer_management_hook,
)


def _never_called(**_: Any) -> str:
    raise AssertionError("the hook must not call the tool for process_customer_request")


def _call(state: dict[str, Any], **arguments: Any) -> Any:
    return customer_management_hook(state, "process_customer_request", _never_called, arguments)


def test_create_adds_profile() -> None:
    """action=create stores {name} under the id and reports success."""
    state: dict[str, Any] = {"customer_profiles": {"123": {"name": "Jane Doe"}}}
    assert _call(state, customer_id="789", action="create", name="Tom") == (
        "Success! Customer 789 has been created."
    )
    assert state["customer_profiles"] == {"123": {"name": "Jane Doe"}, "789": {"name": "Tom"}}


def test_create_on_state_without_profiles_creates_the_key() -> None:
    """A state with no customer_profiles key gets one on the first create."""
    state: dict[str, Any] = {}
    _call(state, customer_id="1", action="create", name="Ann")
    assert state == {"customer_profiles": {"1": {"name": "Ann"}}}


def test_retrieve_returns_profile_json() -> None:
    """action=retrieve (the default) returns the profile as JSON and changes nothing."""
    state = {"customer_profiles": {"123": {"name": "Jane Doe"}}}
    assert _call(state, customer_id="123") == 'Profile for 123: {"name": "Jane Doe"}'
    assert state == {"customer_profiles": {"123": {"name": "Jane Doe"}}}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"action": "retrieve"}, "customer_id is required"),
        ({"customer_id": "  ", "action": "create", "name": "X"}, "customer_id is required"),
        ({"customer_id": "999"}, "Customer '999' not found. Known customers: 123."),
        ({"customer_id": "123", "action": "delete"}, "Unknown action 'delete'"),
        ({"customer_id": "5", "action": "create"}, "A name is required to create customer 5"),
        (
            {"customer_id": "123", "action": "create", "name": "Other"},
            "Customer 123 already exists",
        ),
    ],
)
def test_bad_requests_raise_and_change_nothing(arguments: dict[str, Any], message: str) -> None:
    """Each bad request raises a CustomerRequestError with a clear message; state is untouched."""
    state = {"customer_profiles": {"123": {"name": "Jane Doe"}}}
    before = copy.deepcopy(state)
    with pytest.raises(CustomerRequestError, match=message):
        _call(state, **arguments)
    assert state == before


def test_other_tools_pass_through_unchanged() -> None:
    """Calls to any other tool go straight to the tool with the same arguments."""
    seen: list[dict[str, Any]] = []

    def other(**kwargs: Any) -> str:
        seen.append(kwargs)
        return "other ran"

    state: dict[str, Any] = {}
    assert customer_management_hook(state, "list_items", other, {"x": 1}) == "other ran"
    assert seen == [{"x": 1}]
    assert state == {}


def test_toolkit_exposes_one_tool_with_action_choices() -> None:
    """CustomerDBTools offers process_customer_request with action limited to create/retrieve."""
    toolkit = CustomerDBTools()
    function = toolkit.functions["process_customer_request"]
    assert list(toolkit.functions) == ["process_customer_request"]
    assert function.parameters["required"] == ["customer_id"]
    assert function.parameters["properties"]["action"]["enum"] == ["create", "retrieve"]


def test_toolkit_without_hook_raises_clear_error() -> None:
    """Calling the tool body directly (no hook installed) says the hook is missing."""
    with pytest.raises(CustomerHookMissingError, match="customer_management_hook"):
        CustomerDBTools().process_customer_request("1")
