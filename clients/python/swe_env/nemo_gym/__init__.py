"""NeMo Gym integration (nemo-gym 0.7.x): a resources server over swe-env episodes, built on NeMo
Gym's own ``GymnasiumServer`` (``resources_servers.gymnasium``); its agent, NeMo Gym's
``GymnasiumAgent`` answering a rollout that could not run with a failures-sidecar row
(``swe_env.nemo_gym.agent``); the server directories ``ng_run`` starts them from
(``python -m swe_env.nemo_gym.layout``); and a converter from a swe-env server's tasks to NeMo Gym
dataset rows. Beside them, ``swe_env.nemo_gym.resources``: the same episodes behind NeMo Gym's BASE
resources-server routes (``/seed_session``, one route per tool, ``/verify``) on its
``SimpleResourcesServer``, for NeMo Gym's ``simple_agent``; its sessions in ``sessions``.
``swe_env.nemo_gym.dataset``, ``layout`` and ``sessions`` import without nemo-gym; ``app``,
``agent`` and ``resources`` need it.
"""
