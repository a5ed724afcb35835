"""Clients of one served env session: :class:`DreamGymClient` and :class:`AsyncDreamGymClient`."""

from __future__ import annotations

from types import TracebackType
from typing import Literal

from .agentgym import AgentGymSession, AsyncAgentGymSession
from .errors import EpisodeNotStarted, EpisodeOver, UnknownProtocol
from .openenv import AsyncOpenEnvSession, OpenEnvSession, reset_message, step_message
from .results import StepResult

Protocol = Literal["openenv", "agentgym"]
"""``openenv``: a WebSocket session at ``/openenv/ws``; ``agentgym``: AgentGym's HTTP protocol."""

DEFAULT_TIMEOUT = 120.0
"""Seconds a request may take: a synthetic env's LLM experience model can be slow."""


def _check_protocol(protocol: str) -> None:
    if protocol not in ("openenv", "agentgym"):
        raise UnknownProtocol(protocol)


class Episode:
    """The bookkeeping both clients share: the last result and the return so far."""

    def __init__(self) -> None:
        self.last: StepResult | None = None
        self.total_reward = 0.0

    def started(self, result: StepResult) -> StepResult:
        self.last, self.total_reward = result, 0.0
        return result

    def stepped(self, result: StepResult) -> StepResult:
        self.last = result
        self.total_reward += result.reward
        return result

    def check_steppable(self) -> StepResult:
        if self.last is None:
            raise EpisodeNotStarted()
        if self.last.done:
            raise EpisodeOver(self.last.terminated)
        return self.last


class DreamGymClient:
    """One session on a `dreamgym serve` server, blocking.

    The session opens on the first :meth:`reset` and lives until :meth:`close` (or the ``with``
    block's end), whatever number of episodes it plays. An episode left before it is ``done``
    (reset again, or close) is the server's to count as abandoned.

    Args:
        url: The server, ``http://HOST:PORT`` (as ``dreamgym serve`` prints it).
        protocol: ``openenv`` (default; a WebSocket session) or ``agentgym`` (HTTP; sends no
            task id or episode id).
        token: The server's ``--token``, if it was started with one.
        timeout: Seconds a request may take.

    Example::

        with DreamGymClient("http://127.0.0.1:36001") as env:
            result = env.reset()                  # the server's curriculum picks the task
            while not result.done:
                result = env.step(result.observation.actions[0])
    """

    def __init__(
        self,
        url: str,
        *,
        protocol: Protocol = "openenv",
        token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        _check_protocol(protocol)
        self.url = url
        self.protocol: Protocol = protocol
        self._token = token
        self._timeout = timeout
        self._session: OpenEnvSession | AgentGymSession | None = None
        self._episode = Episode()

    @property
    def last(self) -> StepResult | None:
        """The latest result of this session's current episode; ``None`` before the first reset."""
        return self._episode.last

    @property
    def total_reward(self) -> float:
        """The current episode's return: the sum of its step rewards."""
        return self._episode.total_reward

    def reset(self, task_index: int | None = None, *, seed: int | None = None) -> StepResult:
        """Starts an episode.

        Args:
            task_index: The task's index in the served split; ``None`` takes the task the
                server hands out next (its curriculum's, in groups, when it runs one).
            seed: The env's seed (OpenEnv's protocol only; AgentGym's has no field for it).
        """
        if self._session is None:
            self._session = self._open()
        if isinstance(self._session, OpenEnvSession):
            return self._episode.started(self._session.send(reset_message(task_index, seed), None))
        if seed is not None:
            raise ValueError("AgentGym's protocol sends no seed: use protocol='openenv' to seed resets.")
        return self._episode.started(self._session.reset(task_index))

    def step(self, action: str) -> StepResult:
        """Applies one text action, e.g. ``search[red mug]``. An invalid one leaves the state as
        it was, with reward 0 and the reason in ``info["invalidAction"]``."""
        last = self._episode.check_steppable()
        assert self._session is not None
        if isinstance(self._session, OpenEnvSession):
            result = self._session.send(step_message(action), last)
        else:
            result = self._session.step(action, last.task)
        return self._episode.stepped(result)

    def close(self) -> None:
        """Ends the session (and an unfinished episode with it). Idempotent."""
        session, self._session = self._session, None
        if session is not None:
            session.close()

    def _open(self) -> OpenEnvSession | AgentGymSession:
        if self.protocol == "openenv":
            return OpenEnvSession(self.url, self._token, self._timeout)
        return AgentGymSession(self.url, self._token, self._timeout)

    def __enter__(self) -> DreamGymClient:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


class AsyncDreamGymClient:
    """One session on a `dreamgym serve` server, for asyncio; the same contract as
    :class:`DreamGymClient`, with ``await`` (and ``async with``)."""

    def __init__(
        self,
        url: str,
        *,
        protocol: Protocol = "openenv",
        token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        _check_protocol(protocol)
        self.url = url
        self.protocol: Protocol = protocol
        self._token = token
        self._timeout = timeout
        self._session: AsyncOpenEnvSession | AsyncAgentGymSession | None = None
        self._episode = Episode()

    @property
    def last(self) -> StepResult | None:
        """The latest result of this session's current episode; ``None`` before the first reset."""
        return self._episode.last

    @property
    def total_reward(self) -> float:
        """The current episode's return: the sum of its step rewards."""
        return self._episode.total_reward

    async def reset(self, task_index: int | None = None, *, seed: int | None = None) -> StepResult:
        """Starts an episode; see :meth:`DreamGymClient.reset`."""
        if self._session is None:
            self._session = await self._open()
        if isinstance(self._session, AsyncOpenEnvSession):
            message = reset_message(task_index, seed)
            return self._episode.started(await self._session.send(message, None))
        if seed is not None:
            raise ValueError("AgentGym's protocol sends no seed: use protocol='openenv' to seed resets.")
        return self._episode.started(await self._session.reset(task_index))

    async def step(self, action: str) -> StepResult:
        """Applies one text action; see :meth:`DreamGymClient.step`."""
        last = self._episode.check_steppable()
        assert self._session is not None
        if isinstance(self._session, AsyncOpenEnvSession):
            result = await self._session.send(step_message(action), last)
        else:
            result = await self._session.step(action, last.task)
        return self._episode.stepped(result)

    async def close(self) -> None:
        """Ends the session (and an unfinished episode with it). Idempotent."""
        session, self._session = self._session, None
        if session is not None:
            await session.close()

    async def _open(self) -> AsyncOpenEnvSession | AsyncAgentGymSession:
        if self.protocol == "openenv":
            return await AsyncOpenEnvSession.open(self.url, self._token, self._timeout)
        return await AsyncAgentGymSession.open(self.url, self._token, self._timeout)

    async def __aenter__(self) -> AsyncDreamGymClient:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.close()
