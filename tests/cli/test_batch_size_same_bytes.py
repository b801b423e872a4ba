"""``bayeskit train`` writes the same bytes with and without ``--batch-size`` (a kernel
column's statistic was summed in Fortran order by one and in C order by the other, and stored
so): the guide compares such files with ``cmp``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


@pytest.mark.parametrize("batch", [7, 64])
def test_a_mixed_table_trains_to_the_same_file_in_batches(cli, tmp_path, batch):
    rng = np.random.default_rng(1)
    n = 500
    data = tmp_path / "t.csv"
    pd.DataFrame(
        {
            "a": rng.normal(size=n).round(4),
            "b": rng.poisson(3, n),
            "c": rng.choice(["x", "y", "z"], n),
            "label": rng.choice(["p", "q"], n),
        }
    ).to_csv(data, index=False)
    whole, batched = tmp_path / "whole.bk", tmp_path / "batched.bk"
    result = cli("train", data, "--target", "label", "-o", whole)
    assert result.exit_code == 0, result.stderr
    result = cli("train", data, "--target", "label", "--batch-size", batch, "-o", batched)
    assert result.exit_code == 0, result.stderr
    assert whole.read_bytes() == batched.read_bytes()
