#!/usr/bin/env python3
"""GRPO-style rollout groups against `dreamgym serve`, in AgentGym's WebShop protocol.

What a trainer's rollout worker does, with only the Python standard library: for each group,
open G sessions, reset each without a task index (a server started with `--curriculum ...
--group-size G` hands the whole group one task), play every episode to its end, and compute the
group-relative advantages GRPO trains on. The policy here is a stand-in (search the instruction's
first words, then click at random); a trainer puts its LLM there.

    dreamgym serve --env synthetic:webshop --db data/buffer.db \\
        --curriculum variance --tasks data/served-tasks.db --group-size 4
    python3 examples/python/grpo_groups.py --url http://127.0.0.1:36001 --groups 8 --group-size 4

Each finished episode goes back to the server's curriculum (its reward steers the next tasks)
and, for a synthetic env, to its replay buffer. Prints one JSON line per group.
"""

import argparse
import json
import random
import re
import statistics
import urllib.request


def call(url, path, body=None, token=None):
    """POST `body` as JSON (or GET when there is none) and return the decoded answer."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method="GET" if body is None else "POST")
    request.add_header("content-type", "application/json")
    if token:
        request.add_header("authorization", "Bearer " + token)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def act(url, env_idx, page, rng, token):
    """The stand-in policy: search the instruction's first words, else click something offered."""
    actions = call(url, "/available_actions?env_idx=%d" % env_idx, token=token)
    if actions["has_search_bar"]:
        match = re.search(r"Instruction:\s*\n?(.*)", page)
        words = (match.group(1) if match else page).split()
        return "search[%s]" % " ".join(words[:5])
    clickables = [c for c in actions["clickables"] if c != "search"]
    return "click[%s]" % rng.choice(clickables) if clickables else "click[back to search]"


def play_group(url, group_size, max_steps, rng, token):
    """One group: G episodes of the task the server hands out, with their GRPO advantages."""
    sessions = [call(url, "/create", {}, token) for _ in range(group_size)]
    rewards, instructions = [], set()
    try:
        for env_idx in sessions:
            page = call(url, "/reset", {"env_idx": env_idx}, token)[0]
            instructions.add(call(url, "/instruction_text?env_idx=%d" % env_idx, token=token))
            reward = 0.0
            for _ in range(max_steps):
                step = call(url, "/step", {"env_idx": env_idx, "action": act(url, env_idx, page, rng, token)}, token)
                page, reward = step["state"], step["reward"]
                if step["done"]:
                    break
            rewards.append(reward)
    finally:
        for env_idx in sessions:
            call(url, "/close", {"env_idx": env_idx}, token)
    mean = statistics.fmean(rewards)
    spread = statistics.pstdev(rewards)
    advantages = [(r - mean) / spread if spread > 0 else 0.0 for r in rewards]
    return {"tasks": len(instructions), "rewards": rewards, "advantages": advantages}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:36001")
    parser.add_argument("--groups", type=int, default=4)
    parser.add_argument("--group-size", type=int, default=4)
    parser.add_argument("--max-steps", type=int, default=15, help="the client's own step cap")
    parser.add_argument("--token", default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for _ in range(args.groups):
        print(json.dumps(play_group(args.url, args.group_size, args.max_steps, rng, args.token)), flush=True)


if __name__ == "__main__":
    main()
