"""A Python client of verdict's HTTP API (``verdict serve``).

Log each user's metric values from a training job, and ask whether a winner
is real::

    import verdict_client as vc

    c = vc.Client()  # VERDICT_URL and VERDICT_TOKEN
    c.log("recsys", "als-64", "test", {"u1": {"ndcg@10": 0.5}, "u2": {"ndcg@10": 0.25}})
    result = c.compare("als-32", "als-64", experiment="recsys", metric="ndcg@10")
    print(result["ndcg@10"]["verdict"])

Only the standard library is needed; NumPy arrays and pandas DataFrames are
taken as they are when given.
"""

from ._version import __version__
from .client import Client
from .errors import VerdictConnectionError, VerdictError

__all__ = ["Client", "VerdictError", "VerdictConnectionError", "__version__"]
