#!/usr/bin/python3
"""ecCodes side of bench/decode: decode every message of each file, in-process, many times.

    /usr/bin/python3 bench/python/decode-eccodes.py SECONDS FILE...   (run by dist/bench/decode.js)

Fair timing: messages are read from disk once, before timing; each repetition builds a handle from
the message bytes (codes_new_from_message), decodes all values (codes_get_values, float64 numpy)
and releases it, which is what aloft's decodeField does from its index. Interpreter start-up and
file reading are outside the timed loop, and so is one untimed pass over the file's messages (as
dist/bench/decode.js warms up its own side). Prints one JSON object per file.
"""
import json
import sys
import time

import eccodes as ec


def messages(path):
    out = []
    with open(path, 'rb') as f:
        while True:
            h = ec.codes_grib_new_from_file(f)
            if h is None:
                return out
            out.append(ec.codes_get_message(h))
            ec.codes_release(h)


def main():
    seconds = float(sys.argv[1])
    for path in sys.argv[2:]:
        msgs = messages(path)
        for m in msgs:  # warm-up, untimed
            h = ec.codes_new_from_message(m)
            ec.codes_get_values(h)
            ec.codes_release(h)
        values = 0
        reps = 0
        start = time.perf_counter()
        while True:
            for m in msgs:
                h = ec.codes_new_from_message(m)
                values += len(ec.codes_get_values(h))
                ec.codes_release(h)
            reps += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds and reps >= 3:
                break
        print(json.dumps({'file': path, 'messages': len(msgs), 'reps': reps, 'values': values, 'seconds': elapsed}))


if __name__ == '__main__':
    main()
