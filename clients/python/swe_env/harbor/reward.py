"""The trial's reward as Harbor's verifier reads it: ``reward.json`` in the host's verifier
directory (it takes the JSON file before ``reward.txt``), with the grading report beside it."""
from __future__ import annotations

import json
from pathlib import Path

from .episode import Grade

REPORT_FILE = "swe-env-report.json"


def write_reward(verifier_dir: Path, grade: Grade) -> None:
    verifier_dir.mkdir(parents=True, exist_ok=True)
    # A stale reward.txt from an earlier verify of this trial directory must not be read instead.
    (verifier_dir / "reward.txt").unlink(missing_ok=True)
    (verifier_dir / REPORT_FILE).write_text(json.dumps({"reward": grade.reward, "status": grade.status, "report": grade.report}, indent=2))
    (verifier_dir / "reward.json").write_text(json.dumps({"reward": grade.reward}))
