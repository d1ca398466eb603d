"""Tool hooks as middleware: ``hook(function_name, function_call, arguments, ...)``.

The first hook is outermost. A hook proceeds by calling ``function_call(**arguments)``
(possibly with changed arguments), short-circuits by returning without calling it, or
raises. Hooks and tools receive injected values (``session_state``, ``run_context``,
``agent``, ...) by parameter name, exactly as tools do.

Sync code runs off the event loop (but a tool declared or measured cheap, with no sync
hook around it, see :mod:`core.tools.inline`): a chain of only sync parts runs as a whole on
a worker thread (:mod:`core.tools.workers`), a sync tool under async hooks runs on one,
and a sync hook around async code runs on one while its ``function_call`` hands the
inner layers back to the loop. Cancelling the chain (a timeout) cancels the async
parts, abandons the threads, and refuses any later ``function_call`` from them.

Generator tools (sync or async) are drained where they run — a sync generator on its
worker thread, an async one on the loop — and what they yielded, joined as text as
Agno does, is the tool's result; so hooks around them see that text, never a
generator object.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from core.tools.function import Function
from core.tools.inline import failed
from core.tools.workers import run_in_worker


def _wants(fn: Callable[..., object]) -> tuple[frozenset[str], bool]:
    """Parameter names a callable accepts, and whether it takes **kwargs."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: call it bare
        return frozenset(), False
    names = frozenset(p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))
    return names, any(p.kind is p.VAR_KEYWORD for p in params)


def call_with(fn: Callable[..., Any], available: Mapping[str, Any]) -> Any:
    """Call ``fn`` with the values whose names it declares (all of them for **kwargs)."""
    names, takes_all = _wants(fn)
    kwargs = dict(available) if takes_all else {k: v for k, v in available.items() if k in names}
    return fn(**kwargs)


async def run_tool_chain(
    function: Function,
    arguments: dict[str, Any],
    hooks: Sequence[Callable[..., Any]],
    injected: Mapping[str, Any],
    *,
    inline: bool,
) -> Any:
    """Run the hooks around the tool, keeping sync code off the event loop.

    ``inline``: the sync tool runs on the loop (``Function.runs_inline``, asked once by
    the caller, whose choice of live state or private copy depends on the same answer).
    """
    tool_kwargs = {k: v for k, v in injected.items() if k in function.injected}

    def call_tool_sync(**args: Any) -> Any:
        result = function.entrypoint(**args, **tool_kwargs)
        return join_chunks(result) if inspect.isgenerator(result) else result

    measured = function.inline is None and not function.is_async
    on_worker = function.inline_record.timed(call_tool_sync) if measured else call_tool_sync
    any_async = inline or function.is_async or any(inspect.iscoroutinefunction(h) for h in hooks)
    if not any_async:
        sync_chain: Callable[..., Any] = on_worker
        for hook in reversed(hooks):
            sync_chain = _sync_layer(hook, function.name, sync_chain, injected)
        return await settle(await run_in_worker(sync_chain, **arguments))

    async def call_tool_async(**args: Any) -> Any:
        if function.is_async:
            return await settle(function.entrypoint(**args, **tool_kwargs))
        if inline and measured:  # on the loop while it stays cheap
            return await settle(_on_loop(function, call_tool_sync, args))
        if inline:  # declared: on the loop, no worker thread, no hop there and back
            return await settle(call_tool_sync(**args))
        return await settle(await run_in_worker(on_worker, **args))

    chain: Callable[..., Any] = call_tool_async
    for hook in reversed(hooks):
        chain = _async_layer(hook, function.name, chain, injected)
    return await chain(**arguments)


def _on_loop(function: Function, call: Callable[..., Any], args: dict[str, Any]) -> Any:
    """A measured-cheap tool's call on the loop, timed: one that fails or runs long demotes it."""
    started = time.perf_counter()
    try:
        result = call(**args)
    except BaseException as exc:
        seconds = time.perf_counter() - started
        function.inline_record.ran_on_loop(function.name, seconds, failed=failed(exc))
        raise
    function.inline_record.ran_on_loop(function.name, time.perf_counter() - started, failed=False)
    return result


def join_chunks(chunks: Iterable[object]) -> str:
    """What a generator tool yielded, as one text (Agno joins ``str(chunk)``)."""
    return "".join(str(chunk) for chunk in chunks)


async def settle(result: Any) -> Any:
    """Await a coroutine and drain an async generator; other values pass through."""
    if inspect.isasyncgen(result):
        async with contextlib.aclosing(result) as chunks:  # closed on cancel too
            return join_chunks([chunk async for chunk in chunks])
    return await result if inspect.isawaitable(result) else result


def _sync_layer(
    hook: Callable[..., Any], name: str, inner: Callable[..., Any], injected: Mapping[str, Any]
) -> Callable[..., Any]:
    def layer(**args: Any) -> Any:
        return call_with(
            hook, {**injected, "function_name": name, "function_call": inner, "arguments": args}
        )

    return layer


def _async_layer(
    hook: Callable[..., Any], name: str, inner: Callable[..., Any], injected: Mapping[str, Any]
) -> Callable[..., Any]:
    async def layer(**args: Any) -> Any:
        if inspect.iscoroutinefunction(hook):
            values = {**injected, "function_name": name, "function_call": inner, "arguments": args}
            return await call_with(hook, values)
        # A sync hook around async code runs in a worker thread; its function_call
        # hands the inner async layer back to this loop and waits for it.
        loop = asyncio.get_running_loop()
        bridged: list[concurrent.futures.Future[Any]] = []
        abandoned = threading.Event()

        def bridge(**inner_args: Any) -> Any:
            if abandoned.is_set():
                raise concurrent.futures.CancelledError(f"{name}: the call was abandoned")
            future = asyncio.run_coroutine_threadsafe(inner(**inner_args), loop)
            bridged.append(future)
            return future.result()

        values = {**injected, "function_name": name, "function_call": bridge, "arguments": args}
        try:
            return await run_in_worker(call_with, hook, values)
        except asyncio.CancelledError:
            abandoned.set()  # the hook's thread may go on, but it reaches the tool no more
            for future in bridged:
                future.cancel()
            raise

    return layer
