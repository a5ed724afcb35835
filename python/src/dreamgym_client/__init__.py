"""A client for envs served by ``dreamgym serve`` and adapters for the trainers people use.

- :class:`DreamGymClient` / :class:`AsyncDreamGymClient`: one session, over OpenEnv's WebSocket
  protocol (default) or AgentGym's HTTP one; ``reset(task_index=None)``, ``step(action)``,
  ``close()``, typed :class:`StepResult`.
- :func:`trl_environment`: a class for TRL's ``GRPOTrainer(environment_factory=...)``.
- :class:`dreamgym_client.verl.DreamGymAgentLoop`: a verl agent loop.
- :class:`dreamgym_client.skyrl.DreamGymTextEnv`: a SkyRL ``BaseTextEnv``.
- :func:`dreamgym_client.art.art_rollout`: an ART rollout.

The adapters import their framework only where they need it (and only if it is installed).
"""

from .actions import ActionTemplate, action_from_text, render_result, templates_of, tool_schemas
from .client import AsyncDreamGymClient, DreamGymClient, Protocol
from .discovery import ServedEnv, describe
from .errors import (
    ConnectionFailed,
    DreamGymClientError,
    EpisodeNotStarted,
    EpisodeOver,
    ServerError,
    UnknownProtocol,
)
from .results import Observation, StepResult, Task
from .trl import DreamGymToolEnv, trl_environment

__all__ = [
    "ActionTemplate",
    "AsyncDreamGymClient",
    "ConnectionFailed",
    "DreamGymClient",
    "DreamGymClientError",
    "DreamGymToolEnv",
    "EpisodeNotStarted",
    "EpisodeOver",
    "Observation",
    "Protocol",
    "ServedEnv",
    "ServerError",
    "StepResult",
    "Task",
    "UnknownProtocol",
    "action_from_text",
    "describe",
    "render_result",
    "templates_of",
    "tool_schemas",
    "trl_environment",
]
