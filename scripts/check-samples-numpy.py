#!/usr/bin/python3
"""Holds bench/python/samples_numpy.py against scripts/samples-reference.py on random points (method `linear`).

Run from the repository root (needs Debian python3-eccodes and numpy):

    /usr/bin/python3 scripts/check-samples-numpy.py [--data data/sample] [--points 1000] [--seed 20200804]

Both scripts are written apart from the TypeScript engine, from docs/DESIGN.md §6; this one only feeds them the
same requests and compares the answers: statuses, units, unit indices and time weights must be equal, numbers
equal to 1e-9 relative (near zero: within 1e-18 kg/kg for q, 1e-15 for the rest). The points are random over
48-56N, 13-25E, altitudes 0-20 000 m AGL (model terrain) and times 2020-08-04T12:00Z..2020-08-05T00:00Z, with
some points put exactly on grid points, grid lines and valid times; one request per `out_of_column` choice (null,
nearest_level), one with per-point caller ground elevations, one MSL request with a single time, and a request of
edge points (off the grid, outside in time, the nearest-time fallback, offsets in the time zone). Exit status 0
when everything agrees.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = os.path.join(ROOT, 'scripts', 'samples-reference.py')
NUMPY = os.path.join(ROOT, 'bench', 'python', 'samples_numpy.py')
START = 1596542400      # 2020-08-04T12:00:00Z
SPAN = 12 * 3600


def iso(seconds):
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(seconds))


def make_requests(n, seed):
    rng = np.random.default_rng(seed)
    lat = rng.uniform(48.0, 56.0, n)
    lon = rng.uniform(13.0, 25.0, n)
    alt = rng.uniform(0.0, 20000.0, n)
    secs = rng.integers(0, SPAN + 1, n)
    # Edge cases the stencil and the time rule must agree on: grid points, grid lines, valid times, bounds.
    k = n // 10
    lat[:k] = 48.0 + 0.25 * rng.integers(0, 33, k)
    lon[:k // 2] = 13.0 + 0.25 * rng.integers(0, 49, k // 2)
    secs[:k // 3] = rng.choice([0, 6 * 3600, 12 * 3600], k // 3)
    lat[k] = 56.0
    lon[k] = 25.0
    alt[k + 1] = 0.0
    times = [iso(START + int(s)) for s in secs]
    base = {'latitude': lat.tolist(), 'longitude': lon.tolist(), 'altitude_m': alt.tolist(), 'time': times,
            'altitude_reference': 'agl', 'interpolation': 'linear'}
    reqs = {
        'agl-model-ground': dict(base, out_of_column=None),
        'agl-model-ground-nearest-level': dict(base, out_of_column='nearest_level'),
        'agl-caller-ground': dict(base, ground_elevation_m_msl=rng.uniform(-50, 1500, n).tolist(),
                                  out_of_column='nearest_level'),
        'msl-one-time': dict(base, altitude_reference='msl', time='2020-08-04T15:20:00Z',
                             altitude_m=rng.uniform(-100, 25000, n).tolist(), out_of_column=None),
    }
    # Statuses: off the regional grid (also a corner just off it), outside in time, the nearest-time fallback
    # after the last valid time, a height far above every column.
    edge_lat = [47.9, 56.1, 52.0, 52.0, 52.0, 52.0, 52.0, 55.99, 48.0, 52.0]
    edge_lon = [20.0, 20.0, 12.99, 25.01, 20.0, 20.0, 20.0, 24.99, 13.0, 380.0]
    edge_t = ['2020-08-04T18:00:00Z'] * 4 + ['2020-08-05T02:00:00Z', '2020-08-05T03:00:00.001Z',
                                             '2020-08-05T03:00:00Z', '2020-08-04T21:30:00+01:00',
                                             '2020-08-04T11:59:59.999Z', '2020-08-04T13:00:00Z']
    edge_alt = [1000, 1000, 1000, 1000, 1000, 1000, 60000, 500, 800, 3000]
    reqs['edges'] = {'latitude': edge_lat, 'longitude': edge_lon, 'altitude_m': edge_alt, 'time': edge_t,
                     'altitude_reference': 'agl'}
    return reqs


def run(script, data, req):
    p = subprocess.run([sys.executable, script, '--data', data], input=json.dumps(req).encode(),
                       capture_output=True, check=True)
    return json.loads(p.stdout), p.stderr.decode().strip()


def compare(a, b):
    """(largest relative difference, numbers compared, numbers bitwise equal); raises on structural disagreement."""
    if a['count'] != b['count'] or a['units'] != b['units']:
        raise SystemExit('count or units differ')
    worst, compared, equal = 0.0, 0, 0
    for key, ref in b['columns'].items():
        got = a['columns'][key]
        for idx, (x, y) in enumerate(zip(got, ref)):
            if not (isinstance(x, float) and isinstance(y, float)):
                if x != y:     # statuses, unit indices, nulls: must be identical
                    raise SystemExit(f'{key}[{idx}]: {x!r} != {y!r}')
                continue
            compared += 1
            if x == y:
                equal += 1
                continue
            d = abs(x - y)
            size = max(abs(x), abs(y))
            # Near zero a relative measure means nothing: there the difference itself must stay below
            # 1e-18 kg/kg for q (values under 1e-9) or 1e-15 for the rest (values under 1e-6).
            near_zero, floor = (1e-9, 1e-18) if key == 'specific_humidity_kg_kg' else (1e-6, 1e-15)
            if size < near_zero:
                if d > floor:
                    worst = max(worst, 1.0)
                continue
            worst = max(worst, d / size)
    return worst, compared, equal


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--data', default=os.path.join(ROOT, 'data', 'sample'))
    ap.add_argument('--points', type=int, default=1000)
    ap.add_argument('--seed', type=int, default=20200804)
    args = ap.parse_args()
    failed = False
    for name, req in make_requests(args.points, args.seed).items():
        ref, _ = run(REFERENCE, args.data, req)
        got, timing = run(NUMPY, args.data, req)
        worst, compared, equal = compare(got, ref)
        statuses = {s: ref['columns']['status'].count(s) for s in sorted(set(ref['columns']['status']))}
        weights = [w for w in ref['columns']['time_weight'] if w is not None]
        ok = worst <= 1e-9
        failed |= not ok
        print(f'{name}: {"OK" if ok else "FAIL"} worst relative difference {worst:.3e}; statuses {statuses}; '
              f'units {len(ref["units"])}; points between two units {sum(1 for w in weights if w > 0)}; '
              f'{equal}/{compared} numbers bitwise equal')
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
