"""One call to the service over the standard library's HTTP (http.client, one kept-alive connection per
thread): the key or token in a header, a timeout, and the one retry rule — a 429 or 503 is asked again
after its Retry-After, at most ``max_retries`` times; everything else (a redirect too, and a wait longer
than ``max_retry_wait``, such as a daily allowance's until midnight) is raised at once as a ProblemError."""
import email.utils
import http.client
import json
import math
import re
import ssl
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Tuple

from ._errors import ProblemError, UnreachableError

RETRIED = (429, 503)
USER_AGENT = "aloft-python/0.1.0"


def retry_after_seconds(value: Optional[str], now: Optional[float] = None) -> Optional[int]:
    """Retry-After in seconds: delta-seconds or an HTTP date (…GMT); None when absent or unreadable."""
    text = (value or "").strip()
    if re.fullmatch(r"[0-9]+", text):
        return int(text)
    if not text.endswith(" GMT"):
        return None
    try:
        at = email.utils.parsedate_to_datetime(text).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0, int(-(-(at - (time.time() if now is None else now)) // 1)))


def non_finite(value: Any, path: str = "body") -> Optional[str]:
    """A body's first number JSON cannot carry (NaN, ±Infinity), as ``path: value``; None when there is none."""
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{path}: {value}"
    if isinstance(value, dict):
        inner = [(f"{path}.{k}", v) for k, v in value.items()]
    elif isinstance(value, list):
        inner = [(f"{path}[{k}]", v) for k, v in enumerate(value)]
    else:
        return None
    for where, v in inner:
        found = non_finite(v, where)
        if found is not None:
            return found
    return None


def json_of(status: int, reason: str, body: bytes) -> Any:
    """A JSON answer's value; a 2xx that is not JSON (a proxy's page, say) is a ProblemError showing its start."""
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise ProblemError(status, None, None, f"{reason} (not JSON)".strip(), body.decode("utf-8", "replace")) from None


def _problem_of(body: bytes) -> Optional[Dict[str, Any]]:
    try:
        parsed = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None  # not JSON: a proxy's page, say
    return parsed if isinstance(parsed, dict) and "title" in parsed and "status" in parsed else None


class _Kept(threading.local):
    """This thread's kept-alive connection to the service (http.client's are not to be shared between threads)."""
    connection: Optional[http.client.HTTPConnection] = None


@dataclass
class Transport:
    url: str
    api_key: Optional[str]
    admin_token: Optional[str]
    timeout: float
    max_retries: int
    max_retry_wait: float
    _kept: _Kept = field(default_factory=_Kept, init=False, repr=False)

    def send(self, method: str, path: str, *, body: Any = None, query: Optional[Mapping[str, Any]] = None,
             auth: str = "key", accept: str = "application/json", own_answer: Optional[int] = None
             ) -> Tuple[int, str, bytes]:
        """The status, reason and body of the successful answer (or of the operation's own non-2xx document)."""
        target = urllib.parse.urlsplit(self.url).path.rstrip("/") + path
        given = {k: v for k, v in (query or {}).items() if v is not None}
        if given:
            target += "?" + urllib.parse.urlencode(given)
        headers = {"Accept": accept, "User-Agent": USER_AGENT}
        data = None
        if body is not None:
            bad = non_finite(body)
            if bad is not None:
                raise ValueError(f"{bad} is not a number JSON can carry: give a finite number or leave it out")
            data = json.dumps(body, allow_nan=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if auth == "key" and self.api_key:
            headers["X-API-Key"] = self.api_key
        if auth == "admin" and self.admin_token:
            headers["Authorization"] = f"Bearer {self.admin_token}"
        retries = 0
        while True:
            status, reason, answer, retry_after = self._attempt(method, target, data, headers)
            if 200 <= status < 300 or status == own_answer:
                return status, reason, answer
            again = status in RETRIED and retries < self.max_retries and (
                retry_after if retry_after is not None else 1) <= self.max_retry_wait
            if not again:
                # a redirect is not followed either: it would carry the key to another address
                raise ProblemError(status, _problem_of(answer), retry_after, reason,
                                   answer.decode("utf-8", "replace"))
            time.sleep(retry_after if retry_after is not None else 1)
            retries += 1

    def _connect(self) -> http.client.HTTPConnection:
        parts = urllib.parse.urlsplit(self.url)
        if parts.scheme == "https":
            return http.client.HTTPSConnection(parts.hostname or "", parts.port, timeout=self.timeout,
                                               context=ssl.create_default_context())
        return http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=self.timeout)

    def _attempt(self, method: str, target: str, data: Optional[bytes], headers: Dict[str, str]
                 ) -> Tuple[int, str, bytes, Optional[int]]:
        """One request on this thread's kept-alive connection: the whole answer, body included, or
        UnreachableError (a reset or a timeout while reading is no answer)."""
        kept = self._kept.connection
        connection = kept if kept is not None else self._connect()
        self._kept.connection = None
        try:
            connection.request(method, target, body=data, headers=headers)
            res = connection.getresponse()
            answer = res.read()
        except (OSError, http.client.HTTPException) as err:
            connection.close()
            # a kept connection the service closed while it lay idle: nothing was answered, so ask on a new one
            if kept is not None and isinstance(err, (http.client.RemoteDisconnected, ConnectionResetError,
                                                     BrokenPipeError)):
                return self._attempt(method, target, data, headers)
            raise UnreachableError(self.url, err) from err
        if res.will_close:
            connection.close()
        else:
            self._kept.connection = connection
        return res.status, res.reason, answer, retry_after_seconds(res.getheader("Retry-After"))
