"""A 400's ``errors`` entry in words a person reads: "Must be more than 0 m/s", not "exclusiveMinimum".

The same sentences as the TypeScript client's error-words.ts (which the explorer and the CLI say too);
a test holds the two to each other.
"""
import re
from typing import Any, Dict, List, Mapping, Sequence, Union

Loc = Sequence[Union[str, int]]

_KINDS = {
    "number_type": "a number", "int_type": "a whole number", "string_type": "text",
    "bool_type": "yes or no (true or false)", "list_type": "a list", "dict_type": "a group of fields",
    "none_type": "empty",
}
TIME_EXAMPLE = "2020-08-04T12:00:00Z"


def _js_string(x: Any) -> str:
    """A value as JavaScript's String() writes it (the service's numbers and words are JSON's)."""
    if x is None:
        return "null"
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    if isinstance(x, (list, tuple)):
        return ",".join(_js_string(v) for v in x)
    return str(x)


def _limit_text(x: Any, unit: str) -> str:
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        n = float(x)
        if n == n and n not in (float("inf"), float("-inf")):
            digits = 0 if n.is_integer() else 2
            return f"{n:.{digits}f}{unit}"
    return _js_string(x)


def _sentence(s: str) -> str:
    t = s.strip()
    if t == "":
        return "This value was refused."
    return t if re.search(r"[.!?]$", t) else f"{t}."


def in_words(item: Mapping[str, Any], unit: str = "") -> str:
    """The entry as one sentence; ``unit`` (e.g. " m/s") follows the limits it quotes."""
    ctx: Mapping[str, Any] = item.get("ctx") or {}
    kind, msg = item.get("type", ""), item.get("msg", "")

    def limit() -> str:
        return _limit_text(ctx.get("limit"), unit)

    if kind == "missing":
        return "Needed for this flight profile." if re.search(r"for the (standard|float)_profile", msg) else "Required."
    simple = {
        "extra_forbidden": "aloft does not know this field.",
        "datetime_format": f"Must be a UTC time like {TIME_EXAMPLE}.",
        "string_pattern_mismatch": "Contains characters that are not allowed (control characters).",
    }
    if kind in simple:
        return simple[kind]
    bounds = {"greater_than": "Must be more than {}.", "greater_than_equal": "Must be {} or more.",
              "less_than": "Must be less than {}.", "less_than_equal": "Must be {} or less."}
    if kind in bounds:
        return bounds[kind].format(limit())
    if kind in ("too_short", "too_long"):
        what = "characters" if "characters" in msg else "values"
        return f"Give at {'least' if kind == 'too_short' else 'most'} {_limit_text(ctx.get('limit'), '')} {what}."
    if kind == "unique_items":
        return f"{_js_string(item.get('input'))}{unit} is given twice; give each value once."
    if kind == "enum":
        expected = ctx.get("expected")
        listed = ", ".join(_js_string(v) for v in expected) if isinstance(expected, list) else ""
        return "Not one of the accepted values." if listed == "" else f"Must be one of: {listed}."
    if kind == "literal_error":
        return f"Must be {_js_string(ctx.get('expected'))}."
    if kind in _KINDS:
        return f"Must be {_KINDS[kind]}."
    return _sentence(str(msg))


def field_path(loc: Loc) -> List[Union[str, int]]:
    """An entry's location within the request's fields (without its leading ``body`` or ``query``)."""
    items = list(loc)
    return items[1:] if items and items[0] in ("body", "query") else items


def place_in_words(loc: Loc) -> str:
    """Where an entry points, in words: ``["body", "altitudes_m", 2]`` is "Altitudes m, item 3"."""
    path = field_path(loc)
    if not path:
        return "The request"
    words = ", ".join(f"item {seg + 1}" if isinstance(seg, int) else seg.replace("_", " ") for seg in path)
    return words[:1].upper() + words[1:]


def words_of(items: Sequence[Mapping[str, Any]]) -> List[Dict[str, str]]:
    """Each entry's place and words (what the cross-language test compares)."""
    return [{"place": place_in_words(i.get("loc", [])), "words": in_words(i)} for i in items]
