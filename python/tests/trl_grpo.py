"""TRL's GRPOTrainer trains a tiny causal LM, built from scratch, against a served env.

Run by src/server/trl-grpo.test.ts, which serves ``synthetic:webshop`` with the curriculum on and
checks what this prints (one JSON object) against the server's record, buffer and task pool.

No model hub: the tokenizer is a ``tokenizers`` WordLevel model whose vocabulary is the chat
template's markers, a few words, and whole tool calls as single tokens (so that a model
with random weights calls tools at all: a purchase for each task the curriculum will hand out,
and one call that wanders), wrapped in ``PreTrainedTokenizerFast`` with TRL's
Qwen3 chat template; the model is a two-layer Qwen2 of hidden size 32. Generation is limited to
the tool-call tokens (``suppress_tokens``), so every rollout acts in the env, and every episode
ends (a purchase terminates it; wandering hits the served env's step limit): what GRPO learns
is which tool call to make first.

    python python/tests/trl_grpo.py --url URL --probe-url URL --instructions '["i want …"]' \\
        [--steps 2] [--group-size 2] [--groups-per-step 2]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers  # noqa: E402
from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM, TrainerCallback  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402
from trl.chat_template_utils import qwen3_chat_template  # noqa: E402

from dreamgym_client import DreamGymClient, trl_environment  # noqa: E402

TEMPLATES = ["search[<query>]", "click[<target>]"]
MARKERS = ["<|im_start|>", "<|im_end|>", "<think>", "</think>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"]
WORDS = ["[UNK]", "<|endoftext|>", "system", "user", "assistant", "tool", " ", "\n"]


def tool_call(name: str, argument: str, value: str) -> str:
    return f'<tool_call>\n{{"name": "{name}", "arguments": {{"{argument}": "{value}"}}}}\n</tool_call>'


def probe_tool_calls(probe_url: str, instructions: list[str]) -> dict[str, str]:
    """Whole tool calls for the vocabulary: for each task the curriculum will hand out, a
    purchase (search its words, open the first result, buy it), and one call that wanders
    (search, next page). The products come from probe episodes on a server that writes nothing
    back, so the training server's episodes are the trainer's alone."""
    calls: dict[str, str] = {}
    with DreamGymClient(probe_url) as env:
        for n, instruction in enumerate(instructions):
            env.reset(task_index=0)
            query = " ".join(instruction.split()[3:11])
            results = env.step(f"search[{query}]")
            product = next(a for a in results.observation.actions if a.startswith("click[B0"))[len("click[") : -1]
            page = env.step(f"click[{product}]")
            if "click[Buy Now]" not in page.observation.actions:
                raise RuntimeError(f"the probe's product page offers no Buy Now: {page.observation.actions}")
            calls[f"purchase{n}"] = (
                tool_call("search", "query", query) + tool_call("click", "target", product) + tool_call("click", "target", "Buy Now")
            )
    calls["wander"] = tool_call("search", "query", "coffee maker") + tool_call("click", "target", "Next >")
    return calls


def tiny_tokenizer(tool_calls: dict[str, str]) -> PreTrainedTokenizerFast:
    vocab = {token: i for i, token in enumerate(WORDS + MARKERS)}
    backend = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    # Every space and newline is a token of its own and decoding fuses tokens back together, so
    # the chat template's markers survive a round trip (TRL's parser finds the assistant's turn
    # by the text "<|im_start|>assistant\n").
    backend.pre_tokenizer = pre_tokenizers.Split(Regex(r"\s"), behavior="isolated")
    backend.decoder = decoders.Fuse()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        unk_token="[UNK]",
        pad_token="<|endoftext|>",
        eos_token="<|im_end|>",
        additional_special_tokens=["<|im_start|>"],
    )
    # Whole tool calls and the other markers are plain added tokens: decoding keeps them.
    tokenizer.add_tokens([*tool_calls.values(), *MARKERS[2:]])
    tokenizer.chat_template = qwen3_chat_template
    tokenizer.padding_side = "left"
    return tokenizer


def tiny_model(tokenizer: PreTrainedTokenizerFast) -> Qwen2ForCausalLM:
    torch.manual_seed(0)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=4096,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
    )
    return Qwen2ForCausalLM(config)


class Logs(TrainerCallback):
    """Keeps what the trainer logs (its reward means among them)."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []

    def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self.entries.append(dict(logs or {}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--probe-url", required=True)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--group-size", type=int, default=2)
    parser.add_argument("--groups-per-step", type=int, default=2)
    parser.add_argument("--output-dir", default="/tmp/dreamgym-trl-grpo")
    parser.add_argument("--instructions", default="[]", help="JSON list: the tasks the curriculum will hand out")
    args = parser.parse_args()
    started = time.monotonic()

    tool_calls = probe_tool_calls(args.probe_url, json.loads(args.instructions))
    tokenizer = tiny_tokenizer(tool_calls)
    model = tiny_model(tokenizer)
    allowed = set(tokenizer.convert_tokens_to_ids(list(tool_calls.values())))
    suppressed = [i for i in range(len(tokenizer)) if i not in allowed]

    rollouts: list[dict[str, Any]] = []
    Served = trl_environment(args.url, templates=TEMPLATES)

    class DreamGymEnv(Served):  # type: ignore[misc,valid-type]
        """The served env, noting what the trainer gets for each rollout."""

        def get_reward(self) -> float:
            reward = super().get_reward()
            last = self.last
            rollouts.append(
                {
                    "episode_id": last.episode_id if last else None,
                    "task_id": last.task.id if last else None,
                    "reward": reward,
                    "terminated": bool(last and last.terminated),
                    "truncated": bool(last and last.truncated),
                }
            )
            return reward

    config = GRPOConfig(
        output_dir=args.output_dir,
        max_steps=args.steps,
        per_device_train_batch_size=args.group_size * args.groups_per_step,
        num_generations=args.group_size,
        max_completion_length=6,
        max_tool_calling_iterations=1,
        generation_kwargs={"suppress_tokens": suppressed},
        learning_rate=1e-3,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=True,
        seed=0,
        dataloader_num_workers=0,
    )
    logs = Logs()
    trainer = GRPOTrainer(
        model=model,
        args=config,
        processing_class=tokenizer,
        environment_factory=DreamGymEnv,
        callbacks=[logs],
    )
    before = [p.detach().clone() for p in model.parameters()]
    trainer.train()
    changed = any(not torch.equal(a, b.detach()) for a, b in zip(before, model.parameters()))
    print(
        json.dumps(
            {
                "optimizer_steps": trainer.state.global_step,
                "weights_changed": changed,
                "rollouts": rollouts,
                "logs": logs.entries,
                "seconds": time.monotonic() - started,
            }
        )
    )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
