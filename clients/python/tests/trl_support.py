"""A tiny Qwen3 policy built at test time for TRL's GRPOTrainer, and a scripted generation.

No weights are downloaded: the model is ``Qwen3ForCausalLM`` from ``Qwen3Config`` with random
weights, the tokenizer a byte-level BPE trained here with ``tokenizers`` (every byte encodes), and
the chat template is the Qwen3 template TRL ships (``trl.chat_template_utils.qwen3_chat_template``),
so TRL recognises it (its Qwen3 response parser, tool-call format and tool-suffix handling).

A random policy never writes a tool call, so ``ScriptedGeneration`` stands in for ``generate``:
each rollout's turns come from a plan chosen by its position in the batch (and, for the later
turns, read back from its first turn). Everything else is TRL's own: the tool-call parsing and
loop, the environment calls, the rewards, the advantages, the loss and the optimizer step on the
scripted tokens (their log-probabilities come from the model's own forward pass).
"""
from __future__ import annotations

import json
import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import torch

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"]

#: A turn: the assistant's text, or a function of the generation's context returning it.
Turn = Union[str, Callable[["ScriptedGeneration", str], str]]


def tool_call(name: str, arguments: Optional[Dict[str, Any]] = None, *, role: str = "") -> str:
    """An assistant turn in Qwen3's format: an optional tag (to recognise the plan later) and a call."""
    call = json.dumps({"name": name, "arguments": arguments or {}})
    return (f"role:{role}\n" if role else "") + f"<tool_call>\n{call}\n</tool_call>"


def build_tokenizer(corpus: Sequence[str], vocab_size: int = 1024) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    from trl.chat_template_utils import qwen3_chat_template

    raw = Tokenizer(models.BPE())
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    raw.train_from_iterator(list(corpus) + [qwen3_chat_template], trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=raw, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    tokenizer.chat_template = qwen3_chat_template
    return tokenizer


def build_model(tokenizer: Any, seed: int = 0) -> Any:
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(seed)
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=16,
        max_position_embeddings=8192,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
        tie_word_embeddings=True,
    )
    model = Qwen3ForCausalLM(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    return model


class ScriptedGeneration:
    """``model.generate`` for TRL's regular (non-vLLM) generation path.

    ``plans[role]`` is a rollout's list of turns; ``role_of(prompt_text, position)`` names the role
    of a rollout from its first prompt and its position in the first generation call of a batch.
    A turn after the plan's last ends the rollout with plain text (no tool call)."""

    def __init__(self, tokenizer: Any, plans: Dict[str, List[Turn]], role_of: Callable[[str, int], str]) -> None:
        self.tokenizer = tokenizer
        self.plans = plans
        self.role_of = role_of
        self.turns: List[str] = []  # every turn generated, for the tests
        self.trainer: Any = None

    def install(self, model: Any) -> None:
        model.generate = self.generate  # an instance attribute: TRL's unwrapped model is this model

    def _text(self, ids: torch.Tensor, mask: torch.Tensor) -> str:
        return str(self.tokenizer.decode(ids[mask.bool()].tolist(), skip_special_tokens=False))

    def _turn(self, text: str, position: int) -> str:
        done = text.count("<|im_start|>assistant") - 1  # the generation prompt opens the next one
        if done == 0:
            role = self.role_of(text, position)
        else:
            found = re.search(r"<\|im_start\|>assistant\n(?:<think>\s*</think>\s*)?role:(\w+)", text)
            role = found.group(1) if found else ""
        plan = self.plans.get(role, [])
        if done >= len(plan):
            return "done"
        turn = plan[done]
        return turn(self, text) if callable(turn) else turn

    def generate(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, **_: Any) -> torch.Tensor:
        rows = []
        for position in range(input_ids.size(0)):
            text = self._turn(self._text(input_ids[position], attention_mask[position]), position)
            self.turns.append(text)
            rows.append(self.tokenizer.encode(text, add_special_tokens=False) + [self.tokenizer.eos_token_id])
        width = max(len(r) for r in rows)
        pad = self.tokenizer.pad_token_id
        completions = torch.tensor([r + [pad] * (width - len(r)) for r in rows], dtype=input_ids.dtype)
        return torch.cat([input_ids, completions.to(input_ids.device)], dim=1)


class ToyEnvironment:
    """The in-process environment the bench compares swe-env with: same tools, no sandbox. A
    ``bash`` command containing ``<=`` counts as the fix; ``submit_solution`` scores it."""

    def reset(self, task_id: str = "", **_: Any) -> str:
        self._fixed = False
        self._reward: Optional[float] = None
        return f"Fix the issue of task {task_id}. Call submit_solution when you are done."

    async def bash(self, command: str) -> str:
        """Run a bash command in the repository.

        Args:
            command: The bash command to run.
        """
        self._fixed = self._fixed or "<=" in command
        return "ok"

    async def submit_solution(self) -> str:
        """Finish the episode: your changes are graded."""
        self._reward = 1.0 if self._fixed else 0.0
        return "graded"

    async def get_reward(self) -> Optional[float]:
        return self._reward if self._reward is not None else 0.0


__all__ = ["ScriptedGeneration", "ToyEnvironment", "build_model", "build_tokenizer", "tool_call"]
