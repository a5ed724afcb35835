"""What a served env says of itself: its name, description and action templates."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from .actions import VERBATIM, ActionTemplate, templates_in_description
from .agentgym import checked
from .errors import ConnectionFailed
from .openenv import auth_headers


@dataclass(frozen=True)
class ServedEnv:
    """A served env as ``GET /openenv/metadata`` describes it.

    Attributes:
        name: The served env, e.g. ``webshop`` or ``synthetic:webshop``.
        description: Its description.
        templates: The action templates its description names (``search[query], click[label]``),
            or the verbatim template ``act`` when it names none.
    """

    name: str
    description: str
    templates: tuple[ActionTemplate, ...]


def describe(url: str, token: str | None = None, timeout: float = 30.0) -> ServedEnv:
    """Asks the server at ``url`` what it serves (one request; no session is opened)."""
    try:
        response = httpx.get(
            url.rstrip("/") + "/openenv/metadata", headers=auth_headers(token), timeout=timeout
        )
    except httpx.TransportError as error:
        raise ConnectionFailed(url, error) from error
    metadata = checked(response)
    description = str(metadata.get("description", ""))
    templates = templates_in_description(description) or [VERBATIM]
    return ServedEnv(str(metadata.get("name", "")), description, tuple(templates))
