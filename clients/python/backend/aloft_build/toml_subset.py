"""The part of TOML that pyproject.toml is written in, read without tomllib (new in Python 3.11):
tables, bare keys, basic strings and arrays of them, comments. Anything else is refused with its
line, never guessed at."""
import re
from typing import Any, Dict, List

BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
ESCAPES = {'"': '"', "\\": "\\", "b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r"}
Table = Dict[str, Any]


class TomlError(ValueError):
    pass


def loads(text: str) -> Table:
    return Reader(text).document()


class Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.headed: List[int] = []  # the tables a header has opened (a dotted one opens its parents unheaded)

    def fail(self, what: str) -> TomlError:
        return TomlError(f"line {self.text.count(chr(10), 0, self.at) + 1}: {what}")

    def peek(self) -> str:
        return self.text[self.at:self.at + 1]

    def skip(self, newlines: bool) -> None:
        """Past spaces and a comment, and past line ends too when `newlines`."""
        while self.at < len(self.text):
            c = self.text[self.at]
            if c == "#":
                end = self.text.find("\n", self.at)
                self.at = len(self.text) if end < 0 else end
            elif c in " \t" or (newlines and c in "\r\n"):
                self.at += 1
            else:
                return

    def expect(self, c: str) -> None:
        if self.peek() != c:
            raise self.fail(f"expected {c!r}, found {self.peek() or 'the end'!r}")
        self.at += 1

    def key(self) -> str:
        m = BARE_KEY.match(self.text, self.at)
        if m is None:
            raise self.fail("expected a bare key (quoted and dotted keys are not read)")
        self.at = m.end()
        return m.group()

    def document(self) -> Table:
        root: Table = {}
        table = root
        while True:
            self.skip(newlines=True)
            if self.at == len(self.text):
                return root
            if self.peek() == "[":
                table = self.header(root)
            else:
                name = self.key()
                self.skip(newlines=False)
                self.expect("=")
                self.skip(newlines=False)
                if name in table:
                    raise self.fail(f"{name} is given twice")
                table[name] = self.value()
            self.skip(newlines=False)
            if self.at < len(self.text) and self.peek() not in "\r\n":
                raise self.fail(f"expected the line's end, found {self.peek()!r}")

    def header(self, root: Table) -> Table:
        self.expect("[")
        if self.peek() == "[":
            raise self.fail("arrays of tables are not read")
        table = root
        while True:
            self.skip(newlines=False)
            name = self.key()
            inner = table.setdefault(name, {})
            if not isinstance(inner, dict):
                raise self.fail(f"{name} is a value, not a table")
            table = inner
            self.skip(newlines=False)
            if self.peek() != ".":
                break
            self.at += 1
        self.expect("]")
        if id(table) in self.headed:
            raise self.fail("a table is given twice")
        self.headed.append(id(table))
        return table

    def value(self) -> Any:
        if self.peek() == '"':
            return self.string()
        if self.peek() == "[":
            return self.array()
        raise self.fail("only strings and arrays of strings are read")

    def array(self) -> List[str]:
        self.expect("[")
        items: List[str] = []
        while True:
            self.skip(newlines=True)
            if self.peek() == "]":
                break
            if self.peek() != '"':
                raise self.fail("only strings are read in an array")
            items.append(self.string())
            self.skip(newlines=True)
            if self.peek() != ",":
                break
            self.at += 1
        self.skip(newlines=True)
        self.expect("]")
        return items

    def string(self) -> str:
        self.expect('"')
        if self.text.startswith('""', self.at):
            raise self.fail("multi-line strings are not read")
        out: List[str] = []
        while True:
            c = self.peek()
            if c in ("", "\n"):
                raise self.fail("a string does not end on its line")
            self.at += 1
            if c == '"':
                return "".join(out)
            if c != "\\":
                out.append(c)
                continue
            e = self.peek()
            self.at += 1
            if e in ESCAPES:
                out.append(ESCAPES[e])
            elif e in ("u", "U"):
                digits = self.text[self.at:self.at + (4 if e == "u" else 8)]
                if not re.fullmatch(r"[0-9A-Fa-f]{4}|[0-9A-Fa-f]{8}", digits):
                    raise self.fail(f"a bad \\{e} escape")
                out.append(chr(int(digits, 16)))
                self.at += len(digits)
            else:
                raise self.fail(f"an unknown escape \\{e}")
