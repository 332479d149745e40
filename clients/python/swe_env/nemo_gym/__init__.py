"""NeMo Gym integration (nemo-gym 0.7.x): a resources server over swe-env episodes, built on NeMo
Gym's own ``GymnasiumServer`` (``resources_servers.gymnasium``) and driven by NeMo Gym's
``gymnasium_agent``, and a converter from a swe-env server's tasks to NeMo Gym dataset rows.
``swe_env.nemo_gym.dataset`` imports without nemo-gym; ``swe_env.nemo_gym.app`` needs it.
"""
