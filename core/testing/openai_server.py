"""FakeOpenAIServer: a local OpenAI-compatible HTTP server that plays scripted replies.

It is a real HTTP server on ``127.0.0.1`` (port 0, a background thread), so the real
``openai`` client, sync or async, talks to it exactly as it would to OpenAI, Ollama
or vLLM. Turns use the ScriptedModel vocabulary, plus failures::

    with FakeOpenAIServer([
        tool_call("add_item", item="milk"),                        # one tool call
        [tool_call("add_item", item="eggs"), tool_call("add_item", item="jam")],
        HTTPFailure(500),                                          # retried by the client
        "Added milk, eggs and jam.",                               # final text
    ]) as server:
        model = OpenAIChat(base_url=server.base_url, api_key="test")
        ...
        assert server.requests[0]["messages"][0]["role"] == "system"

A turn may also be a callable ``(request_json) -> turn``. Requests with
``"stream": true`` are answered as server-sent events: text split over several
chunks, each tool call's arguments split over several chunks, a final chunk with
the finish reason, a usage chunk when asked for, then ``data: [DONE]``.

``POST /v1/responses`` (the Responses API, ``OpenAIResponses``) plays the same script
in that API's shapes (:mod:`core.testing.responses_wire`): output items, and when
streamed its typed events ending in ``response.completed`` with the usage.
``server.paths`` records which endpoint each request went to.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from core.models.base import ModelResponse, ToolCall
from core.testing.openai_wire import completion_json, sse_events
from core.testing.responses_wire import response_events, response_json, sse_frames

CHAT_PATH = "/v1/chat/completions"
RESPONSES_PATH = "/v1/responses"


@dataclass(frozen=True, slots=True)
class HTTPFailure:
    """Answer with an HTTP error; ``retry_after`` (seconds) is sent as ``retry-after``.

    The small default keeps clients that retry (500, 429 and 408 are retried) fast
    in tests; ``None`` sends no header, so the client uses its own backoff.
    """

    status: int = 500
    message: str | None = None  # default: says which scripted status this was
    retry_after: float | None = 0.001

    def text(self) -> str:
        """The error message the server sends."""
        if self.message is not None:
            return self.message
        if self.status == 429:
            return "rate limit reached (scripted)"
        return f"scripted HTTP {self.status} error"


@dataclass(frozen=True, slots=True)
class Delayed:
    """Wait ``seconds`` before answering with ``then`` (longer than the client timeout)."""

    seconds: float
    then: ServerTurn = ""


@dataclass(frozen=True, slots=True)
class MalformedBody:
    """Answer 200 with a body that is not valid Chat Completions JSON."""

    body: str = '{"choices": [ this is not json'


ServerTurn = (
    str | ToolCall | Sequence[ToolCall] | ModelResponse | HTTPFailure | Delayed | MalformedBody
)
TurnFactory = Callable[[dict[str, Any]], ServerTurn]


class FakeOpenAIServer:
    """Serves ``POST /v1/chat/completions`` and ``/v1/responses`` from one script.

    Every request is recorded (``requests``, ``headers``, ``paths``)."""

    def __init__(
        self,
        turns: Sequence[ServerTurn | TurnFactory] = (),
        *,
        api_key: str | None = None,
    ) -> None:
        """``api_key``: when set, requests without ``Bearer <api_key>`` get HTTP 401."""
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        self._turns: list[ServerTurn | TurnFactory] = list(turns)
        self._next = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self._connections: set[socket.socket] = set()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        """Bind a free port on 127.0.0.1 and serve in a background thread."""
        if self._httpd is not None:
            return self
        self._stopping.clear()
        httpd = _Server(("127.0.0.1", 0), _Handler)
        httpd.fake = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            daemon=True,
            name="fake-openai-server",
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake delayed replies and close open connections."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        httpd.server_close()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``, what ``OPENAI_BASE_URL`` should be."""
        if self._httpd is None:
            raise RuntimeError("FakeOpenAIServer is not running; call start() first")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    # -- script ------------------------------------------------------------------

    def extend(self, turns: Sequence[ServerTurn | TurnFactory]) -> None:
        """Append more turns to the script."""
        with self._lock:
            self._turns.extend(turns)

    @property
    def remaining(self) -> int:
        """Turns not yet served."""
        return len(self._turns) - self._next

    def _record(self, path: str, request: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append(request)
            self.headers.append(headers)
            self.paths.append(path)

    def _take_turn(self) -> ServerTurn | TurnFactory | None:
        with self._lock:
            if self._next >= len(self._turns):
                return None
            turn = self._turns[self._next]
            self._next += 1
        return turn

    def _track(self, conn: socket.socket, open_: bool) -> None:
        with self._lock:
            if open_:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)

    def _new_id(self, prefix: str = "chatcmpl-fake-") -> str:
        return f"{prefix}{next(self._ids)}"


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a reply still being delayed must not block stop()
    fake: FakeOpenAIServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the client's connection pool expects
    # headers and body go out as separate writes; without TCP_NODELAY each reply on a
    # kept-alive connection waits ~40 ms for the client's delayed ACK
    disable_nagle_algorithm = True
    server: _Server

    @property
    def fake(self) -> FakeOpenAIServer:
        return self.server.fake

    def setup(self) -> None:
        super().setup()
        self.fake._track(self.connection, True)

    def finish(self) -> None:
        self.fake._track(self.connection, False)
        # the client may be gone already (it timed out, or the server is stopping)
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests read ``server.requests`` instead of access logs."""

    def do_POST(self) -> None:
        try:
            self._serve()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _serve(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path = self.path.rstrip("/")
        if path not in (CHAT_PATH, RESPONSES_PATH):
            return self._error(
                404, f"no route for {self.path}; serves {CHAT_PATH}, {RESPONSES_PATH}"
            )
        try:
            request = json.loads(body)
        except ValueError:
            return self._error(400, "request body is not JSON")
        headers = {k.lower(): v for k, v in self.headers.items()}
        fake = self.fake
        fake._record(path, request, headers)
        if fake.api_key is not None and headers.get("authorization") != f"Bearer {fake.api_key}":
            # echoes the key it was given, as some servers do: callers must mask it
            given = headers.get("authorization", "").removeprefix("Bearer ")
            return self._error(401, f"Incorrect API key provided: {given}", retry=False)
        turn: Any = fake._take_turn()
        if turn is None:
            return self._error(500, "FakeOpenAIServer has no scripted reply left", retry=False)
        if callable(turn):
            try:
                turn = turn(request)
            except Exception as exc:
                return self._error(500, f"turn factory raised {exc!r}", retry=False)
        while isinstance(turn, Delayed):
            if fake._stopping.wait(turn.seconds):
                self.close_connection = True
                return None
            turn = turn.then
        if isinstance(turn, HTTPFailure):
            return self._error(turn.status, turn.text(), retry_after=turn.retry_after)
        streaming = bool(request.get("stream"))
        if isinstance(turn, MalformedBody):
            text = f"data: {turn.body}\n\n" if streaming else turn.body
            return self._send(200, text.encode(), _content_type(streaming))
        try:
            response = _as_response(turn)
        except TypeError as exc:
            return self._error(500, str(exc), retry=False)
        if path == RESPONSES_PATH:
            id = fake._new_id("fake")
            if streaming:
                return self._send_stream(sse_frames(response_events(id, request, response)))
            answer = response_json(id, request, response)
        else:
            id = fake._new_id()
            if streaming:
                chunks = sse_events(id, request, response)
                return self._send_stream(f"data: {chunk}\n\n" for chunk in chunks)
            answer = completion_json(id, request, response)
        return self._send(200, json.dumps(answer).encode(), "application/json")

    def _error(
        self, status: int, message: str, *, retry_after: float | None = None, retry: bool = True
    ) -> None:
        payload = {"error": {"message": message, "type": "fake_server_error", "code": status}}
        extra = {"retry-after": f"{retry_after:g}"} if retry_after is not None else {}
        if not retry:
            extra["x-should-retry"] = "false"
        self._send(status, json.dumps(payload).encode(), "application/json", extra)

    def _send(
        self, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _send_stream(self, frames: Iterator[str]) -> None:
        """Send whole SSE frames (``data: …\\n\\n``) as they are made, chunk-encoded."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for frame in frames:
            data = frame.encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def _as_response(turn: Any) -> ModelResponse:
    if isinstance(turn, ModelResponse):
        return turn
    if isinstance(turn, str):
        return ModelResponse(content=turn)
    if isinstance(turn, ToolCall):
        return ModelResponse(tool_calls=(turn,))
    if isinstance(turn, Sequence) and all(isinstance(c, ToolCall) for c in turn):
        return ModelResponse(tool_calls=tuple(turn))
    raise TypeError(f"FakeOpenAIServer cannot serve the turn {turn!r}")


def _content_type(streaming: bool) -> str:
    return "text/event-stream" if streaming else "application/json"
