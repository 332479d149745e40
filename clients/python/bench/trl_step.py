"""GRPO step time of TRL's GRPOTrainer with swe-env vs the same trainer on an in-process toy
environment, in the same run (same tiny Qwen3, same scripted turns, same batch).

    cd clients/python && PYTHONPATH=$PWD flock /tmp/swe-env-docker.lock python bench/trl_step.py --steps 6

Starts a real server on the demo tasks (tests/conftest.py's ``Server``; ``npm run build`` first).
Each step is one GRPO group of ``--generations`` rollouts of ``swe-env-demo__intervals-1``, half
of them fixing the bug (reward 1 from grading), half submitting it unfixed (0), so both runs train
on non-zero advantages. The first step of each run (model warm-up, image and first container) is
reported apart. Prints p50/p95 of the step times and the difference, for swe-env as is and with
``defer_grading=True`` (the submit answered at once, the gradings of a step overlapping).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "tests")]
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

import conftest  # noqa: E402  (the test server, from tests/)
from trl_support import ScriptedGeneration, ToyEnvironment, build_model, build_tokenizer, tool_call  # noqa: E402

TASK = "swe-env-demo__intervals-1"
PLANS: Dict[str, List[Any]] = {
    "fix": [tool_call("bash", {"command": "sed -i 's/x < self.end/x <= self.end/' intervals/interval.py"}, role="fix"), tool_call("submit_solution")],
    "nofix": [tool_call("bash", {"command": "git status --short"}, role="nofix"), tool_call("submit_solution")],
}


def percentile(values: List[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def run(name: str, factory: Any, dataset: Any, steps: int, generations: int, corpus: List[str]) -> List[float]:
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    times: List[float] = []

    class StepTimer(TrainerCallback):
        def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            self.t0 = time.perf_counter()

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            times.append(time.perf_counter() - self.t0)

    tokenizer = build_tokenizer(corpus)
    model = build_model(tokenizer)
    ScriptedGeneration(tokenizer, PLANS, lambda _text, position: "fix" if position % 2 == 0 else "nofix").install(model)
    out = tempfile.TemporaryDirectory(prefix=f"trl-bench-{name}-")  # TRL's output_dir, removed after the run
    args = GRPOConfig(
        output_dir=out.name, num_generations=generations, per_device_train_batch_size=generations,
        max_steps=steps, max_completion_length=1024, shuffle_dataset=False, beta=0.0, learning_rate=1e-3, logging_steps=1,
        save_strategy="no", report_to=[], use_cpu=True, bf16=False, seed=0, disable_tqdm=True,
    )
    trainer = GRPOTrainer(model=model, processing_class=tokenizer, args=args, train_dataset=dataset, environment_factory=factory, callbacks=[StepTimer()])
    try:
        trainer.train()
    finally:
        out.cleanup()
    means = [h.get("reward") for h in trainer.state.log_history if "loss" in h]
    print(f"{name:8s} reward mean per step {means} (half the rollouts fix the bug: 0.5 when graded right)")
    return times


def report(name: str, times: List[float]) -> Dict[str, float]:
    rest = times[1:] or times
    out = {"first": times[0], "p50": percentile(rest, 0.5), "p95": percentile(rest, 0.95), "mean": statistics.fmean(rest)}
    print(f"{name:8s} first {out['first']:6.2f}s  p50 {out['p50']:6.2f}s  p95 {out['p95']:6.2f}s  mean {out['mean']:6.2f}s  ({len(rest)} steps)")
    return out


def main(argv: List[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--generations", type=int, default=4)
    opts = parser.parse_args(argv)
    from datasets import Dataset

    from swe_env.trl import SweEnvSpec

    server = conftest.Server()
    spec = SweEnvSpec(server.address, [TASK], num_generations=opts.generations, max_observation_chars=300)
    deferred = SweEnvSpec(server.address, [TASK], num_generations=opts.generations, max_observation_chars=300, defer_grading=True)
    try:
        corpus = [str(t) for plan in PLANS.values() for t in plan] + [str(spec.tasks[TASK]["prompt"])]
        toy_data = Dataset.from_dict({"prompt": [[{"role": "user", "content": ""}]], "task_id": [TASK]})
        runs: Dict[str, Callable[[], List[float]]] = {
            "toy": lambda: run("toy", ToyEnvironment, toy_data, opts.steps, opts.generations, corpus),
            "swe-env": lambda: run("swe-env", spec.environment_factory, spec.train_dataset, opts.steps, opts.generations, corpus),
            "deferred": lambda: run("deferred", deferred.environment_factory, deferred.train_dataset, opts.steps, opts.generations, corpus),
        }
        results = {name: report(name, fn()) for name, fn in runs.items()}
    finally:
        spec.close()
        deferred.close()
        server.stop()
    for name in ("swe-env", "deferred"):
        print(f"{name} adds p50 {results[name]['p50'] - results['toy']['p50']:.2f}s per GRPO step of {opts.generations} rollouts")


if __name__ == "__main__":
    main(sys.argv[1:])
