"""The samples answer as a pandas DataFrame, one row per point: the request's coordinates and times
(UTC timestamps), then the answer's columns. The JSON and the Arrow answers make the same frame:
floats as float64 (NaN where the answer has null), the unit indices as pandas' nullable Int64,
status as text; ``frame.attrs`` holds the units and the provenance."""
import json
from typing import Any, Dict, List, Mapping, Optional

REQUEST_COLUMNS = ("latitude", "longitude", "altitude_m")
INDEX_COLUMNS = ("unit_before", "unit_after")
AFTER_FIELDS = ("altitude_msl_m", "ground_elevation_m_msl", "unit_before", "unit_after", "time_weight")


def _pandas() -> Any:
    try:
        import pandas
    except ImportError as err:
        raise ImportError("samples_frame needs pandas (pip install pandas; or use samples() for plain JSON)") from err
    return pandas


def pyarrow_or_none() -> Any:
    """pyarrow's IPC module when importable (the Arrow answer is then read), else None."""
    try:
        import pyarrow.ipc
    except Exception:  # not installed, or installed but broken (a mismatched numpy, say): JSON then
        return None
    return pyarrow.ipc


def _request_columns(pd: Any, body: Mapping[str, Any], count: int) -> Dict[str, Any]:
    columns: Dict[str, Any] = {name: pd.array([float(v) for v in body[name]], dtype="float64")
                               for name in REQUEST_COLUMNS}
    # each time read on its own: one format guessed for all would refuse "…:00Z" beside "…:00.5Z"
    if isinstance(body["time"], list):
        times = [pd.Timestamp(t) for t in body["time"]]
    else:
        times = [pd.Timestamp(body["time"])] * count
    columns["time"] = pd.to_datetime(pd.Series(times, dtype=object), utc=True).array
    return columns


def _typed(pd: Any, name: str, values: List[Any]) -> Any:
    if name == "status":
        return pd.array([str(v) for v in values], dtype=object)
    if name in INDEX_COLUMNS:
        return pd.array(values, dtype="Int64")
    return pd.array([float("nan") if v is None else float(v) for v in values], dtype="float64")


def _frame(pd: Any, body: Mapping[str, Any], answer_columns: Dict[str, List[Any]], fields: List[str],
           units: Any, provenance: Any) -> Any:
    count = len(answer_columns["status"])
    columns = _request_columns(pd, body, count)
    for name in ["status", *fields, *AFTER_FIELDS]:
        columns[name] = _typed(pd, name, answer_columns[name])
    frame = pd.DataFrame(columns)
    frame.attrs["units"] = units
    frame.attrs["provenance"] = provenance
    return frame


def frame_of_json(body: Mapping[str, Any], answer: Mapping[str, Any]) -> Any:
    """The frame of the JSON answer."""
    return _frame(_pandas(), body, answer["columns"], list(answer["fields"]), answer["units"], answer["provenance"])


def frame_of_arrow(body: Mapping[str, Any], stream: bytes) -> Any:
    """The frame of the Arrow answer (an IPC stream whose schema metadata carries units and provenance)."""
    pd = _pandas()
    ipc = pyarrow_or_none()
    table = ipc.open_stream(stream).read_all()
    metadata: Optional[Dict[bytes, bytes]] = table.schema.metadata
    meta = metadata or {}
    fields = [name for name in table.column_names if name != "status" and name not in AFTER_FIELDS]
    columns = {name: table.column(name).to_pylist() for name in table.column_names}
    return _frame(pd, body, columns, fields, json.loads(meta.get(b"aloft:units", b"[]")),
                  json.loads(meta.get(b"aloft:provenance", b"null")))
