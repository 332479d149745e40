"""``SweEnvSpec``: swe-env tasks as the three things TRL's ``GRPOTrainer`` takes.

Built the way TRL's own environment integrations are (one spec object, three properties, one per
``GRPOTrainer`` argument)::

    spec = SweEnvSpec("127.0.0.1:50051", task_ids=[...], num_generations=4)
    trainer = GRPOTrainer(model=..., args=GRPOConfig(num_generations=4, ...),
                          train_dataset=spec.train_dataset,
                          environment_factory=spec.environment_factory,
                          reward_funcs=spec.reward_funcs)
    trainer.train()
    spec.close()

``reward_funcs`` is empty: the environment owns the reward (``get_reward``). Adding a reward
function of your own unmasks the environment's failures: TRL masks a sample only when *every*
reward function returns None.
"""
from __future__ import annotations

import json
import logging
import os
import threading
import uuid
from collections import Counter
from functools import cached_property
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from .rollout import SweEnvRollout
from .runtime import Runtime
from .tools import tool_methods

logger = logging.getLogger("swe_env.trl")


class SweEnvSpec:
    """Args:
        addresses: the server(s) (``host:port``, a list, or the forms ``AsyncSweEnvClient`` takes).
        task_ids: the tasks to train on, one dataset row each (default: every task of ``dataset``).
        dataset: the server's dataset to list when ``task_ids`` is not given.
        num_generations: GRPOConfig's ``num_generations``: the rollouts of one row that make a GRPO
            group, which share a group id and so one server (each ``num_generations`` resets of a
            row make the next group).
        episode_options: EpisodeOptions for every Reset (max_steps, time limits, truncation...).
        max_observation_chars: a tool's output is cut in the middle beyond this.
        grade_unsubmitted: grade a rollout that ended without calling the submit tool (its
            changes are submitted for it) instead of scoring it 0.
        defer_grading: answer the submit tool at once (a fixed text instead of the server's
            observation) and grade in the background: GRPOTrainer runs the tool calls of a batch
            one rollout after another, so otherwise its gradings run one after another.
        lookahead: with ``GRPOConfig(shuffle_dataset=False)`` (rows read in order), how many rows
            after a group's row to prefetch the images of (and prewarm, with ``prewarm``): set it
            to the prompts of one generation batch to have the next batch ready. With a shuffled
            dataset TRL's sampler alone knows the next rows: leave it 0.
        prewarm: with ``lookahead``, also keep ``num_generations`` sandboxes of each next row's task
            started on the server its group will use.
        client_kwargs: more keyword arguments for ``AsyncSweEnvClient`` (token, TLS, timeouts).
    """

    def __init__(
        self,
        addresses: Union[str, Sequence[str]],
        task_ids: Optional[Sequence[str]] = None,
        *,
        dataset: str = "",
        num_generations: int = 8,
        episode_options: Optional[Dict[str, Any]] = None,
        max_observation_chars: int = 16384,
        grade_unsubmitted: bool = False,
        defer_grading: bool = False,
        lookahead: int = 0,
        prewarm: bool = False,
        reset_timeout_s: float = 600.0,
        client_kwargs: Optional[Dict[str, Any]] = None,
    ) -> None:
        self.addresses: List[str] = [a.strip() for a in addresses.split(",")] if isinstance(addresses, str) else list(addresses)
        self._task_ids = list(task_ids) if task_ids is not None else None
        self._dataset = dataset
        self.num_generations = max(1, int(num_generations))
        self.episode_options = dict(episode_options or {})
        self.max_observation_chars = int(max_observation_chars)
        self.grade_unsubmitted = grade_unsubmitted
        self.defer_grading = defer_grading
        self.lookahead = max(0, int(lookahead))
        self.prewarm = prewarm
        self.reset_timeout_s = reset_timeout_s
        self._client_kwargs = dict(client_kwargs or {})
        self._run_id = uuid.uuid4().hex[:8]
        self._rt: Optional[Runtime] = None
        self._lock = threading.Lock()
        self._resets: Counter = Counter()  # row -> resets so far in this process (group numbering)
        self._looked: set = set()

    # --- the runtime ------------------------------------------------------------------------------

    def _runtime(self) -> Runtime:
        with self._lock:
            if self._rt is None or self._rt.pid != os.getpid():
                self._rt = Runtime(self.addresses, self._client_kwargs)
            return self._rt

    def close(self, timeout_s: float = 120.0) -> List[str]:
        """Closes every episode still open (waits for the Closes under way); returns those it could
        not. Also runs at interpreter exit."""
        with self._lock:
            runtime, self._rt = self._rt, None
        return runtime.close(timeout_s) if runtime is not None else []

    # --- the tasks --------------------------------------------------------------------------------

    @cached_property
    def tasks(self) -> Dict[str, Optional[Dict[str, Any]]]:
        """Task id -> GetTask (prompt, tools), None for a task the server does not know (kept: its
        rows' Resets are refused and masked, and a warning says so here)."""
        runtime = self._runtime()
        ids = self._task_ids
        if ids is None:
            ids = [str(t["task_id"]) for t in runtime.run(runtime.client.list_tasks(self._dataset))]

        async def read(task_id: str) -> Optional[Dict[str, Any]]:
            try:
                return await runtime.client.get_task(task_id)
            except Exception as error:
                logger.warning("swe_env.trl: task %r: %s (its rows will be masked)", task_id, error)
                return None

        async def read_all() -> List[Optional[Dict[str, Any]]]:
            import asyncio

            return list(await asyncio.gather(*(read(t) for t in dict.fromkeys(ids))))

        found = dict(zip(dict.fromkeys(ids), runtime.run(read_all())))
        return {t: found[t] for t in ids}

    def _prompt_of(self, task_id: str) -> Optional[str]:
        task = self.tasks.get(task_id)
        return str(task["prompt"]) if task else None

    @cached_property
    def _tool_sets(self) -> Dict[str, List[Dict[str, Any]]]:
        """Environment name -> tool schemas: one per distinct tool set among the tasks (the tools'
        descriptions name the task's language), since TRL shows one schema per environment."""
        sets: Dict[str, List[Dict[str, Any]]] = {}
        for task in self.tasks.values():
            if task:
                sets.setdefault(json.dumps(task["tools"], sort_keys=True), task["tools"])
        if not sets:
            raise ValueError("none of the tasks is known to the server: no tools to train with")
        names = ["swe_env"] if len(sets) == 1 else [f"swe_env_{i}" for i in range(len(sets))]
        return dict(zip(names, sets.values()))

    def _environment_of(self, task_id: str) -> str:
        task = self.tasks.get(task_id)
        key = json.dumps(task["tools"], sort_keys=True) if task else None
        for name, tools in self._tool_sets.items():
            if key == json.dumps(tools, sort_keys=True):
                return name
        return next(iter(self._tool_sets))  # an unknown task: masked whatever its tools

    @property
    def submit_tool(self) -> str:
        """The tool that ends an episode with grading (the server's ``submit_solution``)."""
        names = [str(t.get("function", t).get("name", "")) for tools in self._tool_sets.values() for t in tools]
        return "submit_solution" if "submit_solution" in names else ""

    # --- TRL's three arguments --------------------------------------------------------------------

    @cached_property
    def train_dataset(self) -> Any:
        """A ``datasets.Dataset``: ``prompt`` (an empty user turn: ``reset`` returns the task's
        prompt, which TRL appends to it), ``task_id``, ``row`` (its index: the GRPO group's id and the
        lookahead) and, when the tasks' tool sets differ, ``environment`` (TRL's routing column)."""
        from datasets import Dataset

        ids = list(self.tasks)
        columns: Dict[str, List[Any]] = {
            "prompt": [[{"role": "user", "content": ""}] for _ in ids],
            "task_id": ids,
            "row": list(range(len(ids))),
        }
        if len(self._tool_sets) > 1:
            columns["environment"] = [self._environment_of(t) for t in ids]
        return Dataset.from_dict(columns)

    @cached_property
    def environment_classes(self) -> Dict[str, type]:
        """Environment name -> the generated ``SweEnvRollout`` subclass with the server's tools."""
        return {
            name: type("SweEnvRollout" if name == "swe_env" else f"SweEnvRollout_{name}", (SweEnvRollout,), {"_spec": self, **tool_methods(tools)})
            for name, tools in self._tool_sets.items()
        }

    @property
    def environment_factory(self) -> Union[Callable[[], SweEnvRollout], Dict[str, Callable[[], SweEnvRollout]]]:
        """One class (a callable TRL calls per rollout slot), or TRL's dict form when the tasks'
        tool sets differ (rows routed by their ``environment`` column)."""
        classes = self.environment_classes
        if len(classes) == 1:
            return next(iter(classes.values()))
        return dict(classes)

    @property
    def reward_funcs(self) -> List[Callable[..., Any]]:
        """None: the environment's ``get_reward`` is the reward (see the module's docstring)."""
        return []

    # --- groups and lookahead ---------------------------------------------------------------------

    def _row_key(self, task_id: str, row: Dict[str, Any]) -> str:
        return str(row["row"]) if row.get("row") is not None else task_id

    def _group_of(self, task_id: str, row: Dict[str, Any]) -> str:
        """The GRPO group of this reset: each ``num_generations`` resets of a row (TRL repeats a
        row that many times in a row) are one group, kept on one server."""
        key = self._row_key(task_id, row)
        with self._lock:
            n = self._resets[key]
            self._resets[key] = n + 1
        return f"trl-{self._run_id}-{key}-{n // self.num_generations}"

    def _next_group(self, key: str) -> str:
        with self._lock:
            n = self._resets[key]
        return f"trl-{self._run_id}-{key}-{(n + self.num_generations - 1) // self.num_generations}"

    def _look_ahead(self, row: Dict[str, Any], group_id: str) -> None:
        """Prefetches (and prewarms) the next ``lookahead`` rows' tasks, once per group."""
        if not self.lookahead or row.get("row") is None:
            return
        ids = list(self.tasks)
        start = int(row["row"])
        with self._lock:
            if group_id in self._looked:
                return
            self._looked.add(group_id)
        ahead: List[Tuple[str, str]] = []
        for j in range(start + 1, start + 1 + self.lookahead):
            key = j % len(ids)
            ahead.append((ids[key], self._next_group(str(key))))
        runtime = self._runtime()
        runtime.fire(runtime.client.prefetch(list(dict.fromkeys(t for t, _ in ahead))), "prefetch")
        if self.prewarm:
            runtime.fire(runtime.client.prewarm_batch([(t, g, self.num_generations) for t, g in ahead]), "prewarm")


__all__ = ["SweEnvSpec"]
