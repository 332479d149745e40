"""OpenEnv's Task API (``TaskProvider``: ``/{env}/splits``, ``/{env}/tasks``, ...) over the swe-env
server's task list. A split is one of the server's datasets (a task's ``dataset`` field); a task
spec is the server's task summary with its ``index`` in the split. ``reset(split=..., index=...)``
opens an episode on that task (``reset(task_id=...)`` names it directly)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from .backend import Backend


class TaskCatalog:
    def __init__(self, backend: Backend) -> None:
        self._backend = backend

    def _split(self, split: str) -> List[Dict[str, Any]]:
        tasks = [t for t in self._backend.tasks() if t.get("dataset") == split]
        if not tasks:
            known = ", ".join(self.splits()) or "none"
            raise KeyError(f"unknown split {split!r}: the swe-env server's datasets are {known}")
        return [{**task, "index": i} for i, task in enumerate(tasks)]

    def splits(self) -> List[str]:
        return list(dict.fromkeys(str(t.get("dataset", "")) for t in self._backend.tasks()))

    def list_tasks(self, split: str) -> List[Dict[str, Any]]:
        return self._split(split)

    def num_tasks(self, split: str) -> int:
        return len(self._split(split))

    def get_task(self, split: str, index: int) -> Dict[str, Any]:
        tasks = self._split(split)
        if not 0 <= index < len(tasks):
            # OpenEnv's route turns IndexError into 400 Bad Request.
            raise IndexError(f"index {index} is out of range for split {split!r} ({len(tasks)} tasks)")
        return tasks[index]

    def get_task_range(self, split: str, start: Optional[int] = None, stop: Optional[int] = None) -> List[Dict[str, Any]]:
        return self._split(split)[start:stop]

    def task_id(self, split: str, index: int) -> str:
        return str(self.get_task(split, index)["task_id"])
