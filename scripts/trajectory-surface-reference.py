#!/usr/bin/python3
"""Independent reference for aloft's balloon trajectories WITH the surface layer (docs/DESIGN.md §7 + §8).

Run from the repository root (needs Debian python3-eccodes and numpy; no network):

    /usr/bin/python3 scripts/trajectory-surface-reference.py --data data/sample < request.json > answer.json
    /usr/bin/python3 scripts/trajectory-surface-reference.py --golden      # writes test/fixtures/trajectory/golden-surface.json
    /usr/bin/python3 scripts/trajectory-surface-reference.py --self-check  # plain path vs golden.json

The request is scripts/trajectory-reference.py's (Tawhiri's fields, `descent_density`) plus `surface_layer`
(true: the air comes from §6 `linear` samples with `out_of_column: nearest_level` over §8's columns; absent or
false: §4's columns, i.e. exactly trajectory-reference.py). The answer has trajectory-reference.py's shape:
`{prediction: [{stage, trajectory: [{datetime, latitude, longitude, altitude, t}]}], warnings, launch_altitude}`.

Nothing is re-derived here: the integrator, stage ends, Tawhiri's density and the flight plan are
trajectory-reference.py's (`fly`, `GfsAir`, `solve`, imported as a module); winds, densities and the ground come
from scripts/samples-surface-reference.py's sampler, whose columns are scripts/surface-reference.py's. The ground
of the descent's end is the model terrain g_m, bilinear and time-blended (the same sum of weights x g_m as §6's
`agl` ground), so the flight lands on the model ground; every evaluation that clamped to any weighted column's
range counts in `altitude_outside_column` (with the layer a column's bottom is its own g_m, so near the landing
an evaluation below the highest corner's g_m clamps there). The columns obey §8's precision rule and wind pair rule
through surface-reference.py (`node_heights`): in the bundled 2020-08-04 units TMP at 80 and 100 m (whole kelvins)
is no node, so aloft's density (`descent_density: "model"`) takes T from 2 m straight to the kept levels.
"""
import argparse
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _load(name, filename):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, filename))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


tr = _load('trajectory_reference', 'trajectory-reference.py')
ssr = _load('samples_surface_reference', 'samples-surface-reference.py')

OUT = os.path.join(ROOT, 'test', 'fixtures', 'trajectory', 'golden-surface.json')

BASE = {'launch_latitude': 52.2297, 'launch_longitude': 21.0122, 'launch_datetime': '2020-08-04T12:00:00Z',
        'ascent_rate': 5.0, 'surface_layer': True}
FLIGHTS = {
    'warsaw standard, surface layer': dict(BASE, burst_altitude=30000.0, descent_rate=5.0),
    'warsaw standard, model density, surface layer': dict(BASE, burst_altitude=30000.0, descent_rate=5.0,
                                                          descent_density='model'),
    'warsaw short (burst 2000 m), surface layer': dict(BASE, burst_altitude=2000.0, descent_rate=5.0),
    'warsaw short (burst 2000 m), model density, surface layer': dict(BASE, burst_altitude=2000.0, descent_rate=5.0,
                                                                      descent_density='model'),
    'warsaw short (burst 2000 m), slow descent 1.5 m/s, surface layer': dict(BASE, burst_altitude=2000.0,
                                                                              descent_rate=1.5),
    'tatra slope between valid times, launch 1140 m (42 m above the blended model ground), surface layer': dict(
        BASE, launch_latitude=49.3, launch_longitude=19.9, launch_datetime='2020-08-04T15:20:30Z',
        launch_altitude=1140.0, ascent_rate=4.0, burst_altitude=3000.0, descent_rate=6.0),
}


def fly(request, catalog, max_offset_hours=3.0):
    sampler = ssr.SurfaceSampler(catalog, max_offset_hours, bool(request.get('surface_layer')))
    return tr.fly(request, tr.GfsAir(sampler))


def write_golden(catalog):
    cases = []
    for name, request in FLIGHTS.items():
        out = fly(request, catalog)
        assert 'error' not in out, name
        stages = [(s['stage'], len(s['trajectory'])) for s in out['prediction']]
        last = out['prediction'][-1]['trajectory'][-1]
        _, ground = ssr.SurfaceSampler(catalog, 3.0, True).terrain(last['latitude'], last['longitude'],
                                                                   last['t'] * 1000.0)
        print(f'{name}: launch {out["launch_altitude"]:.3f} m, {stages}, lands {last["datetime"]} at '
              f'{last["latitude"]:.5f}, {last["longitude"]:.5f}, {last["altitude"]:.3f} m (model ground there '
              f'{ground:.3f} m), warnings {out["warnings"]}')
        cases.append({'name': name, 'request': request, 'expected': out})
    with open(OUT, 'w') as fh:
        json.dump(cases, fh, allow_nan=False)
        fh.write('\n')
    print(f'wrote {os.path.relpath(OUT, ROOT)}: {len(cases)} flights')


def self_check(catalog):
    """Without the surface layer the flights of test/fixtures/trajectory/golden.json come out identical."""
    with open(os.path.join(ROOT, 'test', 'fixtures', 'trajectory', 'golden.json')) as fh:
        cases = json.load(fh)
    worst = 0.0
    for case in cases:
        out = fly(case['request'], catalog)
        exp = case['expected']
        assert out['warnings'] == exp['warnings'], (case['name'], out['warnings'], exp['warnings'])
        assert out['launch_altitude'] == exp['launch_altitude'], case['name']
        assert [s['stage'] for s in out['prediction']] == [s['stage'] for s in exp['prediction']]
        for a, b in zip(out['prediction'], exp['prediction']):
            assert len(a['trajectory']) == len(b['trajectory']), case['name']
            for p, q in zip(a['trajectory'], b['trajectory']):
                assert p['datetime'] == q['datetime'], case['name']
                for k in ('latitude', 'longitude', 'altitude', 't'):
                    worst = max(worst, abs(p[k] - q[k]))
        print(f'  {case["name"]}: same stages, points, instants and warnings')
    print(f'plain flights against golden.json: worst absolute difference {worst:.3e} (degrees, metres, seconds)')
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--data', default=os.path.join(ROOT, 'data', 'sample'))
    ap.add_argument('--max-time-offset-hours', type=float, default=3.0)
    ap.add_argument('--golden', action='store_true', help=f'write {os.path.relpath(OUT, ROOT)}')
    ap.add_argument('--self-check', action='store_true')
    args = ap.parse_args()
    ssr.sr.DECODED_AS_FLOAT32 = True
    tr.sr.DECODED_AS_FLOAT32 = True
    catalog = ssr.sr.Catalog(args.data)
    if args.self_check:
        sys.exit(0 if self_check(catalog) == 0.0 else 1)
    if args.golden:
        write_golden(catalog)
        return
    req = json.load(sys.stdin)
    out = fly(req, catalog, args.max_time_offset_hours)
    json.dump(out, sys.stdout, allow_nan=False)
    sys.stdout.write('\n')
    sys.exit(2 if 'error' in out else 0)


if __name__ == '__main__':
    main()
