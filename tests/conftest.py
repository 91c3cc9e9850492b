"""Fixtures shared by test modules."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def client():
    """A real LocalCluster of two worker processes, and a client of it, for the whole module."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        scheduler_kwargs={"dashboard": False},
    )
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()
