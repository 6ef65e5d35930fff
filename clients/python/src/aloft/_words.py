"""A 400's ``errors`` entry in words a person reads: "Must be more than 0 m/s", not "exclusiveMinimum".

The same sentences as the TypeScript client's error-words.ts (which the explorer and the CLI say too);
a test holds the two to each other.
"""
import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Dict, List, Mapping, Sequence, Union

Loc = Sequence[Union[str, int]]

_KINDS = {
    "number_type": "a number", "int_type": "a whole number", "string_type": "text",
    "bool_type": "yes or no (true or false)", "list_type": "a list", "dict_type": "a group of fields",
    "none_type": "empty",
}
TIME_EXAMPLE = "2020-08-04T12:00:00Z"
# the kinds whose words quote a limit: without one, the service's own message is said
_BOUNDED = ("greater_than", "greater_than_equal", "less_than", "less_than_equal", "too_short", "too_long")


def _js_number(x: float) -> str:
    """A number as JavaScript's Number::toString writes it: the shortest digits that read back (as repr's),
    in plain notation from 1e-6 up to 1e21 and exponential beyond."""
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign, (_, digit_tuple, exponent) = ("-" if x < 0 else ""), Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(str(d) for d in digit_tuple)
    k = len(digits)
    n = int(exponent) + k  # where the decimal point falls after the first n digits
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"


def _js_string(x: Any) -> str:
    """A value as JavaScript's String() writes it (the service's numbers and words are JSON's)."""
    if x is None:
        return "null"
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, (int, float)):
        return _js_number(float(x)) if isinstance(x, float) or abs(x) >= 2**53 else str(x)
    if isinstance(x, (list, tuple)):
        return ",".join(_js_string(v) for v in x)
    return str(x)


def fixed(x: float, digits: int) -> str:
    """A number as JavaScript's toFixed writes it: the exact binary value, halves away from zero."""
    if abs(x) >= 1e21:
        return _js_string(x)
    if x == 0:
        x = 0.0  # JavaScript writes -0 as 0
    return str(Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def _limit_text(x: Any, unit: str) -> str:
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        n = float(x)
        if n == n and n not in (float("inf"), float("-inf")):
            return f"{fixed(n, 0 if n.is_integer() else 2)}{unit}"
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
    # the schema's checks say `limit`; a body's own rules (the samples' point count) min_length / max_length
    bound = ctx.get("limit")
    if bound is None:
        bound = ctx.get("min_length") if kind == "too_short" else ctx.get("max_length")
    if bound is None and kind in _BOUNDED:
        return _sentence(str(msg))

    def limit() -> str:
        return _limit_text(bound, unit)

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
        return f"Give at {'least' if kind == 'too_short' else 'most'} {_limit_text(bound, '')} {what}."
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
