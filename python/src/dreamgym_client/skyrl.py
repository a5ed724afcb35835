"""SkyRL's text env (``skyrl_gym``'s ``BaseTextEnv``) over a served env.

SkyRL's generator makes one env per trajectory with ``skyrl_gym.make(env_class,
env_config=..., extras=...)``, calls ``init(prompt)`` for the first chat history, then
``step(model_reply)`` until ``done``, then ``close()``. Register it in your entrypoint::

    register(id="dreamgym", entry_point="dreamgym_client.skyrl:DreamGymTextEnv")

with ``skyrl_gym.dreamgym.url`` (and ``protocol``, ``token``, ``templates``) in the config, and
optionally a ``task_index`` in each dataset row's extras (none: the server's curriculum picks).
"""

from __future__ import annotations

from typing import Any, Mapping

from .actions import action_from_text, render_result, templates_of
from .client import DreamGymClient
from .discovery import describe

try:  # SkyRL's base class when SkyRL is installed; the same contract by duck typing when not.
    from skyrl_gym.envs.base_text_env import BaseTextEnv as _Base
except ImportError:  # pragma: no cover - exercised where skyrl_gym is absent
    _Base = object  # type: ignore[assignment,misc]


def _get(config: Any, key: str, default: Any = None) -> Any:
    """A key of a dict or an OmegaConf/attribute config."""
    if isinstance(config, Mapping):
        return config.get(key, default)
    return getattr(config, key, default)


class DreamGymTextEnv(_Base):  # type: ignore[misc,valid-type]
    """One episode of a served env as a SkyRL text env.

    Args:
        env_config: ``url`` (required), ``protocol`` (``openenv``), ``token``, ``templates``
            (default: those the server's description names).
        extras: The dataset row's extras: ``task_index`` (optional), ``max_turns`` (SkyRL's).

    What SkyRL sees: ``reward`` is each step's reward (the served env pays at the end, so the
    last turn carries the return); ``done`` is ``terminated or truncated``; ``metadata`` holds
    both apart with the step info (``invalidAction``, the synthetic env's ``reasoning``).
    """

    def __init__(self, env_config: Any = None, extras: Mapping[str, Any] | None = None) -> None:
        if _Base is not object:
            super().__init__()
        extras = dict(extras or {})
        url = _get(env_config, "url")
        if not url:
            raise ValueError("DreamGymTextEnv needs env_config.url: the dreamgym server, http://HOST:PORT.")
        token = _get(env_config, "token")
        names = _get(env_config, "templates")
        self.templates = templates_of(names) if names else list(describe(url, token).templates)
        self.client = DreamGymClient(url, protocol=_get(env_config, "protocol", "openenv"), token=token)
        self.task_index: int | None = extras.get("task_index")
        self.max_turns = int(extras.get("max_turns") or 0)
        self.turns = 0

    def init(self, prompt: list[dict[str, str]]) -> tuple[list[dict[str, str]], dict[str, Any]]:
        """Resets the served env; the chat history is the prompt plus the first observation."""
        result = self.client.reset(self.task_index)
        observation = {"role": "user", "content": f"Task: {result.task.instruction}\n{render_result(result)}"}
        return [*prompt, observation], {"task_id": result.task.id, "episode_id": result.episode_id}

    def step(self, action: str) -> dict[str, Any]:
        """Plays the action the model's reply names (see :func:`action_from_text`)."""
        self.turns += 1
        result = self.client.step(action_from_text(action, self.templates))
        out_of_turns = self.max_turns > 0 and self.turns >= self.max_turns
        done = result.done or out_of_turns
        return {
            "observations": [] if done else [{"role": "user", "content": render_result(result)}],
            "reward": result.reward,
            "done": done,
            "metadata": {
                **result.info,
                "terminated": result.terminated,
                "truncated": result.truncated,
                "task_id": result.task.id,
            },
        }

    def get_metrics(self) -> dict[str, Any]:
        """The episode's return and how it ended, for SkyRL's logs."""
        last = self.client.last
        return {
            "return": self.client.total_reward,
            "terminated": bool(last and last.terminated),
            "truncated": bool(last and last.truncated),
            "turns": self.turns,
        }

    def close(self) -> None:
        """Ends the session; an episode cut short by SkyRL (``max_turns``, length) is abandoned."""
        self.client.close()
