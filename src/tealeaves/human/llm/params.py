"""Declarations of the parameters of the language-model transport (:mod:`tealeaves.human.llm.client`).

:class:`~tealeaves.human.llm.client.ChatClient` checks its arguments with these, and ``tealeaves
human ask`` builds its options from the same declarations (``docs/naming.md``).  This module
imports nothing heavy, so the command line can import it at start-up.
"""

from __future__ import annotations

from tealeaves._params import Param

#: The base URL of an OpenAI-compatible API (requests go to ``{endpoint}/chat/completions``).
ENDPOINT = Param("endpoint", "str",
                 help="base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:8080/v1")
#: The model's name as the endpoint knows it.
MODEL = Param("model", "str", help="the model's name as the endpoint knows it")
#: The SQLite file of cached requests and answers.
CACHE = Param("cache", "path",
              help="SQLite file caching every request and answer (a rerun asks only what is missing)")
#: The environment variable holding the API key (the key itself is never a parameter).
API_KEY_ENV = Param("api_key_env", "str",
                    help="environment variable holding the API key, sent as a bearer token "
                    "(never written anywhere)")
#: Concurrent requests.
N_JOBS = Param("n_jobs", "int", min_value=1, max_value=256, short="-j", help="concurrent requests")
#: Requests started per minute at most (retries included); at least 0.001 (one per 1000 minutes: a
#: smaller rate would space the requests beyond what a clock can wait for).
REQUESTS_PER_MINUTE = Param("requests_per_minute", "float", min_value=0.001,
                            help="requests started per minute at most, retries included (>= 0.001)")
#: Items asked at most in one run (retries of an item asked are not counted again).
MAX_REQUESTS = Param("max_requests", "int", min_value=0,
                     help="items asked at most in this run; the rest are not asked")
#: Seconds after which no request starts (the rest are reported as not asked).
TIME_BUDGET = Param("time_budget", "float", min_value=0, include_min=False,
                    help="seconds after which no new request starts; the rest are not asked")
#: Seconds a request may wait for the endpoint (connecting, and each read) before it is retried.
TIMEOUT = Param("timeout", "float", min_value=0, include_min=False, max_value=86_400,
                help="seconds a request waits for the endpoint before it is retried")
#: Retries of a request after a 429, a 5xx, a timeout or a dropped connection.
MAX_RETRIES = Param("max_retries", "int", min_value=0, max_value=100,
                    help="retries after a 429, a 5xx, a timeout or a dropped connection")
#: The first retry's wait in seconds; each further retry waits twice as long (with jitter).
BACKOFF = Param("backoff", "float", min_value=0, max_value=3600,
                help="seconds before the first retry, doubled for each further one (with jitter)")
