"""An ART (OpenPipe) rollout over a served env: one episode as an ``art.Trajectory``.

ART's loop is the user's: ``gather_trajectory_groups`` of rollouts, then ``model.train``. A
rollout asks the model (``model.openai_client()``, ``model.get_inference_name()``) for the next
action with the env's action templates as tools, steps the env until ``done`` or ``max_turns``,
and scores the trajectory with the episode's return.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Sequence

from .actions import ActionTemplate, action_from_text, render_result, templates_of, tool_schemas
from .client import AsyncDreamGymClient, Protocol
from .discovery import describe

SYSTEM_PROMPT = (
    "You act in a text environment. Each turn, call exactly one tool to take one action; "
    "the reply shows the new observation and the admissible actions."
)


def _trajectory_type() -> Callable[..., Any]:
    try:
        import art
    except ImportError as error:
        raise ImportError(
            "art_rollout builds an art.Trajectory: install ART (pip install openpipe-art), or pass "
            "trajectory_type= a class taking messages_and_choices, tools, reward, metrics, metadata."
        ) from error
    return art.Trajectory


async def art_rollout(
    model: Any,
    url: str,
    *,
    task_index: int | None = None,
    protocol: Protocol = "openenv",
    token: str | None = None,
    templates: Sequence[str] | None = None,
    max_turns: int = 30,
    system_prompt: str = SYSTEM_PROMPT,
    completion_kwargs: dict[str, Any] | None = None,
    trajectory_type: Callable[..., Any] | None = None,
) -> Any:
    """Plays one episode of the served env with ``model`` and returns it as an ``art.Trajectory``.

    Args:
        model: An ``art.Model`` (or anything with ``openai_client()`` and ``get_inference_name()``).
        url: The server, ``http://HOST:PORT``.
        task_index: The task's index in the served split; ``None`` takes the server's next (its
            curriculum hands a group's rollouts one task when its group size is the group's).
        templates: Action templates; default those the server's description names.
        max_turns: Model calls at most; an episode still running then is abandoned (the session
            closes) and scored with its return so far.
        completion_kwargs: Passed on to ``chat.completions.create`` (``max_tokens``, ``temperature``).
        trajectory_type: What to build; default ``art.Trajectory``.

    What ART sees: ``reward`` is the episode's return; ``metrics`` has ``terminated``,
    ``truncated`` (as 0/1), ``steps`` and ``invalid_actions``; ``metadata`` has ``task_id``,
    ``episode_id`` and ``instruction``. Step info other than refused actions is not kept.
    """
    make = trajectory_type or _trajectory_type()
    found: list[ActionTemplate] = templates_of(templates) if templates else list(describe(url, token).templates)
    by_name = {t.name: t for t in found}
    tools = tool_schemas(found)
    client_of_model = model.openai_client()
    messages: list[Any] = [{"role": "system", "content": system_prompt}]
    steps = invalid = 0
    async with AsyncDreamGymClient(url, protocol=protocol, token=token) as env:
        result = await env.reset(task_index)
        messages.append({"role": "user", "content": f"Task: {result.task.instruction}\n{render_result(result)}"})
        for _ in range(max_turns):
            if result.done:
                break
            completion = await client_of_model.chat.completions.create(
                model=model.get_inference_name(),
                messages=[_as_message(m) for m in messages],
                tools=tools,
                **(completion_kwargs or {}),
            )
            choice = completion.choices[0]
            messages.append(choice)
            calls = choice.message.tool_calls or []
            if not calls:
                result = await env.step(action_from_text(choice.message.content or "", found))
                steps += 1
                invalid += "invalidAction" in result.info
                messages.append({"role": "user", "content": render_result(result)})
                continue
            for call in calls:
                if result.done:
                    reply = "The episode is over."
                else:
                    result = await env.step(_action_of_call(call, by_name))
                    steps += 1
                    invalid += "invalidAction" in result.info
                    reply = render_result(result)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": reply})
        return make(
            messages_and_choices=messages,
            tools=tools,
            reward=env.total_reward,
            metrics={
                "terminated": int(result.terminated),
                "truncated": int(result.truncated),
                "steps": steps,
                "invalid_actions": invalid,
            },
            metadata={
                "task_id": result.task.id,
                "episode_id": result.episode_id,
                "instruction": result.task.instruction,
            },
        )


def _action_of_call(call: Any, by_name: dict[str, ActionTemplate]) -> str:
    """The text action a tool call names; a malformed call is sent as is, for the env to refuse."""
    name = call.function.name
    try:
        arguments = json.loads(call.function.arguments or "{}")
        template = by_name[name]
        return template.render(str(arguments[template.slot]))
    except (ValueError, KeyError, TypeError):
        return f"{name}({call.function.arguments})"


def _as_message(message_or_choice: Any) -> Any:
    """A chat message; an OpenAI ``Choice`` becomes its assistant message, as ART's ``messages()`` does."""
    if isinstance(message_or_choice, dict):
        return message_or_choice
    message = message_or_choice.message
    out: dict[str, Any] = {"role": "assistant", "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.function.name, "arguments": c.function.arguments},
            }
            for c in message.tool_calls
        ]
    return out
