"""One chat-completions request over HTTP, and what each way of failing means.

:meth:`Endpoint.send` posts one request body and returns the answer, or raises one of three
signals that :class:`~tealeaves.human.llm.client.ChatClient` acts on:

* :class:`_Retry`: worth another attempt (429 with its ``Retry-After``, 408, 5xx, a timeout, a
  dropped connection);
* :class:`_ItemFailure`: this item fails alone (malformed JSON, no ``choices[0].message.content``,
  an empty content, an error in a 200 response, another 4xx); the response text is kept;
* :class:`_Fatal`: the run ends with its one :class:`~tealeaves.errors.EndpointError` (unreachable,
  refused key, unknown model, wrong path, a redirect, TLS failing).

The API key is read from the environment when each request is sent and never kept; every text
that leaves this module (a stored response, a reason, a message) has it replaced by ``***``.
"""

from __future__ import annotations

import email.utils
import errno
import http.client
import ipaddress
import json
import os
import socket
import ssl
import time
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from tealeaves._version import __version__
from tealeaves.errors import EndpointAuthError, EndpointError, EndpointModelError, naming

#: A response longer than this is not read (an item failure).
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
#: The longest wait a ``Retry-After`` header may ask for, in seconds.
MAX_RETRY_AFTER = 600.0
#: The longest piece of a server's error text quoted in a reason or a message.
QUOTE = 300
#: Network errors that mean the host cannot be reached at all (not worth a retry).
UNREACHABLE = (errno.ECONNREFUSED, errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EADDRNOTAVAIL)
#: Phrases of an error text that, beside the model's name, say the model is not served.
MODEL_MISSING = ("not found", "does not exist", "unknown model", "no such model", "model_not_found",
                 "invalid model")


class _Fatal(Exception):
    """Carries the one error that ends a run (raised in a worker, re-raised by the run)."""


class _Retry(Exception):
    """A response or failure worth another attempt.

    Parameters
    ----------
    reason : str
        What happened (``HTTP 503``, ``timeout``).
    wait : float, optional
        Seconds a ``Retry-After`` asked for.
    """

    def __init__(self, reason: str, wait: float | None = None):
        super().__init__(reason)
        self.reason, self.wait = reason, wait


class _ItemFailure(Exception):
    """A response that fails this item alone, without retry.

    Parameters
    ----------
    reason : str
        Why (``malformed JSON (...)``, ``empty answer``, ``HTTP 400: ...``).
    raw : str, optional
        The response text, cleaned of the key.
    """

    def __init__(self, reason: str, raw: str | None = None):
        super().__init__(reason)
        self.reason, self.raw = reason, raw


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are refused (a 3xx becomes an error): the key would follow the request elsewhere."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: D102 (urllib's hook)
        return None


def retry_after(value: str | None) -> float | None:
    """Seconds a ``Retry-After`` header asks for: a number of seconds or an HTTP date, within [0, 600].

    Parameters
    ----------
    value : str or None
        The header's value.

    Returns
    -------
    float or None
        The wait, or ``None`` for a missing or unreadable header.

    Examples
    --------
    >>> retry_after("2"), retry_after("-1"), retry_after("later")
    (2.0, 0.0, None)
    """
    if not value or not value.strip():
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        try:
            seconds = email.utils.parsedate_to_datetime(value.strip()).timestamp() - time.time()
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
    if seconds != seconds:
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


def quote(text: str) -> str:
    """A server's text as one printable line of at most :data:`QUOTE` characters, for a message.

    Parameters
    ----------
    text : str
        The text (an error page, say).

    Returns
    -------
    str
        Its runs of white space made one space, other unprintable characters escaped (``\\x1b``),
        cut with ``...`` when longer.

    Examples
    --------
    >>> quote("<h1>Not\\n  Found</h1>\\x1b[31m")
    '<h1>Not Found</h1>\\\\x1b[31m'
    """
    line = "".join(c if c.isprintable() else repr(c)[1:-1] for c in " ".join(text.split()))
    return line if len(line) <= QUOTE else line[:QUOTE - 3] + "..."


def _is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Endpoint:
    """The chat-completions URL of one endpoint and model, with the key's environment variable.

    Parameters
    ----------
    endpoint : str
        The checked base URL (no trailing ``/``).
    model : str
        The model's name.
    api_key_env : str or None
        The environment variable holding the key (``None``: send none).
    timeout : float
        Seconds to wait to connect and for each read.
    """

    def __init__(self, endpoint: str, model: str, api_key_env: str | None, timeout: float):
        self.endpoint, self.model, self.api_key_env, self.timeout = endpoint, model, api_key_env, timeout
        self.url = endpoint + "/chat/completions"
        self.host = urlsplit(endpoint).netloc
        # a server on this machine is never reached through a proxy set in the environment
        local = _is_loopback(urlsplit(endpoint).hostname or "")
        self._opener = urllib.request.build_opener(_NoRedirect, *([urllib.request.ProxyHandler({})] * local))

    def _key(self) -> str:
        """The API key from the environment, read now (empty when there is none)."""
        return os.environ.get(self.api_key_env, "") if self.api_key_env else ""

    def _clean(self, text: str) -> str:
        """``text`` with the API key, should a server echo it, replaced by ``***``."""
        key = self._key()
        return text.replace(key, "***") if key else text

    def _headers(self) -> dict:
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "User-Agent": f"tealeaves/{__version__}"}
        key = self._key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def send(self, data: bytes) -> tuple[str, str]:
        """Post one request body.

        Parameters
        ----------
        data : bytes
            The JSON body.

        Returns
        -------
        tuple of (str, str)
            The answer and the response text (cleaned of the key).

        Raises
        ------
        _Retry, _ItemFailure, _Fatal
            As the module's docstring says.
        """
        request = urllib.request.Request(self.url, data=data, headers=self._headers(), method="POST")
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                raw = response.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as exc:
            raise self._http_error(exc) from None
        except urllib.error.URLError as exc:
            raise self._network_error(exc.reason) from None
        except (TimeoutError, http.client.HTTPException, OSError) as exc:
            raise self._network_error(exc) from None
        if len(raw) > MAX_RESPONSE_BYTES:
            raise _ItemFailure(f"response over {MAX_RESPONSE_BYTES} bytes")
        text = raw.decode("utf-8", errors="replace")
        return self._parse(text), self._clean(text)

    def _parse(self, text: str) -> str:
        """The answer in a 200 response (``choices[0].message.content``, not blank), or
        :class:`_ItemFailure`: malformed JSON, no content, an error object, content that is not text or
        is blank, an answer holding the key (storing it would write the key to disk)."""
        raw = self._clean(text)
        try:
            body = json.loads(text)
        except (ValueError, RecursionError) as exc:  # RecursionError: nested too deeply
            raise _ItemFailure(f"malformed JSON ({exc})", raw) from None
        try:
            content = body["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            error = body.get("error") if isinstance(body, dict) else None
            why = (f"the endpoint answered an error: {quote(self._clean(json.dumps(error)))}" if error
                   else "the response has no choices[0].message.content")
            raise _ItemFailure(why, raw) from None
        if not isinstance(content, str):
            raise _ItemFailure(f"choices[0].message.content is {type(content).__name__}, not text", raw)
        if not content.strip():
            raise _ItemFailure("empty answer", raw)
        if raw != text and self._key() in content:
            raise _ItemFailure("the answer holds the API key, so it is not kept", raw)
        return content

    def _http_error(self, exc: urllib.error.HTTPError) -> Exception:
        try:
            text = self._clean(exc.read(64 * 1024).decode("utf-8", errors="replace"))
        except (OSError, http.client.HTTPException):
            text = ""
        quoted = f": {quote(text)}" if text.strip() else ""
        code, headers = exc.code, exc.headers or {}
        if code in (408, 429) or code >= 500:
            return _Retry(f"HTTP {code}", retry_after(headers.get("Retry-After")))
        if code in (401, 403):
            return _Fatal(self._auth_error(code, quoted))
        if self._names_model(text) or (code == 404 and "model" in text.lower()):
            return _Fatal(EndpointModelError(f"{self.host} does not serve the model {self.model!r} "
                                            f"(HTTP {code}{quoted})",
                                            fix=f"give a model the endpoint lists at {self.endpoint}/models"))
        if code == 404:
            return _Fatal(EndpointError(f"{self.url} does not exist (HTTP 404{quoted})",
                                       fix="give the base URL of the OpenAI-compatible API, which usually "
                                       "ends in /v1"))
        if 300 <= code < 400:
            where = headers.get("Location", "?")
            return _Fatal(EndpointError(f"{self.url} redirects (HTTP {code}) to {where}",
                                       fix="give the endpoint's final URL"))
        return _ItemFailure(f"HTTP {code}{quoted}", text or None)

    def _auth_error(self, code: int, quoted: str) -> EndpointAuthError:
        env = self.api_key_env
        if env and not self._key():
            return EndpointAuthError(f"{self.url} refused the request with HTTP {code} (no key was sent: "
                                     f"{env} is not set){quoted}",
                                     fix=f"set the environment variable {env} to the endpoint's API key")
        if env:
            return EndpointAuthError(f"{self.url} refused the request with HTTP {code}{quoted}",
                                     fix=f"check the key in the environment variable {env}")
        fix = "give the environment variable holding the key with `api_key_env`"
        return naming(EndpointAuthError(f"{self.url} refused the request with HTTP {code}{quoted}", fix=fix),
                      "api_key_env")

    def _names_model(self, text: str) -> bool:
        lower = text.lower()
        return self.model.lower() in lower and any(phrase in lower for phrase in MODEL_MISSING)

    def _network_error(self, reason: object) -> Exception:
        if isinstance(reason, TimeoutError):
            return _Retry("timeout")
        if isinstance(reason, ssl.SSLError):
            return _Fatal(EndpointError(f"cannot use {self.endpoint}: TLS failed ({quote(str(reason))})",
                                       fix="check the endpoint's certificate, or its scheme"))
        if isinstance(reason, socket.gaierror):
            what = f"host {urlsplit(self.endpoint).hostname!r} not found"
        elif isinstance(reason, OSError) and reason.errno in UNREACHABLE:
            what = "connection refused" if reason.errno == errno.ECONNREFUSED else os.strerror(reason.errno)
        elif isinstance(reason, str):
            what = quote(reason)
        else:
            return _Retry(f"connection failed ({type(reason).__name__}: {quote(str(reason))})")
        return _Fatal(EndpointError(f"cannot reach {self.endpoint}: {what}",
                                   fix="start the server, or check the endpoint's host and port"))
