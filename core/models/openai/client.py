"""What every OpenAI model adapter shares: settings, credentials, one client per loop.

``OpenAIChat`` (Chat Completions) and ``OpenAIResponses`` (the Responses API) differ
only in the endpoint they call and the wire format they translate; how they find the
server, authenticate, time out, retry and report failures is decided here, once.

Credentials and the base URL are resolved when the first call is made, not when the
object is built, so an agent can be defined before the environment is set.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from typing import Any
from urllib.parse import urlsplit

import openai

from core.exceptions import ModelError
from core.models.base import Model
from core.models.env import DEFAULT_MODEL_ID, openai_credentials
from core.models.openai.errors import ErrorContext

_DEFAULT_HOST = "api.openai.com"

#: a loop's client with the api key and base URL it was built with
_LoopClient = tuple[openai.AsyncOpenAI, str, str | None]


class OpenAIModel(Model):
    """A model reached through the official ``openai`` client (subclasses pick the API)."""

    name = "OpenAIModel"
    provider = "OpenAI"
    #: the API's name in error messages ("… is not valid <api> data")
    api_name = "OpenAI"

    def __init__(
        self,
        id: str = DEFAULT_MODEL_ID,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        temperature: float | None = None,
        max_tokens: int | None = None,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        self.id = id
        self.api_key = api_key
        self.base_url = base_url
        self.timeout = timeout
        self.max_retries = max_retries
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.extra_body = extra_body
        # httpx connection pools belong to the loop that opened them, and the sync API
        # runs on its own background loop, so each loop gets its own client.
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopClient]
        self._clients = weakref.WeakKeyDictionary()
        self._clients_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={self.id!r}, base_url={self.base_url!r})"

    async def aclose(self) -> None:
        """Close the HTTP client of the running event loop, if one was opened."""
        loop = asyncio.get_running_loop()
        with self._clients_lock:
            entry = self._clients.pop(loop, None)
        if entry is not None:
            await entry[0].close()

    def _client(self) -> tuple[openai.AsyncOpenAI, ErrorContext]:
        """This loop's client, and the context its errors are reported with."""
        api_key, base_url = self._credentials()
        ctx = ErrorContext(
            model_id=self.id,
            host=urlsplit(base_url).netloc if base_url else _DEFAULT_HOST,
            timeout=self.timeout,
            max_retries=self.max_retries,
            api_key=api_key,
            api_name=self.api_name,
        )
        if api_key is None:
            raise ModelError(
                f"model {self.id!r} has no API key: set OPENAI_API_KEY, or OPENAI_BASE_URL "
                "to use a local OpenAI-compatible server (Ollama, vLLM, LM Studio)"
            )
        loop = asyncio.get_running_loop()
        with self._clients_lock:
            entry = self._clients.get(loop)
            # rebuilt when the environment changed since the last call on this loop
            if entry is None or entry[1:] != (api_key, base_url):
                client = openai.AsyncOpenAI(
                    api_key=api_key,
                    base_url=base_url,
                    timeout=self.timeout,
                    max_retries=self.max_retries,
                )
                entry = (client, api_key, base_url)
                self._clients[loop] = entry
        return entry[0], ctx

    def _credentials(self) -> tuple[str | None, str | None]:
        """(api key, base URL): this model's arguments first, then the environment."""
        return openai_credentials(self.api_key, self.base_url)


async def post_plain(
    client: openai.AsyncOpenAI,
    path: str,
    params: dict[str, Any],
    *,
    cast_to: type[Any],
    stream_cls: type[openai.AsyncStream[Any]],
    stream: bool = False,
) -> Any:
    """An endpoint's ``create`` without its parameter transform: the client's own post.

    ``chat.completions.create`` and ``responses.create`` walk every message, input
    item and tool schema through the client's TypedDict transform, which renames
    aliased keys and formats dates and files. Their parameters have none of those,
    and the adapters build plain JSON, so the walk changes nothing; on a short turn it
    was the largest single cost (bench/README.md, "Measured-cheap tools and the model
    call"). The request is otherwise ``create``'s: the same path, body, bearer auth,
    retries, timeout, errors and response types (``extra_body`` merged into the body).
    """
    options: openai.RequestOptions = {"security": {"bearer_auth": True}}
    if "extra_body" in params:
        params = dict(params)
        options["extra_json"] = params.pop("extra_body")
    return await client.post(
        path, body=params, cast_to=cast_to, options=options, stream=stream, stream_cls=stream_cls
    )
