"""A swe-env server's tasks as NeMo Gym dataset rows (JSONL), for the swe_env resources server.

Usage: python -m swe_env.nemo_gym.dataset --server HOST:PORT --out tasks.jsonl [--dataset NAME]

Each row: ``responses_create_params`` (the task prompt as input, the two tools as Responses-API
function tools) and ``task_id``, which the resources server's /reset reads.
"""
from __future__ import annotations

import argparse
import json
from typing import Any, Dict, List, Optional

from ..client.sync_client import SweEnvClient


def gym_row(task: Dict[str, Any], tools: List[Dict[str, Any]], agent: str = "swe_env_gymnasium_agent") -> Dict[str, Any]:
    return {
        "responses_create_params": {
            "input": [{"role": "user", "content": task["prompt"]}],
            "tools": [_responses_tool(t) for t in tools],
        },
        "task_id": task["task_id"],
        "agent_ref": {"type": "responses_api_agents", "name": agent},
    }


def _responses_tool(tool: Dict[str, Any]) -> Dict[str, Any]:
    """An OpenAI chat-completions tool schema in the Responses API's flat form."""
    function = tool.get("function", tool)
    return {"type": "function", "name": function["name"], "description": function.get("description", ""), "parameters": function.get("parameters", {}), "strict": False}


def build_rows(client: SweEnvClient, dataset: str = "", agent: str = "swe_env_gymnasium_agent") -> List[Dict[str, Any]]:
    rows = []
    for summary in client.list_tasks(dataset=dataset):
        task = client.get_task(summary["task_id"])
        rows.append(gym_row(task, task.get("tools") or [], agent))
    return rows


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="127.0.0.1:50051")
    parser.add_argument("--dataset", default="")
    parser.add_argument("--out", required=True)
    parser.add_argument("--agent", default="swe_env_gymnasium_agent", help="the agent_ref of each row (swe_env_simple_agent for the base resources server)")
    args = parser.parse_args(argv)
    with SweEnvClient(args.server) as client:
        rows = build_rows(client, args.dataset, args.agent)
    with open(args.out, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    print(f"wrote {len(rows)} rows to {args.out}")


if __name__ == "__main__":
    main()
