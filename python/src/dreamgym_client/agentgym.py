"""AgentGym's WebShop HTTP protocol as `dreamgym serve` speaks it at ``/``.

A session is an ``env_idx`` int from ``POST /create``; ``POST /reset`` names the task by its
index in the served split (``session_id``; none takes the server's curriculum's next), ``POST
/step`` answers ``{state, reward, done, info}`` with ``info.terminated`` and ``info.truncated``
apart, ``GET /available_actions`` lists the admissible actions (``available_actions``) and
``POST /close`` ends the session. The protocol sends no task id and no episode id.
"""

from __future__ import annotations

from typing import Any

import httpx

from .errors import ConnectionFailed, ServerError
from .openenv import auth_headers
from .results import Observation, StepResult, Task

INSTRUCTION_PREFIX = "Instruction: "


def checked(response: httpx.Response) -> Any:
    """The JSON answer, or the server's ``{detail}`` raised as a :class:`ServerError`."""
    if response.is_success:
        return response.json()
    try:
        detail = response.json().get("detail", response.text)
    except ValueError:
        detail = response.text
    raise ServerError(response.status_code, str(detail))


def reset_body(env_idx: int, task_index: int | None) -> dict[str, Any]:
    """The ``/reset`` body: ``session_id`` is the task index, left out for the server's next."""
    return {"env_idx": env_idx, **({"session_id": task_index} if task_index is not None else {})}


def instruction_of(answer: str) -> str:
    """The task from ``/instruction_text``'s ``Instruction: …``."""
    return answer[len(INSTRUCTION_PREFIX) :] if answer.startswith(INSTRUCTION_PREFIX) else answer


def reset_result(text: str, instruction: str, actions: dict[str, Any]) -> StepResult:
    """A reset's result from its page, instruction and ``/available_actions`` answer."""
    observation = Observation(text, instruction, tuple(actions.get("available_actions", ())))
    return StepResult(observation, 0.0, False, False, Task(instruction))


def step_result(step: dict[str, Any], task: Task, actions: dict[str, Any]) -> StepResult:
    """A step's result from its ``/step`` and ``/available_actions`` answers."""
    info: dict[str, Any] = dict(step.get("info") or {})
    terminated = bool(info.pop("terminated", False))
    truncated = bool(info.pop("truncated", False))
    if step.get("done") and not (terminated or truncated):
        terminated = True  # a server that sends `done` alone, as WebShop's does
    observation = Observation(
        step["state"], task.instruction, tuple(actions.get("available_actions", ()))
    )
    return StepResult(observation, float(step.get("reward") or 0.0), terminated, truncated, task, info)


class AgentGymSession:
    """A blocking AgentGym HTTP session (one ``env_idx``), created on construction."""

    def __init__(self, url: str, token: str | None, timeout: float) -> None:
        self._url = url
        self._http = httpx.Client(
            base_url=url.rstrip("/"), headers=auth_headers(token), timeout=timeout
        )
        try:
            self.env_idx: int = checked(self._http.post("/create"))
        except httpx.TransportError as error:
            self._http.close()
            raise ConnectionFailed(url, error) from error

    def _get(self, path: str) -> Any:
        return checked(self._http.get(path, params={"env_idx": self.env_idx}))

    def reset(self, task_index: int | None) -> StepResult:
        """Starts an episode of task ``task_index`` (or the server's next)."""
        text = checked(self._http.post("/reset", json=reset_body(self.env_idx, task_index)))[0]
        instruction = instruction_of(self._get("/instruction_text"))
        return reset_result(text, instruction, self._get("/available_actions"))

    def step(self, action: str, task: Task) -> StepResult:
        """Applies one text action."""
        step = checked(self._http.post("/step", json={"env_idx": self.env_idx, "action": action}))
        return step_result(step, task, self._get("/available_actions"))

    def close(self) -> None:
        """Ends the session on the server, then the connection."""
        try:
            self._http.post("/close", json={"env_idx": self.env_idx})
        finally:
            self._http.close()


class AsyncAgentGymSession:
    """An asyncio AgentGym HTTP session; :meth:`open` creates it."""

    def __init__(self, http: httpx.AsyncClient, env_idx: int) -> None:
        self._http = http
        self.env_idx = env_idx

    @classmethod
    async def open(cls, url: str, token: str | None, timeout: float) -> AsyncAgentGymSession:
        """Creates a session on the server at ``url``."""
        http = httpx.AsyncClient(base_url=url.rstrip("/"), headers=auth_headers(token), timeout=timeout)
        try:
            env_idx = checked(await http.post("/create"))
        except httpx.TransportError as error:
            await http.aclose()
            raise ConnectionFailed(url, error) from error
        return cls(http, env_idx)

    async def _get(self, path: str) -> Any:
        return checked(await self._http.get(path, params={"env_idx": self.env_idx}))

    async def reset(self, task_index: int | None) -> StepResult:
        """Starts an episode of task ``task_index`` (or the server's next)."""
        body = reset_body(self.env_idx, task_index)
        text = checked(await self._http.post("/reset", json=body))[0]
        instruction = instruction_of(await self._get("/instruction_text"))
        return reset_result(text, instruction, await self._get("/available_actions"))

    async def step(self, action: str, task: Task) -> StepResult:
        """Applies one text action."""
        body = {"env_idx": self.env_idx, "action": action}
        step = checked(await self._http.post("/step", json=body))
        return step_result(step, task, await self._get("/available_actions"))

    async def close(self) -> None:
        """Ends the session on the server, then the connection."""
        try:
            await self._http.post("/close", json={"env_idx": self.env_idx})
        finally:
            await self._http.aclose()
