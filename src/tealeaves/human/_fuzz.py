"""Random request bodies for the annotation server (used by the test suite and ``benchmarks/``).

:func:`bodies` is a hypothesis strategy of raw POST bodies: valid
judgments, valid judgments with one field replaced by a random value,
judgment-shaped objects whose fields take random values, arbitrary JSON
values, JSON with NaN/Infinity literals, and bytes that are not JSON or not
UTF-8.
:func:`post` sends one and returns the status, never raising on a reply.
"""

from __future__ import annotations

import http.client
import json

from tealeaves.human.study import Study


def bodies(study: Study):
    """A hypothesis strategy of raw request bodies (bytes) for ``POST /api/TOKEN/judgments``.

    Parameters
    ----------
    study : Study
        The study served: its item ids and options make the valid judgments.

    Returns
    -------
    hypothesis.strategies.SearchStrategy
        Bodies of every kind listed in the module docstring.
    """
    from hypothesis import strategies as st

    scalars = (st.none() | st.booleans() | st.integers(-2**70, 2**70)
               | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=40))
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=12)
    ids = sorted(study.by_id)
    options = sorted({o for item in study.items for o in item["options"]})
    field = {"item_id": st.sampled_from(ids) | values, "response": st.sampled_from(options) | values,
             "key": st.text(min_size=8, max_size=20) | values,
             "confidence": st.none() | st.floats(allow_nan=True) | values,
             "time": st.none() | st.floats(allow_nan=True) | st.integers(-5, 10**400) | values}
    judgment = st.fixed_dictionaries({}, optional=field).flatmap(
        lambda d: st.dictionaries(st.text(max_size=8), values, max_size=2).map(lambda extra: {**extra, **d}))
    valid = st.sampled_from(study.items).flatmap(lambda item: st.fixed_dictionaries(
        {"item_id": st.just(item["id"]), "response": st.sampled_from(item["options"]),
         "key": st.text("0123456789abcdef", min_size=8, max_size=16)},
        optional={"confidence": st.none() | st.floats(0, 5), "time": st.none() | st.floats(0, 600)}))
    one_wrong = st.tuples(valid, st.sampled_from(sorted(field)), values).map(lambda t: {**t[0], t[1]: t[2]})
    as_json = (valid | one_wrong | judgment | values).map(
        lambda v: json.dumps(v, allow_nan=True).encode("utf-8"))
    as_text = st.text(max_size=100).map(lambda t: t.encode("utf-8", "replace"))
    return as_json | st.binary(max_size=200) | as_text


def post(port: int, path: str, body: bytes, headers: dict | None = None, host: str = "127.0.0.1",
         timeout: float = 10) -> tuple[int, dict, bytes]:
    """POST ``body`` and return ``(status, headers, body)`` of the reply (one connection per request).

    Parameters
    ----------
    port : int
        The server's port.
    path : str
        The request path.
    body : bytes
        The request body (sent with ``Content-Type: application/json``).
    headers : dict, optional
        More request headers (they override the content type).
    host : str
        The server's address.
    timeout : float
        Seconds before the connection gives up.

    Returns
    -------
    tuple
        The reply's status, headers (a dict) and body (bytes).
    """
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request("POST", path, body, {"Content-Type": "application/json", **(headers or {})})
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()
