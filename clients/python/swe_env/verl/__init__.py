"""verl integration: an agent loop registered as ``swe_env`` and a bash / submit_solution tool pair.

Importable without verl installed (the verl base classes are then small stand-ins), so the loop can
be tested here and imported by code that only builds datasets.
"""
from .agent_loop import SweEnvAgentLoop
from .tools import SweBashTool, SweSubmitTool, compute_score

__all__ = ["SweEnvAgentLoop", "SweBashTool", "SweSubmitTool", "compute_score"]
