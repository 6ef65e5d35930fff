"""One call to the service over the standard library's HTTP: the key or token in a header, a timeout,
and the one retry rule — a 429 or 503 is asked again after its Retry-After, at most ``max_retries``
times; everything else (and a wait longer than ``max_retry_wait``, such as a daily allowance's until
midnight) is raised at once as a ProblemError."""
import email.utils
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple

from ._errors import ProblemError, UnreachableError

RETRIED = (429, 503)
USER_AGENT = "aloft-python/0.1.0"


def retry_after_seconds(value: Optional[str], now: Optional[float] = None) -> Optional[int]:
    """Retry-After in seconds: delta-seconds or an HTTP date; None when absent or unreadable."""
    if value is None or value.strip() == "":
        return None
    text = value.strip()
    if text.isdigit():
        return int(text)
    try:
        at = email.utils.parsedate_to_datetime(text).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0, int(-(-(at - (time.time() if now is None else now)) // 1)))


def _problem_of(body: bytes) -> Optional[Dict[str, Any]]:
    try:
        parsed = json.loads(body)
    except ValueError:
        return None  # not JSON: a proxy's page, say
    return parsed if isinstance(parsed, dict) and "title" in parsed and "status" in parsed else None


@dataclass
class Transport:
    url: str
    api_key: Optional[str]
    admin_token: Optional[str]
    timeout: float
    max_retries: int
    max_retry_wait: float

    def send(self, method: str, path: str, *, body: Any = None, query: Optional[Mapping[str, Any]] = None,
             auth: str = "key", accept: str = "application/json", own_answer: Optional[int] = None
             ) -> Tuple[int, bytes]:
        """The status and body of the successful answer (or of the operation's own non-2xx document)."""
        url = self.url.rstrip("/") + path
        if query:
            url += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        headers = {"Accept": accept, "User-Agent": USER_AGENT}
        data = None
        if body is not None:
            data = json.dumps(body, allow_nan=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if auth == "key" and self.api_key:
            headers["X-API-Key"] = self.api_key
        if auth == "admin" and self.admin_token:
            headers["Authorization"] = f"Bearer {self.admin_token}"
        retries = 0
        while True:
            status, reason, answer, retry_after = self._attempt(method, url, data, headers)
            if 200 <= status < 300 or status == own_answer:
                return status, answer
            again = status in RETRIED and retries < self.max_retries and (
                retry_after if retry_after is not None else 1) <= self.max_retry_wait
            if not again:
                raise ProblemError(status, _problem_of(answer), retry_after, reason)
            time.sleep(retry_after if retry_after is not None else 1)
            retries += 1

    def _attempt(self, method: str, url: str, data: Optional[bytes], headers: Dict[str, str]
                 ) -> Tuple[int, str, bytes, Optional[int]]:
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as res:
                return res.status, res.reason, res.read(), retry_after_seconds(res.headers.get("Retry-After"))
        except urllib.error.HTTPError as err:
            with err:
                return err.code, str(err.reason), err.read(), retry_after_seconds(err.headers.get("Retry-After"))
        except (urllib.error.URLError, socket.timeout, ConnectionError, TimeoutError) as err:
            raise UnreachableError(url, getattr(err, "reason", err)) from err
