"""The client against a served webshop, over both protocols, sync and async."""

from __future__ import annotations

import asyncio

import pytest

from dreamgym_client import (
    AsyncDreamGymClient,
    ConnectionFailed,
    DreamGymClient,
    EpisodeNotStarted,
    EpisodeOver,
    ServerError,
    describe,
)

PROTOCOLS = ["openenv", "agentgym"]


def buy_first_result(env: DreamGymClient) -> None:
    """Search the task's words, open the first product, buy it."""
    first = env.last
    assert first is not None
    results = env.step("search[" + " ".join(first.task.instruction.split()[:6]) + "]")
    product = next(a for a in results.observation.actions if a.startswith("click[B0"))
    env.step(product)
    env.step("click[Buy Now]")


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_an_episode_from_reset_to_its_end(url: str, protocol: str) -> None:
    with DreamGymClient(url, protocol=protocol) as env:
        first = env.reset(task_index=3)
        assert first.observation.actions == ("search[<query>]",)
        assert first.task.instruction in first.observation.text
        assert first.reward == 0.0 and not first.done
        buy_first_result(env)
        last = env.last
        assert last is not None and last.terminated and not last.truncated and last.done
        assert last.task == first.task and last.episode_id == first.episode_id
        assert env.total_reward == pytest.approx(last.reward)
        with pytest.raises(EpisodeOver):
            env.step("click[Buy Now]")


def test_openenv_names_the_task_and_episode_agentgym_does_not(url: str) -> None:
    with DreamGymClient(url) as openenv, DreamGymClient(url, protocol="agentgym") as agentgym:
        a, b = openenv.reset(task_index=5), agentgym.reset(task_index=5)
    assert a.task.instruction == b.task.instruction
    assert a.task.id is not None and a.episode_id is not None
    assert b.task.id is None and b.episode_id is None


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_step_limit_truncates(url: str, protocol: str) -> None:
    with DreamGymClient(url, protocol=protocol) as env:
        env.reset(task_index=1)
        result = env.step("search[anything]")
        while not result.done:
            result = env.step("click[Next >]" if "click[Next >]" in result.observation.actions else "click[Back to Search]")
        assert result.truncated and not result.terminated


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_an_invalid_action_is_refused_with_its_reason(url: str, protocol: str) -> None:
    with DreamGymClient(url, protocol=protocol) as env:
        first = env.reset(task_index=0)
        result = env.step("click[nothing like this]")
    assert "nothing like this" in result.info["invalidAction"]
    assert result.observation.text == first.observation.text and result.reward == 0.0


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_resets_without_an_index_take_the_curriculum_s_groups(url: str, protocol: str) -> None:
    with DreamGymClient(url, protocol=protocol) as a, DreamGymClient(url, protocol=protocol) as b:
        tasks = [a.reset().task.instruction, b.reset().task.instruction]
        tasks += [a.reset().task.instruction, b.reset().task.instruction]
    assert tasks[0] == tasks[1] and tasks[2] == tasks[3]  # groups of 2 share a task


def test_errors_name_the_problem(url: str) -> None:
    with DreamGymClient(url) as env:
        with pytest.raises(EpisodeNotStarted):
            env.step("search[mug]")
        with pytest.raises(ServerError) as refused:
            env.reset(task_index=10_000)
        assert "9999" in refused.value.detail
    with pytest.raises(ConnectionFailed, match="dreamgym serve"):
        DreamGymClient("http://127.0.0.1:9").reset()
    with DreamGymClient(url, protocol="agentgym") as env, pytest.raises(ValueError, match="openenv"):
        env.reset(seed=1)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_async_client_plays_the_same_episode(url: str, protocol: str) -> None:
    async def play() -> tuple[str, float, bool]:
        async with AsyncDreamGymClient(url, protocol=protocol) as env:
            first = await env.reset(task_index=3)
            results = await env.step("search[" + " ".join(first.task.instruction.split()[:6]) + "]")
            product = next(a for a in results.observation.actions if a.startswith("click[B0"))
            await env.step(product)
            last = await env.step("click[Buy Now]")
            return first.task.instruction, env.total_reward, last.terminated

    with DreamGymClient(url, protocol=protocol) as env:
        env.reset(task_index=3)
        buy_first_result(env)
        expected = (env.last.task.instruction, env.total_reward, True)  # type: ignore[union-attr]
    assert asyncio.run(play()) == expected


def test_describe_reads_the_templates_the_env_names(url: str) -> None:
    served = describe(url)
    assert served.name == "webshop"
    assert [(t.name, t.slot) for t in served.templates] == [("search", "query"), ("click", "label")]
