"""What the verl tests need that cannot run here for real: a model directory (a real tokenizer
trained at test time with ``tokenizers``, a ChatML chat template with tools, a tiny qwen2 config
that is never instantiated) and a scripted LLM server manager standing in for vLLM/SGLang.

Importable by Ray workers (the tests put this folder on their PYTHONPATH), so the scripted LLM
can be handed to verl's AgentLoopManager like a real LLMServerClient.
"""
from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[3]

# A ChatML template with tools, written for these tests: tool results go back in a user turn
# wrapped in <tool_response>, calls are <tool_call>{json}</tool_call>, and enable_thinking=False
# (a chat-template kwarg) adds an empty think block after the assistant header.
CHAT_TEMPLATE = (
    "{%- set sys = messages[0].content if messages and messages[0].role == 'system' else '' -%}"
    "{%- if tools or sys -%}"
    "{{- '<|im_start|>system\\n' + sys -}}"
    "{%- if tools -%}"
    "{{- '\\nTools (answer with <tool_call>{\"name\": ..., \"arguments\": {...}}</tool_call>):' -}}"
    "{%- for tool in tools -%}{{- '\\n' + (tool | tojson) -}}{%- endfor -%}"
    "{%- endif -%}"
    "{{- '<|im_end|>\\n' -}}"
    "{%- endif -%}"
    "{%- for message in messages -%}"
    "{%- if message.role == 'user' -%}"
    "{{- '<|im_start|>user\\n' + message.content + '<|im_end|>\\n' -}}"
    "{%- elif message.role == 'assistant' -%}"
    "{{- '<|im_start|>assistant\\n' + (message.content or '') -}}"
    "{%- for call in (message.tool_calls or []) -%}"
    "{{- '<tool_call>{\"name\": \"' + call.function.name + '\", \"arguments\": ' + (call.function.arguments | tojson) + '}</tool_call>' -}}"
    "{%- endfor -%}"
    "{{- '<|im_end|>\\n' -}}"
    "{%- elif message.role == 'tool' -%}"
    "{%- if loop.first or messages[loop.index0 - 1].role != 'tool' -%}{{- '<|im_start|>user' -}}{%- endif -%}"
    "{{- '\\n<tool_response>\\n' + message.content + '\\n</tool_response>' -}}"
    "{%- if loop.last or messages[loop.index0 + 1].role != 'tool' -%}{{- '<|im_end|>\\n' -}}{%- endif -%}"
    "{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}"
    "{{- '<|im_start|>assistant\\n' -}}"
    "{%- if enable_thinking is defined and enable_thinking is false -%}{{- '<think>\\n\\n</think>\\n\\n' -}}{%- endif -%}"
    "{%- endif -%}"
)

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


def _corpus() -> List[str]:
    texts = [CHAT_TEMPLATE, "<tool_call>{\"name\": \"bash\", \"arguments\": {\"command\": \"ls -la\"}}</tool_call>"]
    for path in sorted((ROOT / "tasks" / "demo").rglob("*")):
        if path.is_file() and path.suffix in {".py", ".json", ".jsonl", ".md", ".txt", ".cfg", ".toml"}:
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return texts


def build_model_dir(out: Path) -> Path:
    """A model directory verl's HFModelConfig loads offline: tokenizer files and a qwen2 config."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import PreTrainedTokenizerFast

    out.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer(add_prefix_space=False)
    bpe.train_from_iterator(_corpus(), vocab_size=3000, min_frequency=2, special_tokens=SPECIAL_TOKENS)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe._tokenizer,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        model_max_length=65536,
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(out)
    config = {
        "architectures": ["Qwen2ForCausalLM"],
        "model_type": "qwen2",
        "vocab_size": len(tokenizer),
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 1,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "max_position_embeddings": 65536,
        "tie_word_embeddings": True,
        "eos_token_id": tokenizer.eos_token_id,
        "pad_token_id": tokenizer.pad_token_id,
        "torch_dtype": "float32",
    }
    (out / "config.json").write_text(json.dumps(config, indent=1))
    return out


def verl_config(model_dir: Path, agent_loop_yaml: Path, *, workers: int, prompt_length: int = 4096, response_length: int = 4096, logprobs: bool = True, chat_template_kwargs: Optional[Dict[str, Any]] = None) -> Any:
    """verl's own full trainer config (its generated ppo_trainer.yaml) with the rollout settings a
    multi-turn agent-loop run uses."""
    import verl
    from omegaconf import OmegaConf

    config = OmegaConf.load(Path(verl.__file__).parent / "trainer" / "config" / "_generated_ppo_trainer.yaml")
    overrides = {
        "actor_rollout_ref": {
            "model": {"path": str(model_dir)},
            "rollout": {
                "name": "vllm",
                "mode": "async",
                "prompt_length": prompt_length,
                "response_length": response_length,
                "calculate_log_probs": logprobs,
                "n": 2,
                "multi_turn": {"enable": True, "max_assistant_turns": 8, "format": "hermes"},
                "agent": {"num_workers": workers, "agent_loop_config_path": str(agent_loop_yaml), "default_agent_loop": "swe_env"},
            },
        },
        "data": {"apply_chat_template_kwargs": chat_template_kwargs or {}, "return_raw_chat": True},
    }
    return OmegaConf.merge(config, OmegaConf.create(overrides))


def write_agent_loop_yaml(path: Path, address: str, dead_address: str, **extra: Any) -> Path:
    """The package's own agent_loop.yaml with the test server's address, plus a second entry
    (``swe_env_dead``) pointing at an address where nothing listens."""
    import yaml

    from swe_env.verl import config_path

    entries = yaml.safe_load(Path(config_path("agent_loop.yaml")).read_text())
    entry = dict(entries[0], env_addr=address, **extra)
    entry["episode_options"] = dict(entry.get("episode_options") or {})
    dead = dict(entry, name="swe_env_dead", env_addr=dead_address)
    path.write_text(yaml.safe_dump([entry, dead]))
    return path


# --- the scripted LLM --------------------------------------------------------------------------

#: A policy is a list of turns; each turn is ("bash", command), ("submit",), ("text", raw),
#: ("raise", message) or ("hang",).
Policy = Sequence[Tuple[str, ...]]


def tool_call_text(name: str, arguments: Dict[str, Any]) -> str:
    return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"


class ScriptedLLM:
    """Stands in for verl's LLMServerClient: ``generate(request_id, prompt_ids, sampling_params)``
    returns a TokenOutput. The task is recognised in the prompt by a marker string; the turn is
    the number of assistant headers in the prompt."""

    def __init__(self, model_dir: str, policies: Dict[str, Policy], markers: Dict[str, str]) -> None:
        self.model_dir = model_dir
        self.policies = {k: [tuple(t) for t in v] for k, v in policies.items()}
        self.markers = dict(markers)
        self._tokenizer: Any = None

    def _tok(self) -> Any:
        if self._tokenizer is None:
            from transformers import AutoTokenizer

            self._tokenizer = AutoTokenizer.from_pretrained(self.model_dir)
        return self._tokenizer

    def _task(self, prompt: str) -> str:
        for task_id, marker in self.markers.items():
            if marker in prompt:
                return task_id
        if len(self.policies) == 1:  # a prompt cut to fit may have lost the marker
            return next(iter(self.policies))
        raise AssertionError("the scripted LLM does not know this prompt")

    async def generate(self, request_id: str, *, prompt_ids: List[int], sampling_params: Dict[str, Any], **kwargs: Any) -> Any:
        from verl.workers.rollout.replica import TokenOutput

        tok = self._tok()
        prompt = tok.decode(prompt_ids, skip_special_tokens=False)
        policy = self.policies[self._task(prompt)]
        turn = len(re.findall(r"<\|im_start\|>assistant", prompt))
        action = policy[min(turn, len(policy)) - 1]
        kind = action[0]
        if kind == "raise":
            raise RuntimeError(action[1] if len(action) > 1 else "the LLM server failed")
        if kind == "hang":
            await asyncio.sleep(3600)
        if kind == "bash":
            text = tool_call_text("bash", {"command": action[1]})
        elif kind == "submit":
            text = tool_call_text("submit_solution", {})
        else:
            text = action[1]
        ids = tok.encode(text + "<|im_end|>", add_special_tokens=False)
        logprobs = [-0.25] * len(ids) if sampling_params.get("logprobs") else None
        return TokenOutput(token_ids=ids, log_probs=logprobs, stop_reason="completed", num_preempted=0)


def gold_bash(patch: str) -> str:
    return f"cat > /tmp/fix.patch <<'SWE_ENV_EOF'\n{patch}SWE_ENV_EOF\ngit apply /tmp/fix.patch"


def marker_for(task: Dict[str, Any]) -> str:
    """A string of the task's issue text that the rendered prompt contains."""
    return task["problem_statement"].strip().splitlines()[0][:60]


def pythonpath() -> str:
    here = str(Path(__file__).resolve().parent)
    client = str(Path(__file__).resolve().parents[1])
    return os.pathsep.join([here, client, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
