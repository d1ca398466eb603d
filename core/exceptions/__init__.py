"""Every error the runtime raises on purpose, in one place (the chat layer maps them to replies).

The hierarchy::

    Exception
    ├── RunError                          a run could not complete
    │   ├── NoModelError                  free text, but no model configured
    │   ├── BudgetExceededError           a daily token or tool-call budget is used up
    │   ├── ErasureInProgressError        a run of a user whose data is being erased
    │   ├── ToolCallLimitError            too many tool-call rounds in one run
    │   ├── UnknownToolError (LookupError)    a tool name the agent does not have
    │   ├── ToolArgumentError (ValueError)    arguments that do not fit a tool
    │   ├── RunTimeoutError               the run passed its deadline (run_timeout)
    │   ├── DependencyError               a callable dependency raised
    │   ├── RouterSelectionError (ValueError) a Router selector named no step
    │   ├── ParallelStateConflictError    two Parallel branches changed one value
    │   ├── SchemaVersionError            stored state newer than the code's schema version
    │   └── StateMigrationError           a state migration raised or gave an invalid state
    ├── CredentialsUnavailableError (RuntimeError)  a store that seals nothing keeps no tokens
    ├── StoreError                        every storage error
    │   ├── StoreUnavailableError         Redis / the database cannot be reached
    │   │   ├── StoreFullError            Redis is out of memory: the write was refused
    │   │   └── OutcomeUnknownError       failed while committing: applied or not, unknown
    │   ├── StaleVersionError             saved on an old version; nothing written
    │   │   ├── LeaseLostError            the run lease expired before the save
    │   │   │   └── LeaseGoneError        ... and no run held it: expired, or evicted
    │   │   └── RedisDataLostError        Redis lost the session while a run had it open
    │   ├── LockTimeoutError              waited too long for a session's run lease
    │   │   └── SessionBusyError          too many runs already wait for the session
    │   ├── StateLimitError               a state over a configured size limit
    │   ├── InvalidIdError (ValueError)   an id no durable store can hold
    │   ├── VersionConflictError          one version number, two contents
    │   ├── StaleSnapshotError            a snapshot read before Redis restarted
    │   ├── DamagedDataError              a Redis data log with a line of no known kind
    │   ├── SessionNotFoundError (LookupError)  admin: no such session
    │   ├── VersionNotFoundError (LookupError)  admin: no such version in the history
    │   ├── ImportFileError (ValueError)  admin: an import file that cannot be used
    │   ├── ImportWriteError              admin: an import stopped at a failed write
    │   ├── RestoreSchemaError            admin: a restore whose schema version is unknown
    │   └── StateDecryptError             a stored value no configured key opens
    ├── InputCheckError                   a pre-hook refuses the run's input (run ends, ERROR)
    ├── OutputCheckError                  a post-hook refuses the run's output (ERROR)
    ├── AgentRunException                 a tool steers its run (Agno's names; not failures)
    │   ├── RetryAgentRun                 the model should try again, told why
    │   └── StopAgentRun                  the run ends after this tool call
    ├── UndoError                         an undo that cannot be done (nothing changed)
    │   ├── NothingToUndoError (LookupError)  the caller has no change left to undo
    │   └── UndoConflictError             a later change touched what undo would revert
    │       └── UndoMigratedError         the state was migrated since the change
    ├── ModelError                        the model could not answer
    │   ├── ModelTimeoutError             ... within its timeout
    │   └── ScriptExhaustedError          ScriptedModel called past its script
    └── ValueError
        ├── StateValueError               a state value that cannot be stored (not JSON)
        │   └── StateSchemaError          a state that does not fit session_state_schema
        ├── ToolRefusedError              a tool or hook refuses a call (message shown as is)
        │   └── MCPConnectionError        an MCP server cannot be reached now
        │       └── MCPConnectionRequiredError  a per-user server the user has not connected
        ├── ScheduleError                 a schedule request that cannot be accepted
        │   └── ScheduleLimitError        a session already holds its maximum of schedules
        └── EncryptionKeyError            an encryption key that is missing or malformed

Each error is defined once, in a private module by area (``_checks``, ``_control``,
``_run``, ``_storage``, ``_state``, ``_models``, ``_schedule``, ``_crypto``,
``_governance``), and imported
from here: ``core.exceptions`` is its one import path. Modules that used to define
these re-export them (``from core.db.base import StoreError`` still works and names
the same class).
"""

from __future__ import annotations

from core.exceptions._checks import CheckTrigger as CheckTrigger  # Agno's path; not an error
from core.exceptions._checks import InputCheckError, OutputCheckError
from core.exceptions._control import AgentRunException, RetryAgentRun, StopAgentRun
from core.exceptions._crypto import (
    EncryptionKeyError,
    StateDecryptError,
)
from core.exceptions._governance import (
    BudgetExceededError,
    CredentialsUnavailableError,
    ErasureInProgressError,
    ImportFileError,
    ImportWriteError,
    NothingToUndoError,
    RestoreSchemaError,
    SessionNotFoundError,
    UndoConflictError,
    UndoError,
    UndoMigratedError,
    VersionNotFoundError,
)
from core.exceptions._models import (
    ModelError,
    ModelTimeoutError,
    ScriptExhaustedError,
)
from core.exceptions._run import (
    DependencyError,
    MCPConnectionError,
    MCPConnectionRequiredError,
    NoModelError,
    ParallelStateConflictError,
    RouterSelectionError,
    RunError,
    RunTimeoutError,
    ToolArgumentError,
    ToolCallLimitError,
    ToolRefusedError,
    UnknownToolError,
)
from core.exceptions._schedule import (
    ScheduleError,
    ScheduleLimitError,
)
from core.exceptions._state import (
    SchemaVersionError,
    StateMigrationError,
    StateSchemaError,
    StateValueError,
)
from core.exceptions._storage import (
    DamagedDataError,
    InvalidIdError,
    LeaseGoneError,
    LeaseLostError,
    LockTimeoutError,
    OutcomeUnknownError,
    RedisDataLostError,
    SessionBusyError,
    StaleSnapshotError,
    StaleVersionError,
    StateLimitError,
    StoreError,
    StoreFullError,
    StoreUnavailableError,
    VersionConflictError,
)

__all__ = [
    "AgentRunException",
    "BudgetExceededError",
    "CredentialsUnavailableError",
    "DamagedDataError",
    "DependencyError",
    "EncryptionKeyError",
    "ErasureInProgressError",
    "ImportFileError",
    "ImportWriteError",
    "InputCheckError",
    "InvalidIdError",
    "LeaseGoneError",
    "LeaseLostError",
    "LockTimeoutError",
    "MCPConnectionError",
    "MCPConnectionRequiredError",
    "ModelError",
    "ModelTimeoutError",
    "NoModelError",
    "NothingToUndoError",
    "OutcomeUnknownError",
    "OutputCheckError",
    "ParallelStateConflictError",
    "RedisDataLostError",
    "RestoreSchemaError",
    "RetryAgentRun",
    "RouterSelectionError",
    "RunError",
    "RunTimeoutError",
    "ScheduleError",
    "ScheduleLimitError",
    "SchemaVersionError",
    "ScriptExhaustedError",
    "SessionBusyError",
    "SessionNotFoundError",
    "StaleSnapshotError",
    "StaleVersionError",
    "StateDecryptError",
    "StateLimitError",
    "StateMigrationError",
    "StateSchemaError",
    "StateValueError",
    "StopAgentRun",
    "StoreError",
    "StoreFullError",
    "StoreUnavailableError",
    "ToolArgumentError",
    "ToolCallLimitError",
    "ToolRefusedError",
    "UndoConflictError",
    "UndoError",
    "UndoMigratedError",
    "UnknownToolError",
    "VersionConflictError",
    "VersionNotFoundError",
]
