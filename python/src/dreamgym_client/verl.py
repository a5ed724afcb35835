"""A verl agent loop over a served env (``verl.experimental.agent_loop``).

verl instantiates an agent loop per sample from ``agent_loop_config_path``, a YAML list whose
entries name the class and its settings (passed to the constructor)::

    - name: dreamgym
      _target_: dreamgym_client.verl.DreamGymAgentLoop
      url: http://127.0.0.1:36001
      max_turns: 15

and calls ``await loop.run(sampling_params, **row)`` with the dataset row (``raw_prompt``,
``extra_info``; a row's ``extra_info.task_index`` picks the task, else the server's curriculum
does). Select it per row with ``agent_name: dreamgym``. The loop resets the env, puts the first
observation in the prompt, then alternates generation (``server_manager.generate``) and env
steps; generated tokens have mask 1, observation tokens mask 0. It sets ``reward_score`` itself
(the episode's return), so verl's reward function is not called for these samples.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence
from uuid import uuid4

from .actions import ActionTemplate, action_from_text, render_result, templates_of
from .client import AsyncDreamGymClient, Protocol
from .discovery import describe


@dataclass
class AgentLoopResult:
    """The fields of verl's ``AgentLoopOutput``, for where verl is not installed."""

    prompt_ids: list[int]
    response_ids: list[int]
    response_mask: list[int]
    response_logprobs: list[float] | None = None
    reward_score: float | None = None
    num_turns: int = 0
    metrics: dict[str, Any] = field(default_factory=dict)
    extra_fields: dict[str, Any] = field(default_factory=dict)


def _output(**fields: Any) -> Any:
    """verl's ``AgentLoopOutput`` when verl is installed, else an :class:`AgentLoopResult`."""
    try:
        from verl.experimental.agent_loop.agent_loop import AgentLoopMetrics, AgentLoopOutput
    except ImportError:
        return AgentLoopResult(**fields)
    return AgentLoopOutput(**{**fields, "metrics": AgentLoopMetrics(**fields["metrics"])})


def _setting(config: Any, path: str, default: Any) -> Any:
    """``config.a.b.c`` of verl's trainer config, or ``default`` where it is missing."""
    for key in path.split("."):
        config = config.get(key) if isinstance(config, dict) else getattr(config, key, None)
        if config is None:
            return default
    return config


class DreamGymAgentLoop:
    """One episode of a served env per sample, as a verl agent loop.

    Args:
        trainer_config: verl's ``DictConfigWrap`` of the trainer config (its
            ``actor_rollout_ref.rollout.response_length`` caps the response).
        server_manager: verl's ``AsyncLLMServerManager``: ``await generate(request_id,
            prompt_ids=, sampling_params=)`` answering ``token_ids`` (and ``log_probs``).
        tokenizer: The policy's tokenizer (``apply_chat_template``, ``decode``).
        url: The server, ``http://HOST:PORT`` (from the agent loop YAML).
        protocol, token: How to reach it.
        templates: Action templates; default those the server's description names.
        max_turns: Model turns at most; an episode still running then is abandoned.

    What verl sees: ``reward_score`` is the episode's return; ``extra_fields`` has
    ``terminated``, ``truncated``, ``task_id``, ``episode_id``, ``turn_rewards`` and the last
    step's ``info`` (verl keeps extra fields in the batch's non-tensor data).
    """

    def __init__(
        self,
        trainer_config: Any = None,
        server_manager: Any = None,
        tokenizer: Any = None,
        processor: Any = None,
        *,
        url: str,
        protocol: Protocol = "openenv",
        token: str | None = None,
        templates: Sequence[str] | None = None,
        max_turns: int = 30,
        **_verl_settings: Any,
    ) -> None:
        self.config = getattr(trainer_config, "config", trainer_config)
        self.server_manager = server_manager
        self.tokenizer = tokenizer
        self.url, self.protocol, self.token = url, protocol, token
        self.templates: list[ActionTemplate] = (
            templates_of(templates) if templates else list(describe(url, token).templates)
        )
        self.max_turns = max_turns
        self.response_length = int(_setting(self.config, "actor_rollout_ref.rollout.response_length", 1024))

    async def run(self, sampling_params: dict[str, Any], **row: Any) -> Any:
        """Plays one episode; returns verl's ``AgentLoopOutput``."""
        messages = list(row.get("raw_prompt") or [])
        task_index = (row.get("extra_info") or {}).get("task_index")
        request_id = uuid4().hex
        response_ids: list[int] = []
        mask: list[int] = []
        logprobs: list[float] = []
        turn_rewards: list[float] = []
        turns = 0
        async with AsyncDreamGymClient(self.url, protocol=self.protocol, token=self.token) as env:
            result = await env.reset(task_index)
            messages.append({"role": "user", "content": f"Task: {result.task.instruction}\n{render_result(result)}"})
            prompt_ids = self._chat_ids(messages, system=True)
            while not result.done and turns < self.max_turns and len(mask) < self.response_length:
                out = await self.server_manager.generate(
                    request_id=request_id, prompt_ids=prompt_ids + response_ids, sampling_params=sampling_params
                )
                turns += 1
                response_ids += out.token_ids
                mask += [1] * len(out.token_ids)
                logprobs += list(out.log_probs or [0.0] * len(out.token_ids))
                reply = self.tokenizer.decode(out.token_ids, skip_special_tokens=True)
                result = await env.step(action_from_text(reply, self.templates))
                turn_rewards.append(result.reward)
                if not result.done:
                    observation = self._chat_ids([{"role": "user", "content": render_result(result)}], system=False)
                    response_ids += observation
                    mask += [0] * len(observation)
                    logprobs += [0.0] * len(observation)
            total = env.total_reward
        return _output(
            prompt_ids=prompt_ids,
            response_ids=response_ids[: self.response_length],
            response_mask=mask[: self.response_length],
            response_logprobs=logprobs[: self.response_length] or None,
            reward_score=total,
            num_turns=2 * turns + 1,
            metrics={},
            extra_fields={
                "terminated": result.terminated,
                "truncated": result.truncated,
                "task_id": result.task.id,
                "episode_id": result.episode_id,
                "turn_rewards": turn_rewards,
                "info": dict(result.info),
            },
        )

    def _chat_ids(self, messages: list[dict[str, Any]], *, system: bool) -> list[int]:
        """Token ids of ``messages`` with the generation prompt; without the template's default
        system prompt for a turn appended mid-conversation."""
        ids = list(self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True))
        if system:
            return ids
        prefix = self._system_prefix()
        return ids[len(prefix) :] if prefix and ids[: len(prefix)] == prefix else ids

    def _system_prefix(self) -> list[int]:
        """What a template puts before the first user turn (a default system prompt): one empty
        user turn rendered, less the length one more such turn adds."""
        turn = {"role": "user", "content": ""}
        one = list(self.tokenizer.apply_chat_template([turn], tokenize=True))
        two = list(self.tokenizer.apply_chat_template([turn, turn], tokenize=True))
        return one[: len(one) - (len(two) - len(one))]
