"""ART (OpenPipe) training over `dreamgym serve`: groups of rollouts, one task per group.

    dreamgym serve --env synthetic:webshop --db data/buffer.db --max-steps 15 \\
        --curriculum variance --tasks data/served-tasks.db --group-size 4
    pip install ./python openpipe-art
    python examples/trainers/art_rollout.py --url http://127.0.0.1:36001

Rollouts without a task index take the server's next task, and the server hands each run of
``--group-size`` consecutive resets one task: with it equal to the group's size, each
``TrajectoryGroup`` is one task, as GRPO wants, provided no other group's resets come in
between. So groups are gathered one after another (each group's rollouts concurrently). See
docs/trainers.md.
"""

import argparse
import asyncio

import art
from art.local import LocalBackend

from dreamgym_client.art import art_rollout


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:36001")
    parser.add_argument("--base-model", default="Qwen/Qwen2.5-7B-Instruct")
    parser.add_argument("--group-size", type=int, default=4, help="the server's --group-size")
    parser.add_argument("--groups", type=int, default=8, help="groups per training step")
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()

    model = art.TrainableModel(name="dreamgym-agent", project="dreamgym", base_model=args.base_model)
    await model.register(LocalBackend())
    for _ in range(await model.get_step(), args.steps):
        groups = []
        for _ in range(args.groups):
            group = art.TrajectoryGroup(art_rollout(model, args.url, max_turns=15) for _ in range(args.group_size))
            groups += await art.gather_trajectory_groups([group])
        await model.train(groups)


if __name__ == "__main__":
    asyncio.run(main())
