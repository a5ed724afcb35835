"""TRL's ``GRPOTrainer(environment_factory=...)`` over a served env.

TRL (1.13) makes one instance per rollout (pooled and reused across batches), calls
``reset(**row)`` before generation and appends the string it returns to the prompt's last user
message, offers the instance's public methods as tools (their schemas built from the methods'
signatures and Google-style docstrings), keeps generating while the model calls tools (up to
``max_tool_calling_iterations``), then calls ``get_reward()`` once per rollout. TRL has no notion
of an episode's end: the adapter stops stepping the env at ``done`` and answers every later tool
call with "the episode is over" without touching the env.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

from .actions import ActionTemplate, render_result, templates_of
from .client import DreamGymClient, Protocol
from .discovery import describe
from .results import StepResult

EPISODE_OVER = "The episode is over: do not call any more tools."


class DreamGymToolEnv:
    """The base of the classes :func:`trl_environment` makes; its tools are added per server.

    Attributes:
        client: The session this instance plays its episodes in.
    """

    url: str = ""
    protocol: Protocol = "openenv"
    token: str | None = None
    templates: tuple[ActionTemplate, ...] = ()
    task_index_column: str = "task_index"

    def __init__(self) -> None:
        self.client = DreamGymClient(self.url, protocol=self.protocol, token=self.token)

    def reset(self, **row: Any) -> str:
        """Starts an episode: the task at the row's ``task_index`` if it has one, else the
        server's next (its curriculum's, in groups). An earlier episode left unfinished is
        abandoned on the server. Returns the first observation, appended to the prompt."""
        task_index = row.get(self.task_index_column)
        result = self.client.reset(None if task_index is None else int(task_index))
        return f"Task: {result.task.instruction}\n{render_result(result)}"

    def get_reward(self) -> float:
        """The episode's return (the sum of its step rewards), once per rollout. A rollout that
        ended before its episode did (the model stopped calling tools) closes the session: the
        server counts that episode as abandoned now, not at the next reset."""
        if self.client.last is not None and not self.client.last.done:
            self.client.close()
        return self.client.total_reward

    def _act(self, action: str) -> str:
        last = self.client.last
        if last is None or last.done:
            return EPISODE_OVER
        return render_result(self.client.step(action))

    @property
    def last(self) -> StepResult | None:
        """The episode's latest result: ``terminated``, ``truncated`` and ``info`` as the server sent them."""
        return self.client.last


def _tool(template: ActionTemplate) -> Callable[..., str]:
    """The method a template becomes: one typed ``str`` argument, a Google-style docstring."""

    def tool(self: DreamGymToolEnv, **arguments: str) -> str:
        if set(arguments) != {template.slot}:
            raise TypeError(f"{template.name} takes one argument, {template.slot}: got {sorted(arguments)}.")
        return self._act(template.render(arguments[template.slot]))

    tool.__name__ = tool.__qualname__ = template.name
    tool.__doc__ = (
        f"{template.description}\n\n"
        f"Args:\n    {template.slot}: {template.slot_description}\n\n"
        "Returns:\n    The new observation, the admissible actions, and whether the episode is over."
    )
    tool.__annotations__ = {template.slot: str, "return": str}
    tool.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
            inspect.Parameter(template.slot, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=str),
        ],
        return_annotation=str,
    )
    return tool


def trl_environment(
    url: str,
    *,
    protocol: Protocol = "openenv",
    token: str | None = None,
    templates: Sequence[str] | None = None,
    name: str = "DreamGymEnv",
) -> type[DreamGymToolEnv]:
    """A class to pass as ``GRPOTrainer(environment_factory=...)``, one tool per action template.

    Args:
        url: The server, ``http://HOST:PORT``.
        protocol: ``openenv`` (a WebSocket session per instance) or ``agentgym``.
        token: The server's ``--token``, if any.
        templates: Action templates such as ``["search[<query>]", "click[<target>]"]``; default
            the ones the server's description names (``GET /openenv/metadata``), or the one
            verbatim tool ``act(action)`` when it names none.
        name: The class name; TRL logs the env's reward under it (``rewards/<name>/mean``).
    """
    found = templates_of(templates) if templates else list(describe(url, token).templates)
    attributes: dict[str, Any] = {
        "url": url,
        "protocol": protocol,
        "token": token,
        "templates": tuple(found),
        "__doc__": f"A served env at {url}, with tools {', '.join(t.name for t in found)}.",
    }
    attributes.update({t.name: _tool(t) for t in found})
    return type(name, (DreamGymToolEnv,), attributes)
