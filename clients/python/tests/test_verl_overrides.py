"""The documented verl command line for SweEnvRLHFDataset's servers goes through Hydra's own
composition (the parser verl's trainer uses) and reaches the dataset as the addresses given. The
form docs/trainers.md once showed, ``+data.swe_env_addr=A,B``, is a sweep to Hydra: refused."""
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.errors import ConfigCompositionException

from swe_env.verl.prefetch import _addresses


def _compose(tmp_path: Path, override: str):
    (tmp_path / "trainer.yaml").write_text("data:\n  train_batch_size: 2\n")
    with initialize_config_dir(config_dir=str(tmp_path), version_base=None):
        return compose(config_name="trainer", overrides=[override])


def test_a_list_of_servers_composes_and_reaches_the_dataset(tmp_path: Path) -> None:
    config = _compose(tmp_path, "+data.swe_env_addr=[10.0.0.1:50051,10.0.0.2:50051]")
    assert _addresses(config.data.get("swe_env_addr")) == ["10.0.0.1:50051", "10.0.0.2:50051"]
    quoted = _compose(tmp_path, "+data.swe_env_addr='10.0.0.1:50051,10.0.0.2:50051'")
    assert _addresses(quoted.data.get("swe_env_addr")) == ["10.0.0.1:50051", "10.0.0.2:50051"]
    single = _compose(tmp_path, "+data.swe_env_addr=127.0.0.1:50051")
    assert _addresses(single.data.get("swe_env_addr")) == ["127.0.0.1:50051"]


def test_a_bare_comma_list_is_a_sweep_hydra_refuses(tmp_path: Path) -> None:
    with pytest.raises(ConfigCompositionException):
        _compose(tmp_path, "+data.swe_env_addr=10.0.0.1:50051,10.0.0.2:50051")
