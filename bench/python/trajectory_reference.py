#!/usr/bin/python3
"""Times scripts/trajectory-reference.py on one flight, in process: the first flight (reading and decoding the
GRIB files it needs) and then `--flights` more with everything it read kept (its columns memoised), as a user
predicting many flights from one Python process would. Prints one JSON line on stdout.

    /usr/bin/python3 bench/python/trajectory_reference.py --data data/sample [--flights 20] < request.json
"""
import argparse
import importlib.util
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--data', required=True)
    ap.add_argument('--flights', type=int, default=20)
    args = ap.parse_args()
    sys.argv = sys.argv[:1]
    spec = importlib.util.spec_from_file_location('reference', os.path.join(ROOT, 'scripts', 'trajectory-reference.py'))
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    ref.sr.DECODED_AS_FLOAT32 = True
    request = json.load(sys.stdin)
    sampler = ref.sr.Sampler(ref.sr.Catalog(args.data), 3.0)
    t0 = time.perf_counter()
    out = ref.fly(request, ref.GfsAir(sampler))
    first = time.perf_counter() - t0
    times = []
    for _ in range(args.flights):
        t0 = time.perf_counter()
        ref.fly(request, ref.GfsAir(sampler))
        times.append(time.perf_counter() - t0)
    times.sort()
    landing = out['prediction'][-1]['trajectory'][-1]
    print(json.dumps({'first_flight_s': first, 'warm_flight_s': times[len(times) // 2],
                      'landing': [landing['latitude'], landing['longitude']]}))


if __name__ == '__main__':
    main()
