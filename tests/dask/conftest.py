"""One real Dask cluster (a LocalCluster of two worker processes) for the whole test session:
starting one takes seconds, so every test that needs it shares it (the tests that use it are
in one xdist group, so they run in one pytest worker)."""

from __future__ import annotations

import logging

import distributed
import pytest

import dask


@pytest.fixture(scope="session")
def cluster_client():
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",  # no fixed port: another cluster may hold 8787
        silence_logs=logging.ERROR,
    )
    client = distributed.Client(cluster, set_as_default=False)
    yield client
    client.close()
    cluster.close()


@pytest.fixture
def on_cluster(cluster_client):
    """Run dask computations of the test on the shared cluster."""
    with dask.config.set(scheduler=cluster_client):
        yield cluster_client


@pytest.fixture
def on_threads():
    """Run dask computations of the test in this process (fast, for many small examples)."""
    with dask.config.set(scheduler="sync"):
        yield
