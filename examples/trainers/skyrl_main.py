"""SkyRL training over `dreamgym serve`: registers the served env as SkyRL env class `dreamgym`.

    dreamgym serve --env synthetic:webshop --db data/buffer.db --max-steps 15
    pip install ./python
    python examples/trainers/skyrl_main.py environment.env_class=dreamgym \\
        environment.skyrl_gym.dreamgym.url=http://127.0.0.1:36001 \\
        generator.n_samples_per_prompt=5 generator.max_turns=15 generator.batched=false ...

Each dataset row needs ``env_class: dreamgym`` (or the config's default) and its task as
``task_index`` in its extras: SkyRL plays a batch's trajectories concurrently, so the server's
curriculum, which groups resets by arrival order, would not keep a prompt's samples on one
task. See docs/trainers.md.
"""

import sys

import ray
from skyrl.train.config import SkyRLTrainConfig
from skyrl.train.entrypoints.main_base import BasePPOExp, validate_cfg
from skyrl.train.utils import initialize_ray
from skyrl_gym.envs import register


@ray.remote(num_cpus=1)
def skyrl_entrypoint(cfg: SkyRLTrainConfig) -> None:
    # Registered inside the Ray task, where SkyRL's generator makes the envs.
    register(id="dreamgym", entry_point="dreamgym_client.skyrl:DreamGymTextEnv")
    BasePPOExp(cfg).run()


def main() -> None:
    cfg = SkyRLTrainConfig.from_cli_overrides(sys.argv[1:])
    validate_cfg(cfg)
    initialize_ray(cfg)
    ray.get(skyrl_entrypoint.remote(cfg))


if __name__ == "__main__":
    main()
