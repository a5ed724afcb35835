"""The trainer adapters against a served webshop, each driven as its trainer drives it.

TRL's side runs with TRL's own schema builder (transformers' ``get_json_schema``) and TRL's
calling sequence (see trl_grpo.py for the real GRPOTrainer). verl, SkyRL and ART are not
installed here: their calling sequences are simulated from their sources (verl's
``AgentLoopWorker._run_agent_loop``, SkyRL's ``SkyRLGymGenerator.agent_loop``, ART's rollout
examples), with a scripted policy in place of the LLM.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from types import SimpleNamespace
from typing import Any

from transformers.utils import get_json_schema

from dreamgym_client import DreamGymClient, trl_environment
from dreamgym_client.art import art_rollout
from dreamgym_client.skyrl import DreamGymTextEnv
from dreamgym_client.trl import EPISODE_OVER
from dreamgym_client.verl import DreamGymAgentLoop


def scripted_reply(conversation: str) -> str:
    """A stand-in policy: search the task, open the first product, buy it."""
    actions = conversation.rsplit("Admissible actions: ", 1)[-1].split("\n", 1)[0]
    if "click[Buy Now]" in actions:
        return "I will buy it.\nAction: click[Buy Now]"
    product = re.search(r"click\[(B[0-9A-Z]+)\]", actions)
    if product:
        return f"Action: click[{product.group(1)}]"
    task = re.findall(r"Task: (.*)", conversation)[-1]
    return "Action: search[" + " ".join(task.split()[:6]) + "]"


def expected_return(url: str, task_index: int) -> float:
    """The return the scripted policy earns on a task, played with the plain client."""
    with DreamGymClient(url) as env:
        result = env.reset(task_index)
        conversation = f"Task: {result.task.instruction}\nAdmissible actions: {', '.join(result.observation.actions)}"
        while not result.done:
            action = scripted_reply(conversation).split("Action: ")[-1]
            result = env.step(action)
            conversation = f"Task: {result.task.instruction}\nAdmissible actions: {', '.join(result.observation.actions)}"
        assert result.terminated
        return env.total_reward


# --- TRL ---------------------------------------------------------------------------------------


def test_trl_tools_come_from_the_served_templates_with_typed_documented_arguments(url: str) -> None:
    Env = trl_environment(url)
    env = Env()
    tools = {name for name, _ in inspect.getmembers(env, inspect.ismethod)} - {"reset", "get_reward"}
    assert {t for t in tools if not t.startswith("_")} == {"search", "click"}
    schema = get_json_schema(env.search)["function"]
    assert schema["name"] == "search"
    assert schema["parameters"]["properties"]["query"]["type"] == "string"
    assert schema["parameters"]["required"] == ["query"]
    assert "search[query]" in schema["description"]
    click = get_json_schema(env.click)["function"]["parameters"]["properties"]
    assert list(click) == ["label"]


def test_trl_plays_an_episode_and_ends_it_at_done(url: str) -> None:
    env = trl_environment(url, templates=["search[<query>]", "click[<target>]"])()
    prompt = env.reset(prompt=[{"role": "user", "content": ""}], task_index=3)
    assert prompt.startswith("Task: ") and "search[<query>]" in prompt
    conversation = prompt
    for _ in range(3):
        action = scripted_reply(conversation).split("Action: ")[-1]
        name, argument = re.match(r"(\w+)\[(.*)\]", action).groups()  # type: ignore[union-attr]
        conversation = prompt + "\n" + getattr(env, name)(**{"query" if name == "search" else "target": argument})
    assert "The episode is over" in conversation
    assert env.last is not None and env.last.terminated
    assert env.click(target="Buy Now") == EPISODE_OVER  # later calls leave the env alone
    assert env.get_reward() == expected_return(url, 3)


def test_trl_closes_a_rollout_that_stopped_before_its_episode(url: str) -> None:
    env = trl_environment(url)()
    env.reset(task_index=2)
    env.search(query="red mug")
    assert env.get_reward() == 0.0
    assert env.client._session is None  # the server now counts the episode as abandoned
    assert env.reset(task_index=2).startswith("Task: ")  # and the next rollout opens a new session


# --- verl --------------------------------------------------------------------------------------


class CharTokenizer:
    """A character tokenizer with a ChatML-like template and a default system prompt."""

    def apply_chat_template(self, messages: list[dict[str, Any]], add_generation_prompt: bool = False, tokenize: bool = True, **_: Any) -> list[int]:
        text = "<sys>default</sys>" + "".join(f"<{m['role']}>{m['content']}</{m['role']}>" for m in messages)
        text += "<assistant>" if add_generation_prompt else ""
        return [ord(c) for c in text]

    def decode(self, ids: list[int], skip_special_tokens: bool = True) -> str:
        return "".join(chr(i) for i in ids)


class ScriptedServerManager:
    """verl's AsyncLLMServerManager, answering with the scripted policy."""

    def __init__(self) -> None:
        self.calls = 0

    async def generate(self, request_id: str, *, prompt_ids: list[int], sampling_params: dict[str, Any], **_: Any) -> Any:
        self.calls += 1
        reply = scripted_reply("".join(chr(i) for i in prompt_ids))
        return SimpleNamespace(token_ids=[ord(c) for c in reply], log_probs=[-0.5] * len(reply))


def test_verl_agent_loop_plays_one_episode_per_sample(url: str) -> None:
    trainer_config = SimpleNamespace(config={"actor_rollout_ref": {"rollout": {"response_length": 4096}}})
    manager = ScriptedServerManager()
    # As verl's hydra.utils.instantiate does: the YAML entry's settings as keyword arguments.
    loop = DreamGymAgentLoop(
        trainer_config=trainer_config,
        server_manager=manager,
        tokenizer=CharTokenizer(),
        processor=None,
        dataset_cls=None,
        dataset_config=None,
        name="dreamgym",
        url=url,
    )
    row = {"raw_prompt": [{"role": "system", "content": "Shop."}], "extra_info": {"task_index": 3}}
    output = asyncio.run(loop.run({"temperature": 1.0}, **row))
    assert manager.calls == 3
    assert output.reward_score == expected_return(url, 3)
    assert output.extra_fields["terminated"] is True and output.extra_fields["truncated"] is False
    assert len(output.extra_fields["turn_rewards"]) == 3
    assert len(output.response_ids) == len(output.response_mask) == len(output.response_logprobs)
    generated = "".join(chr(t) for t, m in zip(output.response_ids, output.response_mask) if m)
    assert generated.count("Action: ") == 3
    shown = "".join(chr(t) for t, m in zip(output.response_ids, output.response_mask) if not m)
    assert "<sys>" not in shown and shown.startswith("<user>")  # observations as user turns, no second system prompt


# --- SkyRL -------------------------------------------------------------------------------------


def test_skyrl_text_env_follows_the_generator_s_calls(url: str) -> None:
    # As SkyRL's generator does: make(env_class, env_config=, extras=), init, step until done, close.
    env = DreamGymTextEnv(env_config={"url": url}, extras={"task_index": 3, "max_turns": 10})
    chat, metadata = env.init([{"role": "system", "content": "Shop."}])
    assert chat[-1]["role"] == "user" and metadata["task_id"]
    rewards, done = [], False
    while not done:
        out = env.step(scripted_reply(chat[-1]["content"] if chat[-1]["role"] == "user" else ""))
        rewards.append(out["reward"])
        done = out["done"]
        chat += out["observations"]
        assert set(out["metadata"]) >= {"terminated", "truncated"}
    assert out["metadata"]["terminated"] is True and out["observations"] == []
    assert sum(rewards) == expected_return(url, 3)
    assert env.get_metrics()["turns"] == 3
    env.close()


def test_skyrl_max_turns_ends_the_trajectory(url: str) -> None:
    env = DreamGymTextEnv(env_config={"url": url}, extras={"task_index": 1, "max_turns": 2})
    env.init([])
    assert env.step("search[zzz]")["done"] is False
    out = env.step("click[Next >]")
    assert out["done"] is True and out["metadata"]["terminated"] is False
    env.close()


# --- ART ---------------------------------------------------------------------------------------


class ScriptedCompletions:
    """``chat.completions.create`` of an OpenAI client, answering with tool calls."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    async def create(self, **request: Any) -> Any:
        self.requests.append(request)
        conversation = "\n".join(str(m.get("content")) for m in request["messages"])
        action = scripted_reply(conversation).split("Action: ")[-1]
        name, argument = re.match(r"(\w+)\[(.*)\]", action).groups()  # type: ignore[union-attr]
        slot = "query" if name == "search" else "label"
        call = SimpleNamespace(
            id=f"call{len(self.requests)}",
            function=SimpleNamespace(name=name, arguments=json.dumps({slot: argument})),
        )
        message = SimpleNamespace(content=None, tool_calls=[call])
        return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason="tool_calls")])


def test_art_rollout_builds_a_scored_trajectory(url: str) -> None:
    completions = ScriptedCompletions()
    client = SimpleNamespace(chat=SimpleNamespace(completions=completions))
    model = SimpleNamespace(openai_client=lambda: client, get_inference_name=lambda: "policy")
    trajectory = asyncio.run(art_rollout(model, url, task_index=3, trajectory_type=SimpleNamespace))
    assert trajectory.reward == expected_return(url, 3)
    assert trajectory.metrics["terminated"] == 1 and trajectory.metrics["steps"] == 3
    assert trajectory.metadata["task_id"] and trajectory.metadata["episode_id"]
    assert [t["function"]["name"] for t in trajectory.tools] == ["search", "click"]
    assert completions.requests[0]["model"] == "policy"
    roles = [m["role"] if isinstance(m, dict) else "choice" for m in trajectory.messages_and_choices]
    assert roles == ["system", "user", "choice", "tool", "choice", "tool", "choice", "tool"]
