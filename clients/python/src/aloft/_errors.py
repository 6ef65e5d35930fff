"""What a refusal is to a caller: the service's problem document (RFC 9457) as an exception whose
message says what to change, and the one failure with no document (the service did not answer).
The messages are the TypeScript client's, word for word (a test holds them to each other)."""
from typing import Any, Dict, List, Mapping, Optional

from ._words import field_path, fixed, in_words, place_in_words

# characters of a non-problem answer's body kept as its detail (a proxy's page, say)
EXCERPT_CHARS = 300


def _metres(x: float) -> str:
    return fixed(x, 0)


def _field_lines(errors: List[Mapping[str, Any]]) -> List[str]:
    lines = []
    for item in errors:
        path = field_path(item.get("loc", []))
        name = "the request" if not path else ".".join(str(p) for p in path)
        lines.append(f"  - {name} ({place_in_words(item.get('loc', []))}): {in_words(item)}")
    return lines


def _advice(status: int, problem: Optional[Mapping[str, Any]], retry_after: Optional[int]) -> List[str]:
    lines: List[str] = []
    doc: Mapping[str, Any] = problem or {}
    if doc.get("errors"):
        lines += _field_lines(doc["errors"])
    coverage = doc.get("coverage")
    if coverage is not None:
        lines.append(
            f"  This point serves {_metres(coverage['minimum_agl_m'])}–{_metres(coverage['maximum_agl_m'])} m above "
            f"ground ({_metres(coverage['minimum_msl_m'])}–{_metres(coverage['maximum_msl_m'])} m above sea level): "
            "ask within it, or set surface_layer for heights near the ground.")
    if status == 401:
        lines.append("  Give a valid API key (the client's api key; ALOFT_API_KEY).")
    if status == 403:
        lines.append("  This key or token may not do this; use one that may.")
    if 300 <= status < 400:
        lines.append("  The client follows no redirect (it would carry the key elsewhere): give the address it points to.")
    if retry_after is not None and status in (429, 503):
        lines.append(f"  Ask again in {retry_after} s (Retry-After).")
    return lines


def _plain_title(status: int, reason: str = "") -> str:
    return f"HTTP {status}" + (f" {reason}" if reason else "")


def describe_problem(status: int, problem: Optional[Mapping[str, Any]], retry_after: Optional[int] = None,
                     title: Optional[str] = None, detail: Optional[str] = None) -> str:
    """The message: ``title (HTTP status, code): detail``, then what to change, then the request id.
    ``title`` and ``detail`` default to the problem's; for an answer with no problem document, give them."""
    doc: Mapping[str, Any] = problem or {}
    if title is None:
        title = doc["title"] if doc.get("title") is not None else _plain_title(status)
    if detail is None:
        detail = doc.get("detail")
    code = f", {doc['code']}" if doc.get("code") is not None else ""
    head = f"{title} (HTTP {status}{code})" + (f": {detail}" if detail else "")
    tail = [f"  request id {doc['request_id']}"] if doc.get("request_id") is not None else []
    return "\n".join([head, *_advice(status, problem, retry_after), *tail])


class ProblemError(Exception):
    """An answer other than 2xx, with its problem document (or one made from the status when none came).

    ``status``, ``code`` (None when the answer was not a problem document), ``title``, ``detail``,
    ``request_id``, ``coverage`` (a 409's heights served), ``errors`` (a 400's fields), ``retry_after``
    (seconds the service asked to wait, when it did) and ``problem`` (the whole document).
    """

    def __init__(self, status: int, problem: Optional[Dict[str, Any]], retry_after: Optional[int] = None,
                 reason: str = "", excerpt: str = "") -> None:
        default_title = _plain_title(status, reason)
        self.status = status
        self.problem = problem
        self.code: Optional[str] = problem.get("code") if problem is not None else None
        self.title: str = problem.get("title", default_title) if problem is not None else default_title
        self.detail: Optional[str] = (problem.get("detail") if problem is not None
                                      else excerpt[:EXCERPT_CHARS].strip() or None)
        self.request_id: Optional[str] = problem.get("request_id") if problem is not None else None
        self.coverage: Optional[Dict[str, float]] = problem.get("coverage") if problem is not None else None
        self.errors: List[Dict[str, Any]] = list(problem.get("errors", [])) if problem is not None else []
        self.retry_after = retry_after
        super().__init__(describe_problem(status, problem, retry_after, self.title, self.detail))


class UnreachableError(ConnectionError):
    """The service did not answer: refused, reset, unknown host, a broken answer, or no answer within the timeout."""

    def __init__(self, url: str, cause: BaseException) -> None:
        self.url = url
        super().__init__(f"aloft at {url} did not answer: {cause}. Check the URL and that the service is running.")
