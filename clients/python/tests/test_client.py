"""aloft.Client against a running demo (ALOFT_URL, ALOFT_API_KEY, ALOFT_ADMIN_TOKEN) and a second one
limited to 1 request a second (ALOFT_SLOW_URL, ALOFT_SLOW_KEY), as test/clients/python.test.ts starts
them; aloft is imported from the installed wheel (ALOFT_WHEEL_SITE), never from the source folder."""
import datetime as dt
import http.server
import inspect
import json
import os
import socket
import threading
import time
import unittest
import urllib.request

import aloft
from aloft._frames import frame_of_arrow, frame_of_json, pyarrow_or_none
from aloft._transport import retry_after_seconds

URL, KEY = os.environ["ALOFT_URL"], os.environ["ALOFT_API_KEY"]
PROFILE = dict(latitude=52.23, longitude=21.01, time="2020-08-04T18:00:00Z", altitudes_m=[300, 1000, 3000],
               altitude_reference="agl")
SAMPLES = dict(latitude=[52.23, 52.31, 50.1], longitude=[21.01, 21.2, 19.9], altitude_m=[500, 3000, 80000],
               time=["2020-08-04T13:00:00Z", "2020-08-04T14:30:00Z", "2020-08-04T12:00:00Z"],
               altitude_reference="agl")
FLIGHT = dict(launch_latitude=52.23, launch_longitude=21.01, launch_datetime="2020-08-04T12:00:00Z",
              launch_altitude=100, ascent_rate=5, burst_altitude=20000, descent_rate=6)
BODIES = {"profile": "AtmosphereRequest", "samples": "SamplesRequest", "samples_frame": "SamplesRequest",
          "trajectory": "TrajectoryRequest", "create_key": "NewKey", "create_account": "NewAccount"}


def posted(path, body, accept="application/json"):
    """The service's answer to a plain POST, as a caller without the client gets it."""
    request = urllib.request.Request(URL + path, data=json.dumps(body).encode(), method="POST", headers={
        "X-API-Key": KEY, "Content-Type": "application/json", "Accept": accept})
    with urllib.request.urlopen(request) as res:
        return res.read()


class StandIn:
    """A proxy in front of nothing: every request answered with `status`, this Retry-After, these headers and
    this body (a problem document unless given)."""

    def __init__(self, status, retry_after, body=None, headers=None, drop_kept=False):
        self.hits = 0
        self.connections = set()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            # HTTP/1.1: the connection stays open; with drop_kept it is closed after each answer without a word,
            # as a server does with a connection that lay idle too long
            protocol_version = "HTTP/1.1" if drop_kept else "HTTP/1.0"

            def do_GET(self):
                outer.connections.add(self.client_address)
                outer.hits += 1
                answer = body if body is not None else json.dumps({
                    "type": "/problems/source_busy", "title": "Busy", "status": status, "code": "source_busy",
                    "request_id": "r1"})
                answer = answer.encode()
                self.send_response(status)
                self.send_header("Retry-After", retry_after)
                for name, value in {"Content-Type": "application/problem+json", **(headers or {})}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
                if drop_kept:
                    self.close_connection = True

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class TheWheel(unittest.TestCase):
    def test_aloft_is_imported_from_the_installed_wheel(self):
        self.assertTrue(aloft.__file__.startswith(os.environ["ALOFT_WHEEL_SITE"]), aloft.__file__)


class Answers(unittest.TestCase):
    client = aloft.Client(URL, KEY)

    def test_a_profile_is_the_service_s_own_answer(self):
        answer = self.client.profile(**PROFILE)
        self.assertEqual(answer, json.loads(posted("/v1/atmosphere/profile", PROFILE)))
        self.assertEqual(len(answer["levels"]), 3)

    def test_a_time_may_be_an_aware_datetime_and_a_naive_one_is_refused(self):
        when = dt.datetime(2020, 8, 4, 20, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))
        self.assertEqual(self.client.profile(**{**PROFILE, "time": when}), self.client.profile(**PROFILE))
        with self.assertRaisesRegex(ValueError, "no timezone"):
            self.client.profile(**{**PROFILE, "time": dt.datetime(2020, 8, 4, 18)})

    def test_samples_are_the_service_s_json_columns(self):
        answer = self.client.samples(**SAMPLES)
        self.assertEqual(answer, json.loads(posted("/v1/atmosphere/samples", SAMPLES)))
        self.assertEqual(answer["columns"]["status"], ["ok", "ok", "outside_vertical_range"])

    def test_a_samples_frame_has_one_row_per_point_and_the_json_answer_s_values(self):
        import math
        answer = self.client.samples(**SAMPLES)
        frame = self.client.samples_frame(**SAMPLES)
        self.assertEqual(len(frame), answer["count"])
        self.assertEqual(list(frame.columns[:5]), ["latitude", "longitude", "altitude_m", "time", "status"])
        self.assertEqual(str(frame["time"].dtype), "datetime64[ns, UTC]")
        self.assertEqual([t.isoformat() for t in frame["time"]],
                         ["2020-08-04T13:00:00+00:00", "2020-08-04T14:30:00+00:00", "2020-08-04T12:00:00+00:00"])
        self.assertEqual(list(frame["latitude"]), SAMPLES["latitude"])
        for name, values in answer["columns"].items():
            got = [None if (isinstance(v, float) and math.isnan(v)) or v is None or str(v) == "<NA>" else v
                   for v in frame[name].tolist()]
            self.assertEqual(got, values, name)
        self.assertEqual(frame.attrs["units"], answer["units"])
        self.assertEqual(frame.attrs["provenance"], answer["provenance"])

    def test_the_frame_of_the_arrow_answer_is_the_frame_of_the_json_answer(self):
        if pyarrow_or_none() is None:
            self.skipTest("pyarrow is not importable here: the Arrow answer's frame is not checked")
        import pandas.testing
        arrow = frame_of_arrow(SAMPLES, posted("/v1/atmosphere/samples", SAMPLES, "application/vnd.apache.arrow.stream"))
        via_json = frame_of_json(SAMPLES, json.loads(posted("/v1/atmosphere/samples", SAMPLES)))
        pandas.testing.assert_frame_equal(arrow, via_json)
        self.assertEqual(arrow.attrs, via_json.attrs)

    def test_a_flight_is_the_service_s_answer(self):
        answer = self.client.trajectory(**FLIGHT)
        direct = json.loads(posted("/v1/atmosphere/trajectory", FLIGHT))
        self.assertEqual(answer["prediction"], direct["prediction"])
        self.assertEqual([s["stage"] for s in answer["prediction"]], ["ascent", "descent"])

    def test_an_ensemble_flight(self):
        answer = self.client.trajectory(**FLIGHT, ensemble={"members": 3, "ascent_rate_sd": 0.3})
        self.assertEqual(len(answer["ensemble"]["members"]), 3)

    def test_the_account_its_usage_and_the_capabilities(self):
        account = self.client.account()
        self.assertTrue(account["id"].startswith("acct_"))
        self.assertEqual(self.client.usage()["limit"], account["limit"])
        self.assertIn("limits", self.client.capabilities())
        self.assertEqual(self.client.health()["status"], "ok")
        self.assertEqual(self.client.ready()["status"], "ok")


class Refusals(unittest.TestCase):
    client = aloft.Client(URL, KEY)

    def test_a_400_is_a_problem_error_naming_the_field_and_what_it_must_be(self):
        with self.assertRaises(aloft.ProblemError) as caught:
            self.client.profile(**{**PROFILE, "latitude": 152.23})
        err = caught.exception
        self.assertEqual((err.status, err.code), (400, "invalid_request"))
        self.assertEqual(err.errors[0]["loc"], ["body", "latitude"])
        self.assertRegex(err.request_id, r"^[0-9a-f-]{36}$")
        self.assertIsNone(err.retry_after)
        self.assertRegex(str(err), r"^Invalid request \(HTTP 400, invalid_request\): The body does not match")
        self.assertIn("\n  - latitude (Latitude): Must be 90 or less.\n", str(err))

    def test_a_height_outside_the_column_is_a_409_whose_message_gives_the_heights_served(self):
        with self.assertRaises(aloft.ProblemError) as caught:
            self.client.profile(**{**PROFILE, "altitudes_m": [1]})
        err = caught.exception
        self.assertEqual((err.status, err.code), (409, "outside_vertical_range"))
        self.assertGreater(err.coverage["minimum_agl_m"], 1)
        self.assertRegex(str(err), r"This point serves \d+–\d+ m above ground")

    def test_a_wrong_key_and_no_key_are_401s_that_say_to_give_a_valid_key(self):
        with self.assertRaises(aloft.ProblemError) as caught:
            aloft.Client(URL, "aloft_wrong").usage()
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "invalid_api_key"))
        self.assertIn("Give a valid API key", str(caught.exception))
        with self.assertRaises(aloft.ProblemError) as caught:
            aloft.Client(URL, "").usage()
        self.assertEqual(caught.exception.code, "missing_api_key")

    def test_the_messages_are_the_typescript_client_s_word_for_word(self):
        with open(os.environ["ALOFT_MESSAGE_CASES"], encoding="utf-8") as f:
            cases = json.load(f)
        self.assertGreater(len(cases), 10)
        for case in cases:
            message = aloft.describe_problem(case["status"], case["problem"], case["retry_after"], case.get("title"),
                                             case.get("detail"))
            self.assertEqual(message, case["message"], json.dumps(case["problem"])[:300])


class Keys(unittest.TestCase):
    def test_keys_made_listed_revoked_and_a_revoked_key_refused(self):
        client = aloft.Client(URL, KEY)
        made = client.create_key(name="python client test")
        self.assertIn(made["id"], [k["id"] for k in client.list_keys(limit=100)["keys"]])
        self.assertIsNotNone(client.revoke_key(made["id"])["revoked_at"])
        with self.assertRaises(aloft.ProblemError) as caught:
            aloft.Client(URL, made["key"]).usage()
        self.assertEqual(caught.exception.code, "revoked_api_key")

    def test_an_operator_makes_an_account_whose_key_works(self):
        created = aloft.Client(URL, admin_token=os.environ["ALOFT_ADMIN_TOKEN"]).create_account(name="python op")
        self.assertEqual(aloft.Client(URL, created["key"]["key"]).account()["id"], created["account"]["id"])
        with self.assertRaises(aloft.ProblemError) as caught:
            aloft.Client(URL, admin_token="wrong").create_account(name="x")
        self.assertEqual((caught.exception.status, caught.exception.code), (403, "forbidden"))
        self.assertIn("may not do this", str(caught.exception))


class Retries(unittest.TestCase):
    def test_at_1_request_a_second_five_calls_in_a_row_all_answer_by_waiting_retry_after(self):
        patient = aloft.Client(os.environ["ALOFT_SLOW_URL"], os.environ["ALOFT_SLOW_KEY"])
        started = time.monotonic()
        for _ in range(5):
            self.assertEqual(patient.usage()["period"], "utc_day")
        self.assertGreaterEqual(time.monotonic() - started, 3, "four of them waited about a second each")

    def test_with_max_retries_0_the_429_is_raised_with_retry_after(self):
        hasty = aloft.Client(os.environ["ALOFT_SLOW_URL"], os.environ["ALOFT_SLOW_KEY"], max_retries=0)
        try:
            hasty.usage()  # the bucket is empty after this one, whichever way it went
        except aloft.ProblemError:
            pass
        with self.assertRaises(aloft.ProblemError) as caught:
            hasty.usage()
        err = caught.exception
        self.assertEqual((err.status, err.code), (429, "rate_limited"))
        self.assertGreaterEqual(err.retry_after, 1)
        self.assertRegex(str(err), r"Ask again in \d+ s \(Retry-After\)")

    def test_a_503_is_asked_again_max_retries_times_then_raised(self):
        busy = StandIn(503, "0")
        self.addCleanup(busy.close)
        with self.assertRaises(aloft.ProblemError) as caught:
            aloft.Client(busy.url, "k", max_retries=2).capabilities()
        self.assertEqual(caught.exception.status, 503)
        self.assertEqual(busy.hits, 3, "the first ask and two more")

    def test_a_retry_after_longer_than_max_retry_wait_is_raised_at_once(self):
        busy = StandIn(429, "3600")
        self.addCleanup(busy.close)
        with self.assertRaises(aloft.ProblemError) as caught:
            aloft.Client(busy.url, "k").capabilities()
        self.assertEqual(caught.exception.retry_after, 3600)
        self.assertEqual(busy.hits, 1)

    def test_no_other_status_is_retried(self):
        broken = StandIn(500, "0")
        self.addCleanup(broken.close)
        with self.assertRaises(aloft.ProblemError):
            aloft.Client(broken.url).capabilities()
        self.assertEqual(broken.hits, 1)

    def test_retry_after_as_seconds_or_an_http_date_and_nothing_else(self):
        now = dt.datetime(2015, 10, 21, 7, 28, tzinfo=dt.timezone.utc).timestamp()
        self.assertEqual(retry_after_seconds("Wed, 21 Oct 2015 07:28:05 GMT", now), 5)
        self.assertEqual(retry_after_seconds(" 12 "), 12)
        for junk in ("soon", "1.5", "-1", "\u00b2", "", None):
            self.assertIsNone(retry_after_seconds(junk), junk)


class KeptAlive(unittest.TestCase):
    def test_calls_from_one_thread_share_one_connection(self):
        client = aloft.Client(URL, KEY)
        client.usage()
        first = client._transport._kept.connection.sock.getsockname()
        client.usage()
        self.assertEqual(client._transport._kept.connection.sock.getsockname(), first)

    def test_a_kept_connection_the_service_closed_while_idle_is_replaced_without_an_error(self):
        closing = StandIn(200, "", json.dumps({"status": "ok"}), {"Content-Type": "application/json"},
                          drop_kept=True)
        self.addCleanup(closing.close)
        client = aloft.Client(closing.url)
        self.assertEqual(client.health(), {"status": "ok"})
        time.sleep(0.1)  # the stand-in has closed it by now
        self.assertEqual(client.health(), {"status": "ok"})
        self.assertEqual((closing.hits, len(closing.connections)), (2, 2), "asked once on each of two connections")


class Surprises(unittest.TestCase):
    def test_a_redirect_is_raised_not_followed(self):
        moved = StandIn(301, "0", "", {"Location": "http://127.0.0.1:9/elsewhere"})
        self.addCleanup(moved.close)
        with self.assertRaises(aloft.ProblemError) as caught:
            aloft.Client(moved.url, "k").account()
        self.assertEqual((caught.exception.status, caught.exception.code), (301, None))
        self.assertIn("follows no redirect", str(caught.exception))
        self.assertEqual(moved.hits, 1)

    def test_an_answer_that_is_not_a_problem_shows_its_start_and_a_2xx_not_json_is_refused(self):
        page = StandIn(502, "", "<html>Bad gateway from the proxy</html>", {"Content-Type": "text/html"})
        self.addCleanup(page.close)
        with self.assertRaises(aloft.ProblemError) as caught:
            aloft.Client(page.url).capabilities()
        self.assertEqual((caught.exception.title, caught.exception.detail),
                         ("HTTP 502 Bad Gateway", "<html>Bad gateway from the proxy</html>"))
        login = StandIn(200, "", "<html>log in</html>", {"Content-Type": "text/html"})
        self.addCleanup(login.close)
        with self.assertRaises(aloft.ProblemError) as caught:
            aloft.Client(login.url).capabilities()
        self.assertTrue(str(caught.exception).startswith("HTTP 200 OK (not JSON) (HTTP 200): <html>log in</html>"))

    def test_a_nan_in_a_body_is_refused_before_sending_naming_where_it_is(self):
        with self.assertRaisesRegex(ValueError, r"^body\.altitude_m\[1\]: nan is not a number JSON can carry"):
            aloft.Client(URL, KEY).samples(**{**SAMPLES, "altitude_m": [500, float("nan"), 1]})

    def test_numpy_values_are_sent_as_json_numbers_and_datetime64_is_refused(self):
        import numpy
        answer = aloft.Client(URL, KEY).samples(**{**SAMPLES, "latitude": numpy.array(SAMPLES["latitude"])})
        self.assertEqual(answer, aloft.Client(URL, KEY).samples(**SAMPLES))
        with self.assertRaisesRegex(ValueError, "no timezone"):
            aloft.Client(URL, KEY).samples(**{**SAMPLES, "time": numpy.array(["2020-08-04T13:00"], "datetime64[ns]")})


class Connection(unittest.TestCase):
    def test_a_service_that_does_not_answer_is_an_unreachable_error_within_the_timeout(self):
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        self.addCleanup(silent.close)
        started = time.monotonic()
        with self.assertRaisesRegex(aloft.UnreachableError, "did not answer"):
            aloft.Client(f"http://127.0.0.1:{silent.getsockname()[1]}", timeout=0.3).health()
        self.assertLess(time.monotonic() - started, 5)

    def test_a_closed_port_is_an_unreachable_error(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with self.assertRaises(aloft.UnreachableError):
            aloft.Client(f"http://127.0.0.1:{port}").health()

    def test_url_and_key_come_from_the_environment_and_no_url_is_a_clear_error(self):
        self.assertEqual(aloft.Client().account()["id"], aloft.Client(URL, KEY).account()["id"])
        saved = os.environ.pop("ALOFT_URL")
        self.addCleanup(os.environ.__setitem__, "ALOFT_URL", saved)
        with self.assertRaisesRegex(ValueError, "ALOFT_URL"):
            aloft.Client()
        with self.assertRaisesRegex(ValueError, "http"):
            aloft.Client("127.0.0.1:8080")


class Drift(unittest.TestCase):
    document = aloft.Client(URL).openapi()

    def test_every_operation_the_service_documents_is_a_method_or_says_why_not(self):
        served = sorted(o["operationId"] for p in self.document["paths"].values() for o in p.values())
        self.assertEqual(sorted(set(aloft.OPERATIONS.values()) | set(aloft.NOT_CALLED)), served)
        for method in aloft.OPERATIONS:
            self.assertTrue(callable(getattr(aloft.Client, method)), method)

    def test_every_body_s_fields_are_its_method_s_keyword_arguments(self):
        for method, schema_name in BODIES.items():
            schema = self.document["components"]["schemas"][schema_name]
            params = inspect.signature(getattr(aloft.Client, method)).parameters
            names = [n for n in params if n != "self"]
            self.assertEqual(sorted(names), sorted(schema["properties"]), method)
            required = sorted(n for n in names if params[n].default is inspect.Parameter.empty)
            self.assertEqual(required, sorted(schema.get("required", [])), method)

    def test_query_and_path_parameters_are_the_method_s_arguments(self):
        def parameters(path, verb):
            return sorted(p["name"] for p in self.document["paths"][path][verb].get("parameters", []))
        self.assertEqual(parameters("/v1/keys", "get"),
                         sorted(n for n in inspect.signature(aloft.Client.list_keys).parameters if n != "self"))
        self.assertEqual(parameters("/v1/keys/{id}", "delete"),
                         [n for n in inspect.signature(aloft.Client.revoke_key).parameters if n != "self"])
