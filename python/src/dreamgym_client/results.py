"""What a served env answers: the observation, the task, and one step's result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class Task:
    """The task an episode pursues.

    Attributes:
        instruction: The task in words, as the policy reads it.
        id: The served env's task id (e.g. ``webshop/0-1000/753``); ``None`` over AgentGym's
            protocol, which does not send it.
    """

    instruction: str
    id: str | None = None


@dataclass(frozen=True)
class Observation:
    """What the policy sees after a reset or a step.

    Attributes:
        text: The page or scene as text (for ``webshop``, one element per line with clickables
            in brackets).
        instruction: The task in words.
        actions: The admissible actions as the env lists them. An entry may be a template whose
            ``<slot>`` the policy fills in, e.g. ``search[<query>]``.
    """

    text: str
    instruction: str
    actions: tuple[str, ...] = ()


@dataclass(frozen=True)
class StepResult:
    """One answer of a served env, to a reset or a step.

    Attributes:
        observation: What the policy sees now.
        reward: This step's reward; 0.0 for a reset.
        terminated: The episode reached an end of its own (a purchase, a goal reached).
        truncated: The episode was cut short (the served env's step limit).
        info: The step info the server sent: ``invalidAction`` (why an action was refused; the
            state stays as it was and the reward is 0) and what the env adds (a synthetic env's
            ``reasoning``). For a reset, ``episode_id`` and ``task_id`` when the protocol sends
            them.
        task: The episode's task.
        episode_id: The server's id of the episode (its recorded trajectory's id), when the
            protocol sends it (OpenEnv's does, AgentGym's does not).
    """

    observation: Observation
    reward: float
    terminated: bool
    truncated: bool
    task: Task
    info: Mapping[str, Any] = field(default_factory=dict)
    episode_id: str | None = None

    @property
    def done(self) -> bool:
        """The episode is over: terminated or truncated. Reset before stepping again."""
        return self.terminated or self.truncated
