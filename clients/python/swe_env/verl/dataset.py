"""Turns the server's tasks into verl dataset rows (parquet where pandas and pyarrow are installed,
else JSONL). Usage: python -m swe_env.verl.dataset --server HOST:PORT --out train.parquet [--dataset NAME]
"""
from __future__ import annotations

import argparse
import json
from typing import Any, Dict, List, Optional

from ..client import SweEnvClient


def verl_row(task: Dict[str, Any], index: int, split: str) -> Dict[str, Any]:
    task_id = task["task_id"]
    create = {"create_kwargs": {"task_id": task_id}}
    return {
        "data_source": f"swe_env/{task.get('dataset', '')}",
        "agent_name": "swe_env",
        "prompt": [{"role": "user", "content": task["prompt"]}],
        "ability": "software-engineering",
        # verl requires a ground truth; the reward comes from the environment, keyed by task id.
        "reward_model": {"style": "rule", "ground_truth": task_id},
        "extra_info": {
            "split": split,
            "index": index,
            "task_id": task_id,
            "repo": task.get("repo", ""),
            "need_tools_kwargs": True,
            "tools_kwargs": {"bash": create, "submit_solution": create},
            "interaction_kwargs": {},
        },
    }


def build_rows(client: SweEnvClient, dataset: str = "", split: str = "train") -> List[Dict[str, Any]]:
    summaries = client.list_tasks(dataset=dataset)
    return [verl_row(client.get_task(s["task_id"]), i, split) for i, s in enumerate(summaries)]


def write_rows(rows: List[Dict[str, Any]], out: str) -> str:
    """Parquet when pandas and pyarrow are importable and the name ends in .parquet; JSONL otherwise."""
    if out.endswith(".parquet"):
        try:
            import pandas as pd  # type: ignore

            pd.DataFrame(rows).to_parquet(out)
            return out
        except ImportError:
            out = out[: -len(".parquet")] + ".jsonl"
    with open(out, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    return out


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--server", default="127.0.0.1:50051")
    parser.add_argument("--dataset", default="")
    parser.add_argument("--split", default="train")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    with SweEnvClient(args.server) as client:
        rows = build_rows(client, args.dataset, args.split)
    written = write_rows(rows, args.out)
    print(f"wrote {len(rows)} rows to {written}")


if __name__ == "__main__":
    main()
