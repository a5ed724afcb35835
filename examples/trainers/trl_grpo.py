"""GRPO with TRL against `dreamgym serve`: the served env's actions are the model's tools.

    dreamgym serve --env synthetic:webshop --db data/buffer.db --max-steps 15 \\
        --curriculum variance --tasks data/served-tasks.db --group-size 4
    pip install ./python trl
    python examples/trainers/trl_grpo.py --url http://127.0.0.1:36001 --model Qwen/Qwen3-0.6B

The server's curriculum hands each group of ``--group-size`` resets one task, so set TRL's
``num_generations`` to the same number: each GRPO group is then one task's rollouts. Every
rollout is an episode on the server (recorded, written back to a synthetic env's buffer, and
filed with the curriculum); one the model stops before its end is closed and counted as
abandoned. See docs/trainers.md for what TRL sees of each step.
"""

import argparse

from trl import GRPOConfig, GRPOTrainer

from dreamgym_client import trl_environment


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:36001")
    parser.add_argument("--model", default="Qwen/Qwen3-0.6B")
    parser.add_argument("--group-size", type=int, default=4, help="the server's --group-size")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--max-env-steps", type=int, default=15, help="the server's --max-steps")
    args = parser.parse_args()

    trainer = GRPOTrainer(
        model=args.model,
        # One instance per rollout; tools from the served env's action templates.
        environment_factory=trl_environment(args.url),
        args=GRPOConfig(
            output_dir="runs/trl-grpo",
            max_steps=args.steps,  # no dataset: the env hands out the tasks
            num_generations=args.group_size,
            per_device_train_batch_size=2 * args.group_size,
            max_tool_calling_iterations=args.max_env_steps,
            max_completion_length=2048,
            logging_steps=1,
        ),
    )
    trainer.train()


if __name__ == "__main__":
    main()
