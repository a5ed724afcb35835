"""OpenEnv's WebSocket protocol as `dreamgym serve` speaks it at ``/openenv/ws``.

One connection is one server session. Messages ``{"type": "reset"|"step"|"close", "data"}`` are
answered in order with ``{"type": "observation", "data": {observation, reward, done,
metadata}}`` or ``{"type": "error", "data": {message, code}}``. ``metadata`` carries the step
info with ``terminated`` and ``truncated`` apart (``done`` is either).
"""

from __future__ import annotations

import asyncio
import json
from contextlib import AsyncExitStack, ExitStack
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection as AsyncConnection
from websockets.asyncio.client import connect as async_connect
from websockets.sync.client import ClientConnection, connect

from .errors import ConnectionFailed, ServerError
from .results import Observation, StepResult, Task


def websocket_url(url: str) -> str:
    """The ``ws(s)://HOST:PORT/openenv/ws`` URL of a server at ``url`` (with or without ``/openenv``)."""
    parts = urlsplit(url)
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    path = parts.path.rstrip("/")
    if not path.endswith("/openenv"):
        path += "/openenv"
    return urlunsplit((scheme, parts.netloc, path + "/ws", "", ""))


def reset_message(task_index: int | None, seed: int | None) -> str:
    """A reset message: the task at ``task_index`` of the served split, or the server's next."""
    data: dict[str, Any] = {}
    if task_index is not None:
        data["task_index"] = task_index
    if seed is not None:
        data["seed"] = seed
    return json.dumps({"type": "reset", "data": data})


def step_message(action: str) -> str:
    """A step message carrying one text action."""
    return json.dumps({"type": "step", "data": {"action": action}})


CLOSE_MESSAGE = json.dumps({"type": "close"})


def parse_answer(raw: str | bytes, previous: StepResult | None) -> StepResult:
    """The result an answer carries, or the server's error raised as a :class:`ServerError`.

    ``previous`` is the episode's result so far, whose task and episode id a step's answer does
    not repeat; a reset's answer (``previous`` None) names its own.
    """
    message = json.loads(raw)
    data = message.get("data") or {}
    if message.get("type") == "error":
        raise ServerError(data.get("code", "error"), data.get("message", str(data)))
    if message.get("type") != "observation":
        raise ServerError("UNEXPECTED", f"expected an observation, got {message!r}")
    fields = data["observation"]
    metadata: dict[str, Any] = dict(data.get("metadata") or {})
    observation = Observation(
        text=fields["text"],
        instruction=fields["instruction"],
        actions=tuple(fields.get("actions") or ()),
    )
    if previous is None:
        task = Task(instruction=observation.instruction, id=metadata.get("task_id"))
        episode_id = metadata.get("episode_id")
    else:
        task, episode_id = previous.task, previous.episode_id
    return StepResult(
        observation=observation,
        reward=float(data.get("reward") or 0.0),
        terminated=bool(metadata.pop("terminated", False)),
        truncated=bool(metadata.pop("truncated", False)),
        task=task,
        info=metadata,
        episode_id=episode_id,
    )


def auth_headers(token: str | None) -> dict[str, str]:
    """The bearer header of a server started with ``--token``."""
    return {"Authorization": f"Bearer {token}"} if token else {}


class OpenEnvSession:
    """A blocking OpenEnv WebSocket session: one server session, opened on connect."""

    def __init__(self, url: str, token: str | None, timeout: float) -> None:
        self._timeout = timeout
        self._stack = ExitStack()
        try:
            self._ws: ClientConnection = self._stack.enter_context(
                connect(websocket_url(url), additional_headers=auth_headers(token), open_timeout=timeout)
            )
        except OSError as error:
            raise ConnectionFailed(url, error) from error

    def send(self, message: str, previous: StepResult | None) -> StepResult:
        """Sends one message and returns its answer's result (see :func:`parse_answer`)."""
        self._ws.send(message)
        return parse_answer(self._ws.recv(timeout=self._timeout), previous)

    def close(self) -> None:
        """Ends the session: the server closes it (and its episode) and hangs up."""
        try:
            self._ws.send(CLOSE_MESSAGE)
        except Exception:  # noqa: BLE001 - already closed: nothing left to end
            pass
        self._stack.close()


class AsyncOpenEnvSession:
    """An asyncio OpenEnv WebSocket session; :meth:`open` connects."""

    def __init__(self, ws: AsyncConnection, stack: AsyncExitStack, timeout: float) -> None:
        self._ws = ws
        self._stack = stack
        self._timeout = timeout

    @classmethod
    async def open(cls, url: str, token: str | None, timeout: float) -> AsyncOpenEnvSession:
        """Connects to the server at ``url``: the server opens a session for this connection."""
        stack = AsyncExitStack()
        try:
            ws = await stack.enter_async_context(
                async_connect(websocket_url(url), additional_headers=auth_headers(token), open_timeout=timeout)
            )
        except OSError as error:
            raise ConnectionFailed(url, error) from error
        return cls(ws, stack, timeout)

    async def send(self, message: str, previous: StepResult | None) -> StepResult:
        """Sends one message and returns its answer's result (see :func:`parse_answer`)."""
        await self._ws.send(message)
        return parse_answer(await asyncio.wait_for(self._ws.recv(), self._timeout), previous)

    async def close(self) -> None:
        """Ends the session: the server closes it (and its episode) and hangs up."""
        try:
            await self._ws.send(CLOSE_MESSAGE)
        except Exception:  # noqa: BLE001 - already closed: nothing left to end
            pass
        await self._stack.aclose()
