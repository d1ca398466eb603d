"""Settings read from the environment, in this one package and nowhere else.

Field names are the environment variable names in lower case
(``STATEBOT_ADMIN_IDS`` -> ``settings.statebot_admin_ids``). Secrets are ``SecretStr``
so they never show up in a repr or a log line; call ``.get_secret_value()`` at the
one place that hands them to an SDK.

Values also come from a ``.env`` file: ``./.env`` by default, the file named by
``STATEBOT_ENV_FILE`` (``statebot --env-file``) instead, none when that is empty. A
variable set in the real environment wins over the file.

One ``Settings`` object, its fields grouped by concern: ``platforms`` (Slack, Discord),
``storage`` (model server, stores, keys), ``chat`` (retention, admins, routing,
schedules, budgets), ``serving`` (logging, endpoints, web console); ``combined`` joins
them with the checks that span concerns, ``sources`` reads the ``.env`` file.
"""

from __future__ import annotations

from bots.settings.combined import Settings, setting_sources
from bots.settings.platforms import SLACK_BOT_SCOPES
from bots.settings.sources import ENV_FILE_VARIABLE, env_file_path

__all__ = ["ENV_FILE_VARIABLE", "SLACK_BOT_SCOPES", "Settings", "env_file_path", "setting_sources"]
