"""Language models as annotators: the transport to an OpenAI-compatible chat-completions endpoint.

* :class:`ChatClient` asks each :class:`ChatRequest` exactly once (answers cached on disk by
  :class:`ChatCache`, so a rerun asks only what is missing), within bounds (concurrency, rate,
  request and time budgets), with retries, and returns a :class:`ChatResult` per request.

See ``docs/human.md``.  Names are exported lazily (:mod:`tealeaves._lazy`): a submodule loads on
first use.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_package

if TYPE_CHECKING:  # the table of exports, one line per public name (tealeaves._lazy)
    # isort: off
    from tealeaves.human.llm.cache import ChatCache
    from tealeaves.human.llm.client import ChatClient
    from tealeaves.human.llm.client import ChatProgress
    from tealeaves.human.llm.client import ChatRequest
    from tealeaves.human.llm.client import ChatResult
    # isort: on

__getattr__, __dir__, __all__ = lazy_package(__name__)
