"""Customer records' session state as a type (``session_state_schema`` of its agent):
profiles by customer id. Keys and profile fields it does not name are kept unchecked."""

from __future__ import annotations

from pydantic import BaseModel, Field

#: the schema version of the state the code writes
SCHEMA_VERSION = 1


class CustomerProfile(BaseModel):
    """One customer's profile, as the hook creates it."""

    name: str = Field(min_length=1)


class CustomerState(BaseModel):
    """Profiles under ``customer_profiles`` (tools.customers.hook.STATE_KEY)."""

    customer_profiles: dict[str, CustomerProfile] = {}
