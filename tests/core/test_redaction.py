"""One redaction list for dumps, logs and error messages."""

from __future__ import annotations

import pytest

from core.redaction import REDACTED, is_sensitive, redact, redact_text

SECRET_KEYS = [
    "password",
    "Password",
    "db_passwd",
    "pwd",
    "userPwd",
    "passphrase",
    "secret",
    "client_secret",
    "clientSecret",
    "SLACK_SIGNING_SECRET",
    "token",
    "access_token",
    "refresh-token",
    "idToken",
    "jwt",
    "session_jwt",
    "api_key",
    "api-key",
    "apikey",
    "apiKey",
    "x-api-key",
    "X-Api-Key",
    "authorization",
    "Authorization",
    "auth",
    "auth_header",
    "proxy-authorization",
    "private_key",
    "private-key",
    "privateKey",
    "aws_access_key_id",
    "AWS_SECRET_ACCESS_KEY",
    "cookie",
    "session_cookie",
    "Set-Cookie",
    "credential",
    "credentials",
    "gcpCredentials",
    "bearer",
]

PLAIN_KEYS = [
    "author",
    "authors",
    "session_id",
    "user_id",
    "title",
    "tasks",
    "keyboard",
    "monkey",
    "passenger",
    "event",
    "version",
]


@pytest.mark.parametrize("key", SECRET_KEYS)
def test_common_credential_names_are_sensitive(key: str) -> None:
    """Credential names match whatever their case and separators (-, _, camelCase)."""
    assert is_sensitive(key)


@pytest.mark.parametrize("key", PLAIN_KEYS)
def test_ordinary_names_are_not_sensitive(key: str) -> None:
    """Words that only contain a short credential word (author, keyboard) stay visible."""
    assert not is_sensitive(key)


def test_substring_words_err_on_the_side_of_hiding() -> None:
    """Long credential words match inside other words: hiding too much beats leaking."""
    assert is_sensitive("secretary_name")


def test_redact_masks_at_any_depth_and_copies() -> None:
    """Sensitive keys are masked in nested dicts and lists; the input is untouched."""
    state = {"cfg": [{"Api-Key": "k", "host": "h"}], "authorization": "Bearer x", "n": 1}
    assert redact(state) == {
        "cfg": [{"Api-Key": REDACTED, "host": "h"}],
        "authorization": REDACTED,
        "n": 1,
    }
    assert state["authorization"] == "Bearer x"


def test_redact_takes_extra_patterns() -> None:
    """Extra fnmatch patterns add to the built-in list, never replace it."""
    assert redact({"pin": 1, "password": 2, "x": 3}, extra=["p?n"]) == {
        "pin": REDACTED,
        "password": REDACTED,
        "x": 3,
    }


@pytest.mark.parametrize(
    ("text", "leak"),
    [
        ("bad config {'password': 'hunter2', 'host': 'h'}", "hunter2"),
        ('{"api_key": "sk-123", "n": 1}', "sk-123"),
        ("token=abc123&user=me", "abc123"),
        ("Authorization: Bearer eyJhbGciOi.x.y", "eyJhbGciOi"),
        ("x-api-key: sk-live-9", "sk-live-9"),
        ("connect to postgresql://bot:s3cr3t@db:5432/x failed", "s3cr3t"),
        ("redis://:p%40ss@cache:6379/0 refused", "p%40ss"),
        ("AWS_SECRET_ACCESS_KEY=wJalr/XUtn", "wJalr/XUtn"),
    ],
)
def test_redact_text_masks_secrets_inside_messages(text: str, leak: str) -> None:
    """Error and log text keeps its shape but loses credential values."""
    masked = redact_text(text)
    assert leak not in masked
    assert REDACTED in masked or "***" in masked


def test_redact_text_leaves_ordinary_text_alone() -> None:
    """Text without credentials comes back unchanged."""
    text = "session 'slack:T1:C1' is at version 3, not 2: author=ann, n: 4"
    assert redact_text(text) == text
