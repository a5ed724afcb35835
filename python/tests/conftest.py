"""The served env the client's tests run against: src/server/python-client.test.ts starts
``dreamgym serve --env webshop`` (curriculum on, groups of 2, a 5-step limit) and passes its URL."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def url() -> str:
    served = os.environ.get("DREAMGYM_URL")
    if not served:
        pytest.fail(
            "DREAMGYM_URL is not set: these tests run from src/server/python-client.test.ts "
            "(npx vitest run src/server/python-client.test.ts), which serves the env."
        )
    return served
