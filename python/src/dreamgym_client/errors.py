"""Errors of the dreamgym client, each naming the problem and its fix."""

from __future__ import annotations


class DreamGymClientError(Exception):
    """Base class of every error this package raises."""


class ServerError(DreamGymClientError):
    """The server refused a request; ``detail`` is its own explanation (it names the fix).

    Attributes:
        status: The HTTP status (400 bad request, 401 token, 404 unknown session, 409 wrong
            episode phase, 503 server full), or OpenEnv's WebSocket error code
            (``VALIDATION_ERROR``, ``EXECUTION_ERROR``, ``CAPACITY_REACHED``, ...).
        detail: The server's message.
    """

    def __init__(self, status: int | str, detail: str) -> None:
        super().__init__(f"the dreamgym server answered {status}: {detail}")
        self.status = status
        self.detail = detail


class ConnectionFailed(DreamGymClientError):
    """The server could not be reached at the URL given."""

    def __init__(self, url: str, cause: BaseException) -> None:
        super().__init__(
            f"cannot reach a dreamgym server at {url} ({cause}): start one with "
            "`dreamgym serve --env NAME --port PORT` and pass its URL (http://HOST:PORT)."
        )


class EpisodeNotStarted(DreamGymClientError):
    """A step or a read came before the first reset."""

    def __init__(self) -> None:
        super().__init__("no episode yet: call reset() before step().")


class EpisodeOver(DreamGymClientError):
    """A step came after the episode ended (``done``)."""

    def __init__(self, terminated: bool) -> None:
        ending = "terminated" if terminated else "was truncated"
        super().__init__(f"the episode {ending}: call reset() to start another before stepping.")


class UnknownProtocol(DreamGymClientError):
    """A protocol name that the client does not speak."""

    def __init__(self, protocol: str) -> None:
        super().__init__(
            f"unknown protocol {protocol!r}: use 'openenv' (WebSocket sessions at /openenv/ws) "
            "or 'agentgym' (AgentGym's WebShop HTTP protocol at /)."
        )
