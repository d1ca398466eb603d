"""Settings read from the environment, in this one package and nowhere else.

Field names are the environment variable names in lower case
(``STATEBOT_ADMIN_IDS`` -> ``settings.statebot_admin_ids``). Secrets are ``SecretStr``
so they never show up in a repr or a log line; call ``.get_secret_value()`` at the
one place that hands them to an SDK.

Values also come from a ``.env`` file: ``./.env`` by default, the file named by
``STATEBOT_ENV_FILE`` (``statebot --env-file``) instead, none when that is empty. A
variable set in the real environment wins over the file.

One ``Settings`` object for the neutral settings, its fields grouped by concern:
``storage`` (model server, stores, keys), ``chat`` (retention, admins, routing,
schedules, budgets), ``serving`` (logging, endpoints, shutdown, web console);
``combined`` joins them with the checks that span concerns. A platform's own
settings (tokens, secrets, its options) are a class in its adapter's folder
(``bots/adapters/<name>/settings.py``) read the same way: ``env`` holds the one way of
reading (:class:`EnvSettings`), ``sources`` the ``.env`` file and the value forms,
``problems`` a refused value in one line naming the variable and its source.
"""

from __future__ import annotations

from bots.settings.combined import Settings
from bots.settings.env import EnvSettings, setting_sources
from bots.settings.problems import settings_class_of, settings_problems
from bots.settings.sources import ENV_FILE_VARIABLE, blank_is_unset, env_file_path, split_list

__all__ = [
    "ENV_FILE_VARIABLE",
    "EnvSettings",
    "Settings",
    "blank_is_unset",
    "env_file_path",
    "setting_sources",
    "settings_class_of",
    "settings_problems",
    "split_list",
]
