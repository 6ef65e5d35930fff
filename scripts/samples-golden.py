#!/usr/bin/python3
"""Writes test/fixtures/samples/golden.json: requests and the answers of scripts/samples-reference.py.

Run from the repository root (needs Debian python3-eccodes and numpy; no network):

    /usr/bin/python3 scripts/samples-golden.py [--points 300] [--seed 20200804]

The requests are check-samples-numpy.py's (random points over the bundled sample with grid points, grid lines,
valid times and edge cases mixed in; both `out_of_column` choices, caller grounds, MSL with one time), plus one
`nearest` request over every date of the sample. The engine's tests hold the service's answers to these.
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location('check', os.path.join(ROOT, 'scripts', 'check-samples-numpy.py'))
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)

NEAREST_TIMES = ['2020-07-21T12:00:00Z', '2020-07-22T07:29:59Z', '2020-07-28T10:30:00Z', '2020-08-04T15:00:00Z',
                 '2020-08-04T20:59:00Z', '2020-08-05T01:00:00Z', '2020-08-15T14:00:00Z', '2020-08-29T06:00:00Z',
                 '2020-08-29T09:00:00.001Z', '2020-08-10T00:00:00Z']


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--points', type=int, default=300)
    ap.add_argument('--seed', type=int, default=20200804)
    args = ap.parse_args()
    data = os.path.join(ROOT, 'data', 'sample')
    reqs = check.make_requests(args.points, args.seed)
    base = reqs['agl-model-ground']
    n = len(base['latitude'])
    reqs['nearest-all-dates'] = dict(base, interpolation='nearest', out_of_column=None,
                                     time=[NEAREST_TIMES[k % len(NEAREST_TIMES)] for k in range(n)])
    cases = []
    for name, req in reqs.items():
        p = subprocess.run([sys.executable, os.path.join(ROOT, 'scripts', 'samples-reference.py'), '--data', data],
                           input=json.dumps(req).encode(), capture_output=True, check=True)
        expected = json.loads(p.stdout)
        statuses = {s: expected['columns']['status'].count(s) for s in sorted(set(expected['columns']['status']))}
        print(f'{name}: {len(req["latitude"])} points, statuses {statuses}')
        cases.append({'name': name, 'request': req, 'expected': expected})
    out = os.path.join(ROOT, 'test', 'fixtures', 'samples', 'golden.json')
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, 'w') as fh:
        json.dump(cases, fh, allow_nan=False)
        fh.write('\n')
    print(f'-> {out}')


if __name__ == '__main__':
    main()
