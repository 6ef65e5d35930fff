"""Runs the client's tests and prints one JSON line per test: its name, its outcome (ok, skip, fail)
and why — what test/clients/python.test.ts reads, one assertion per test."""
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class Lines(unittest.TestResult):
    def _line(self, test: unittest.TestCase, outcome: str, why: str = "") -> None:
        print(json.dumps({"name": test.id().split(".")[-1], "outcome": outcome, "why": why}), flush=True)

    def addSuccess(self, test: unittest.TestCase) -> None:
        self._line(test, "ok")

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        self._line(test, "skip", reason)

    def addFailure(self, test: unittest.TestCase, err) -> None:  # type: ignore[no-untyped-def]
        self._line(test, "fail", self._exc_info_to_string(err, test))

    def addError(self, test: unittest.TestCase, err) -> None:  # type: ignore[no-untyped-def]
        self._line(test, "fail", self._exc_info_to_string(err, test))


if __name__ == "__main__":
    suite = unittest.defaultTestLoader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    result = Lines()
    suite.run(result)
    sys.exit(0 if result.wasSuccessful() else 1)
