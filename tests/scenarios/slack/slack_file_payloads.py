"""``file_share`` message events as Slack delivers them (captured shape, ids replaced).

The file object is the one of slack-bolt's own ``message`` file_share scenario test
(``tests/scenario_tests_async/test_message_file_share.py``) with this suite's ids and a
``url_private`` the fake Web API serves.
"""

from __future__ import annotations

from typing import Any

from slack_payloads import ALICE, TEAM, message


def slack_file(
    file_id: str, name: str, mimetype: str, filetype: str, size: int, url: str
) -> dict[str, Any]:
    """One entry of an event's ``files``, in Slack's shape."""
    return {
        "id": file_id,
        "created": 1700000100,
        "timestamp": 1700000100,
        "name": name,
        "title": name,
        "mimetype": mimetype,
        "filetype": filetype,
        "pretty_type": filetype.upper(),
        "user": ALICE,
        "editable": False,
        "size": size,
        "mode": "hosted",
        "is_external": False,
        "external_type": "",
        "is_public": True,
        "public_url_shared": False,
        "display_as_bot": False,
        "username": "",
        "url_private": url,
        "url_private_download": url.replace(f"{TEAM}-{file_id}/", f"{TEAM}-{file_id}/download/"),
        "media_display_type": "unknown",
        "permalink": f"https://example.slack.com/files/{ALICE}/{file_id}/{name}",
        "permalink_public": f"https://slack-files.com/{TEAM}-{file_id}-faecabecf7",
        "has_rich_preview": False,
    }


def file_share(
    text: str, files: list[dict[str, Any]], *, ts: str, event_id: str = "Ev0FILES001"
) -> dict[str, Any]:
    """A ``message`` event of subtype ``file_share`` carrying ``files``."""
    body = message(text, ts=ts, event_id=event_id)
    body["event"].update(subtype="file_share", files=files, upload=False, display_as_bot=False)
    return body
