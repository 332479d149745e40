"""swe-env as a Harbor environment backend (Harbor 0.26, Python >= 3.12).

``swe_env.harbor.environment:SweEnvEnvironment`` is the class Harbor imports with
``harbor run --environment-import-path``: the agent's commands run in a swe-env episode's own
``bash``, and the trial's verification is swe-env's grading (``submit_solution`` in the server's
separate grading container), written as the trial's reward on the host. Only that module imports
Harbor; the helpers beside it are plain Python.
"""
