"""A minimal server speaking Meta's OpenEnv env protocol, for dreamgym's OpenEnv client tests.

Written from OpenEnv's own server (``openenv/core/env_server``: ``http_server.py``, ``types.py``,
``serialization.py``) to behave as it does on the wire, without depending on ``openenv-core``:

- ``GET /health``, ``/metadata``, ``/schema`` (JSON Schemas of the action, observation and state);
- ``POST /reset`` and ``POST /step`` and ``GET /state`` are *stateless*, as in OpenEnv: each
  request makes a fresh env, runs one call on it and closes it, so a step over HTTP never sees
  the reset before it;
- ``/ws``: one session (one env) per connection, at most ``--max-sessions`` at once; messages
  ``{"type": "reset"|"step"|"state"|"close", "data": ...}`` are answered with
  ``{"type": "observation"|"state"|"error", "data": ...}``; error codes as OpenEnv's
  ``WSErrorCode``; a full server answers ``CAPACITY_REACHED`` (with ``active_sessions`` and
  ``max_sessions``) and closes; a session is freed before its socket is closed;
- observations serialize as OpenEnv's ``serialize_observation`` does: ``{"observation": fields,
  "reward": ..., "done": ...}``, the observation's ``reward``, ``done`` and ``metadata`` left out of
  ``fields``.

The env is a number-guessing game of our own: find a secret whole number, told "higher" or
"lower" after each guess. The seed fixes the range and the secret. Two reset keywords exist for
fault tests: ``fail_on_guess`` (the env raises when that number is guessed) and ``fail_reset``.

Run: ``python openenv_server.py [--port 0] [--max-sessions 1]``; it prints
``{"listening": PORT}`` on one line once it accepts connections.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import sys
import uuid
from typing import Any, Optional

import uvicorn
from fastapi import Body, FastAPI, HTTPException, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ConfigDict, Field, ValidationError

GUESSES = 6
UPPERS = (10, 15, 20, 25, 30)


class GuessAction(BaseModel):
    """One guess. Unknown fields are refused, as OpenEnv's ``Action`` base refuses them."""

    model_config = ConfigDict(extra="forbid")
    metadata: dict[str, Any] = Field(default_factory=dict)
    guess: int = Field(ge=1, le=100, description="the number to try")


class GuessObservation(BaseModel):
    """What the player sees; ``done``, ``reward`` and ``metadata`` travel outside the fields."""

    model_config = ConfigDict(extra="forbid")
    done: bool = False
    reward: Optional[float] = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    goal: str
    feedback: str
    guesses_left: int
    legal_actions: list[str]


class GuessState(BaseModel):
    """OpenEnv's state fields plus the game's public ones."""

    model_config = ConfigDict(extra="allow")
    episode_id: Optional[str] = None
    step_count: int = 0
    upper: Optional[int] = None
    guesses_left: Optional[int] = None


class ResetBody(BaseModel):
    """HTTP reset body: OpenEnv's seed and episode_id, other keywords allowed."""

    model_config = ConfigDict(extra="allow")
    seed: Optional[int] = Field(default=None, ge=0)
    episode_id: Optional[str] = Field(default=None, max_length=255)


class StepBody(BaseModel):
    """HTTP step body: the action object and OpenEnv's optional extras."""

    model_config = ConfigDict(extra="allow")
    action: dict[str, Any]
    timeout_s: Optional[float] = Field(default=None, gt=0)
    request_id: Optional[str] = Field(default=None, max_length=255)


class NumberGuess:
    """The game. ``reset`` must come before ``step``; a finished game refuses more guesses."""

    def __init__(self) -> None:
        self.state = GuessState()
        self.secret = 0
        self.tried: set[int] = set()
        self.over = True
        self.fail_on_guess: Optional[int] = None

    def reset(
        self,
        seed: Optional[int] = None,
        episode_id: Optional[str] = None,
        fail_on_guess: Optional[int] = None,
        fail_reset: bool = False,
    ) -> GuessObservation:
        if fail_reset:
            raise RuntimeError("reset failed on purpose (fail_reset)")
        rng = random.Random(seed)
        upper = rng.choice(UPPERS)
        self.secret = rng.randint(1, upper)
        self.tried = set()
        self.over = False
        self.fail_on_guess = fail_on_guess
        self.state = GuessState(
            episode_id=episode_id or str(uuid.uuid4()),
            upper=upper,
            guesses_left=GUESSES,
        )
        return self.observe(f"Make your first guess: you have {GUESSES}.")

    def step(self, action: GuessAction) -> GuessObservation:
        if self.state.upper is None:
            raise RuntimeError("step before reset: this env has no game yet")
        if self.over:
            raise RuntimeError("the game is over: reset to play again")
        if action.guess == self.fail_on_guess:
            raise RuntimeError(f"the env crashed on guess {action.guess} (fail_on_guess)")
        self.state.step_count += 1
        self.state.guesses_left = (self.state.guesses_left or 0) - 1
        self.tried.add(action.guess)
        if action.guess == self.secret:
            self.over = True
            return self.observe(f"{action.guess} is right!", done=True, reward=1.0)
        hint = "higher" if action.guess < self.secret else "lower"
        if self.state.guesses_left == 0:
            self.over = True
            return self.observe(f"{action.guess} is wrong; it was {self.secret}.", done=True, reward=0.0)
        return self.observe(f"{action.guess} is wrong: go {hint}.", reward=0.0)

    def observe(self, feedback: str, done: bool = False, reward: Optional[float] = None) -> GuessObservation:
        upper = self.state.upper or 0
        return GuessObservation(
            done=done,
            reward=reward,
            goal=f"Find the secret whole number from 1 to {upper} in at most {GUESSES} guesses.",
            feedback=feedback,
            guesses_left=self.state.guesses_left or 0,
            legal_actions=[str(n) for n in range(1, upper + 1) if n not in self.tried],
        )

    def close(self) -> None:
        self.over = True


def serialize(observation: GuessObservation) -> dict[str, Any]:
    """OpenEnv's answer shape: the fields, with reward and done lifted out and metadata dropped."""
    fields = observation.model_dump(exclude={"reward", "done", "metadata"})
    return {"observation": fields, "reward": observation.reward, "done": observation.done}


def reset_keywords(data: dict[str, Any]) -> dict[str, Any]:
    """Only the keywords ``NumberGuess.reset`` takes, as OpenEnv filters by the signature."""
    known = {"seed", "episode_id", "fail_on_guess", "fail_reset"}
    return {k: v for k, v in data.items() if k in known}


def make_app(max_sessions: int) -> FastAPI:
    app = FastAPI(title="number-guess (OpenEnv protocol)")
    sessions: dict[str, NumberGuess] = {}
    lock = asyncio.Lock()

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "healthy"}

    @app.get("/metadata")
    def metadata() -> dict[str, Any]:
        return {"name": "number-guess", "description": "guess a secret number, told higher or lower"}

    @app.get("/schema")
    def schema() -> dict[str, Any]:
        return {
            "action": GuessAction.model_json_schema(),
            "observation": GuessObservation.model_json_schema(),
            "state": GuessState.model_json_schema(),
        }

    @app.post("/reset")
    def http_reset(body: ResetBody = Body(default_factory=ResetBody)) -> dict[str, Any]:
        env = NumberGuess()
        try:
            return serialize(env.reset(**reset_keywords(body.model_dump(exclude_unset=True))))
        finally:
            env.close()

    @app.post("/step")
    def http_step(body: StepBody) -> dict[str, Any]:
        try:
            action = GuessAction.model_validate(body.action)
        except ValidationError as error:
            raise HTTPException(status_code=422, detail=error.errors(include_url=False))
        env = NumberGuess()
        try:
            return serialize(env.step(action))
        except RuntimeError as error:
            raise HTTPException(status_code=500, detail=str(error))
        finally:
            env.close()

    @app.get("/state")
    def http_state() -> dict[str, Any]:
        return NumberGuess().state.model_dump()

    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        session_id: Optional[str] = None
        try:
            async with lock:
                if len(sessions) >= max_sessions:
                    await send_error(
                        websocket,
                        f"Server at capacity: {len(sessions)}/{max_sessions} sessions active.",
                        "CAPACITY_REACHED",
                        active_sessions=len(sessions),
                        max_sessions=max_sessions,
                    )
                    return
                session_id = str(uuid.uuid4())
                sessions[session_id] = NumberGuess()
            env = sessions[session_id]
            while True:
                if not await answer(websocket, env, await websocket.receive_text()):
                    return
        except WebSocketDisconnect:
            pass
        finally:
            if session_id is not None:
                async with lock:
                    sessions.pop(session_id).close()
            try:
                await websocket.close()
            except RuntimeError:
                pass

    return app


async def send_error(websocket: WebSocket, message: str, code: str, **extra: Any) -> None:
    await websocket.send_text(json.dumps({"type": "error", "data": {"message": message, "code": code, **extra}}))


async def answer(websocket: WebSocket, env: NumberGuess, raw: str) -> bool:
    """Answers one message; False when the client asked to close."""
    try:
        message = json.loads(raw)
    except json.JSONDecodeError as error:
        await send_error(websocket, f"Invalid JSON: {error}", "INVALID_JSON")
        return True
    kind = message.get("type", "") if isinstance(message, dict) else ""
    try:
        if kind == "reset":
            data = message.get("data", {})
            if not isinstance(data, dict):
                raise TypeError("reset data must be an object")
            reply = {"type": "observation", "data": serialize(env.reset(**reset_keywords(data)))}
        elif kind == "step":
            action = GuessAction.model_validate(message.get("data"))
            reply = {"type": "observation", "data": serialize(env.step(action))}
        elif kind == "state":
            reply = {"type": "state", "data": env.state.model_dump()}
        elif kind == "close":
            return False
        else:
            await send_error(websocket, f"Unknown message type: {kind}", "UNKNOWN_TYPE")
            return True
    except ValidationError as error:
        await send_error(
            websocket, "Invalid message", "VALIDATION_ERROR", errors=json.loads(error.json(include_url=False))
        )
        return True
    except Exception as error:  # the env's own failure, reported as OpenEnv reports it
        await send_error(websocket, str(error), "EXECUTION_ERROR")
        return True
    await websocket.send_text(json.dumps(reply))
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--max-sessions", type=int, default=1, help="WebSocket sessions at once (OpenEnv's default is 1)")
    args = parser.parse_args()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((args.host, args.port))
    config = uvicorn.Config(make_app(args.max_sessions), log_level="warning", ws="websockets-sansio")
    server = uvicorn.Server(config)

    async def serve() -> None:
        task = asyncio.create_task(server.serve(sockets=[listener]))
        while not server.started:
            if task.done():
                task.result()
                return
            await asyncio.sleep(0.01)
        print(json.dumps({"listening": listener.getsockname()[1]}), flush=True)
        await task

    asyncio.run(serve())
    sys.exit(0)


if __name__ == "__main__":
    main()
