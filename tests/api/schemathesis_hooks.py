"""Keeps schemathesis within the one limit the served schema cannot state.

The schema bounds each query parameter in characters. What bounds the request target as a whole is
in bytes: kioku answers 414 `uri_too_long` past 65,000 (README), and a target of 65,535 bytes or
more cannot be parsed by the HTTP layer at all, which answers a bare 400 before kioku sees it. A
query of several parameters, each within its own limit, can pass both; such a query is not
generated. tests/api/hostile.rs checks the 414.
"""

from urllib.parse import urlencode

import schemathesis

# src/http/limits.rs MAX_URI_BYTES.
MAX_URI_BYTES = 65_000


@schemathesis.hook
def filter_query(ctx, query):
    if not isinstance(query, dict):
        return True
    # "/?" and the query string, encoded as the client encodes it.
    return 2 + len(urlencode(query, doseq=True)) <= MAX_URI_BYTES
