"""aloft.Client: one method per operation of the service, its keyword arguments the JSON body's own
field names (None: the service's default), returning the parsed answer. OPERATIONS says which method
calls which operation and NOT_CALLED why the rest are not called; a test holds both, and every
method's arguments, to the service's OpenAPI document."""
import datetime as dt
import os
import urllib.parse
from typing import Any, Dict, Mapping, Optional, Sequence, Union

from ._frames import frame_of_arrow, frame_of_json, pyarrow_or_none
from ._transport import Transport, json_of

JSON = Dict[str, Any]
Time = Union[str, dt.datetime]
Numbers = Sequence[float]
ARROW_STREAM = "application/vnd.apache.arrow.stream"

OPERATIONS = {
    "profile": "get_atmospheric_profile",
    "samples": "get_atmospheric_samples",
    "samples_frame": "get_atmospheric_samples",
    "trajectory": "predict_trajectory",
    "capabilities": "capabilities_v1_atmosphere_capabilities_get",
    "usage": "usage_v1_atmosphere_usage_get",
    "account": "get_account",
    "create_key": "create_key",
    "list_keys": "list_keys",
    "revoke_key": "revoke_key",
    "create_account": "create_account",
    "health": "healthz",
    "ready": "readyz",
    "openapi": "openapi",
}
NOT_CALLED = {
    "predict_trajectory_get": "the same flight as predict_trajectory, from query parameters (for Tawhiri's GET clients)",
    "tawhiri_predict": "Tawhiri's own API, for the Tawhiri clients that speak it; trajectory() is the same flight",
    "tawhiri_predict_sondehub": "Tawhiri's API at the SondeHub path, for the SondeHub clients",
    "tawhiri_dataset_check": "the SondeHub fork's dataset check, for its clients; capabilities() lists the runs",
    "tawhiri_ruaumoko": "the SondeHub fork's ground altitude, for its clients",
    "problem_page": "an HTML page for people, linked from every problem's type",
    "metrics": "Prometheus text, for a Prometheus server to scrape",
}


def _instant(value: Time) -> str:
    """An RFC 3339 string as given, or an aware datetime in UTC (a naive one is refused: which zone?)."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"{value!r} has no timezone: give an aware datetime (e.g. tzinfo=datetime.timezone.utc)")
        return value.astimezone(dt.timezone.utc).isoformat().replace("+00:00", "Z")
    return value


def _plain(value: Any) -> Any:
    """As JSON has it: sequences (lists, tuples, numpy arrays, pandas series) as lists, numpy scalars as numbers,
    mappings as objects, aware datetimes as RFC 3339 (numpy's datetime64, which has no timezone, is refused)."""
    if isinstance(value, dt.datetime):
        return _instant(value)
    if getattr(getattr(value, "dtype", None), "kind", None) == "M":
        raise ValueError("numpy datetime64 values have no timezone: give RFC 3339 strings or aware datetimes "
                         "(pandas: series.dt.tz_localize('UTC'))")
    if hasattr(value, "tolist"):
        return _plain(value.tolist())
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _body(**fields: Any) -> JSON:
    """The JSON body: every field given, by its own name; None leaves it out (the service's default)."""
    return {name: _plain(value) for name, value in fields.items() if value is not None}


class Client:
    """A connection to one aloft service.

    ``url`` and ``api_key`` default to ``ALOFT_URL`` and ``ALOFT_API_KEY``; ``admin_token`` (for
    create_account) to ``ALOFT_ADMIN_TOKEN``. ``timeout``: seconds one attempt may take.
    ``max_retries``: how many times a 429 or 503 is asked again after its Retry-After (0 raises at
    once); a Retry-After over ``max_retry_wait`` seconds is raised at once rather than slept through.
    """

    def __init__(self, url: Optional[str] = None, api_key: Optional[str] = None, timeout: float = 30,
                 max_retries: int = 3, *, admin_token: Optional[str] = None, max_retry_wait: float = 60) -> None:
        url = url if url is not None else os.environ.get("ALOFT_URL")
        if not url:
            raise ValueError("aloft.Client needs the service's address: give url= or set ALOFT_URL")
        if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
            raise ValueError(f"url must be an http:// or https:// address, not {url!r}")
        if max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        self.url = url
        self._transport = Transport(
            url=url, api_key=api_key if api_key is not None else os.environ.get("ALOFT_API_KEY"),
            admin_token=admin_token if admin_token is not None else os.environ.get("ALOFT_ADMIN_TOKEN"),
            timeout=timeout, max_retries=max_retries, max_retry_wait=max_retry_wait)

    def __repr__(self) -> str:
        return f"aloft.Client({self.url!r})"

    def _json(self, method: str, path: str, **options: Any) -> Any:
        return json_of(*self._transport.send(method, path, **options))

    def profile(self, *, latitude: float, longitude: float, time: Time, altitudes_m: Numbers,
                altitude_reference: str, ground_elevation_m_msl: Optional[float] = None,
                quality: Optional[str] = None, surface_layer: Optional[bool] = None) -> JSON:
        """Wind, temperature, pressure, humidity and density at 1–32 heights above a point."""
        return self._json("POST", "/v1/atmosphere/profile", body=_body(
            latitude=latitude, longitude=longitude, time=time, altitudes_m=altitudes_m,
            altitude_reference=altitude_reference, ground_elevation_m_msl=ground_elevation_m_msl, quality=quality,
            surface_layer=surface_layer))

    def samples(self, *, latitude: Numbers, longitude: Numbers, altitude_m: Numbers,
                time: Union[Time, Sequence[Time]], altitude_reference: str,
                ground_elevation_m_msl: Union[None, float, Sequence[Optional[float]]] = None,
                interpolation: Optional[str] = None, out_of_column: Optional[str] = None,
                fields: Optional[Sequence[str]] = None, surface_layer: Optional[bool] = None) -> JSON:
        """Many points at once: the JSON answer, its ``columns`` one value per point."""
        return self._json("POST", "/v1/atmosphere/samples", body=_body(**_arguments(locals())))

    def samples_frame(self, *, latitude: Numbers, longitude: Numbers, altitude_m: Numbers,
                      time: Union[Time, Sequence[Time]], altitude_reference: str,
                      ground_elevation_m_msl: Union[None, float, Sequence[Optional[float]]] = None,
                      interpolation: Optional[str] = None, out_of_column: Optional[str] = None,
                      fields: Optional[Sequence[str]] = None, surface_layer: Optional[bool] = None) -> Any:
        """The samples answer as a pandas DataFrame: one row per point, the request's latitude, longitude,
        altitude_m and time (UTC timestamps), then status and one column per field. Over Arrow when pyarrow
        is importable, JSON otherwise: the same frame either way. ``frame.attrs`` holds the units and the
        provenance."""
        body = _body(**_arguments(locals()))
        if pyarrow_or_none() is not None:
            return frame_of_arrow(body, self._transport.send("POST", "/v1/atmosphere/samples", body=body,
                                                             accept=ARROW_STREAM)[2])
        return frame_of_json(body, self._json("POST", "/v1/atmosphere/samples", body=body))

    def trajectory(self, *, launch_latitude: float, launch_longitude: float, launch_datetime: Time,
                   ascent_rate: float, profile: Optional[str] = None, launch_altitude: Optional[float] = None,
                   burst_altitude: Optional[float] = None, descent_rate: Optional[float] = None,
                   float_altitude: Optional[float] = None, stop_datetime: Optional[Time] = None,
                   dataset: Optional[Time] = None, descent_density: Optional[str] = None,
                   ensemble: Optional[Mapping[str, Any]] = None, member_trajectories: Optional[bool] = None,
                   surface_layer: Optional[bool] = None, version: Optional[int] = None,
                   format: Optional[str] = None) -> JSON:
        """A balloon flight (ascent, burst, descent; or ascent and float), Tawhiri-compatible; ``ensemble``
        as ``{"members": 50, "ascent_rate_sd": 0.3, ...}``."""
        return self._json("POST", "/v1/atmosphere/trajectory", body=_body(**_arguments(locals())))

    def capabilities(self) -> JSON:
        """Source, coverage, fields, limits and options (no key needed)."""
        return self._json("GET", "/v1/atmosphere/capabilities", auth="none")

    def usage(self) -> JSON:
        """Today's upstream attempts and the remaining daily allowance of the calling account."""
        return self._json("GET", "/v1/atmosphere/usage")

    def account(self) -> JSON:
        """The calling account and its allowance."""
        return self._json("GET", "/v1/account")

    def create_key(self, *, name: str) -> JSON:
        """A new key for the calling account; its secret (``key``) is in this answer only."""
        return self._json("POST", "/v1/keys", body=_body(name=name))

    def list_keys(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> JSON:
        """The calling account's keys, newest first, a page at a time (``next_cursor`` for the next)."""
        return self._json("GET", "/v1/keys", query={"limit": limit, "cursor": cursor})

    def revoke_key(self, id: str) -> JSON:
        """Revokes one of the calling account's keys (again is no error)."""
        return self._json("DELETE", "/v1/keys/" + urllib.parse.quote(id, safe=""))

    def create_account(self, *, name: str) -> JSON:
        """Operator: a new account and its first key (needs the operator token)."""
        return self._json("POST", "/v1/admin/accounts", body=_body(name=name), auth="admin")

    def health(self) -> JSON:
        return self._json("GET", "/healthz", auth="none")

    def ready(self) -> JSON:
        """Readiness: the document whether ready (200) or not (503), never retried."""
        return self._json("GET", "/readyz", auth="none", own_answer=503)

    def openapi(self) -> JSON:
        """The service's OpenAPI document."""
        return self._json("GET", "/openapi.json", auth="none")


def _arguments(args: Dict[str, Any]) -> Dict[str, Any]:
    """A method's arguments (its locals() on entry), without self: the body's fields by their own names."""
    return {name: value for name, value in args.items() if name != "self"}


