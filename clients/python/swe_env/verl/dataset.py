"""Turns a server's tasks into verl dataset rows, written as parquet (what verl's RLHFDataset reads).

Usage: python -m swe_env.verl.dataset --server HOST:PORT --out train.parquet [--dataset NAME]
                                       [--agent swe_env|swe_env_tool_agent|tool_agent]

``--agent swe_env`` (default) makes rows for the ``swe_env`` agent loop; ``--agent
swe_env_tool_agent`` (or plain ``tool_agent``) makes rows for verl's own ToolAgentLoop with the
BaseTool pair (``tools_kwargs`` carry the task; see ``swe_env.verl.tools``).
Needs pyarrow only, not verl.
"""
from __future__ import annotations

import argparse
from typing import Any, Dict, List, Optional

from ..client.sync_client import SweEnvClient

AGENTS = ("swe_env", "tool_agent", "swe_env_tool_agent")


def verl_row(task: Dict[str, Any], index: int, split: str, agent: str = "swe_env") -> Dict[str, Any]:
    if agent not in AGENTS:
        raise ValueError(f"agent must be one of {AGENTS}, not {agent!r}")
    task_id = task["task_id"]
    extra_info: Dict[str, Any] = {
        "split": split,
        "index": index,
        "task_id": task_id,
        "repo": task.get("repo", ""),
    }
    if agent in ("tool_agent", "swe_env_tool_agent"):
        create = {"create_kwargs": {"task_id": task_id}}
        extra_info["need_tools_kwargs"] = True
        extra_info["tools_kwargs"] = {"bash": create, "submit_solution": create}
    # No empty dicts anywhere (e.g. interaction_kwargs: {}): parquet cannot store a struct without
    # fields, and verl reads a missing interaction_kwargs as "no interaction".
    return {
        "data_source": f"swe_env/{task.get('dataset', '') or 'tasks'}",
        "agent_name": agent,
        "prompt": [{"role": "user", "content": task["prompt"]}],
        "ability": "software-engineering",
        # verl requires a ground truth; the reward comes from the environment, keyed by task id.
        "reward_model": {"style": "rule", "ground_truth": task_id},
        "extra_info": extra_info,
    }


def build_rows(client: SweEnvClient, dataset: str = "", split: str = "train", agent: str = "swe_env") -> List[Dict[str, Any]]:
    summaries = client.list_tasks(dataset=dataset)
    return [verl_row(client.get_task(s["task_id"]), i, split, agent) for i, s in enumerate(summaries)]


def write_rows(rows: List[Dict[str, Any]], out: str) -> str:
    """Writes parquet with pyarrow (``pip install 'swe-env-client[parquet]'``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not out.endswith(".parquet"):
        raise ValueError(f"verl reads parquet: name the output *.parquet, not {out!r}")
    pq.write_table(pa.Table.from_pylist(rows), out)
    return out


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="127.0.0.1:50051")
    parser.add_argument("--dataset", default="")
    parser.add_argument("--split", default="train")
    parser.add_argument("--agent", default="swe_env", choices=AGENTS)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    with SweEnvClient(args.server) as client:
        rows = build_rows(client, args.dataset, args.split, args.agent)
    print(f"wrote {len(rows)} rows to {write_rows(rows, args.out)}")


if __name__ == "__main__":
    main()
