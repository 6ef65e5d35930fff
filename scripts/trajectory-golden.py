#!/usr/bin/python3
"""Writes test/fixtures/trajectory/golden.json: flights and the answers of scripts/trajectory-reference.py.

Run from the repository root (needs Debian python3-eccodes and numpy; no network):

    /usr/bin/python3 scripts/trajectory-golden.py

The flights are over the bundled real GFS sample (run 2020-08-04 12Z, f000/f006/f012): a standard flight from
Warsaw with Tawhiri's density and with the model's, a float flight, a pinned launch altitude, a flight that lands
before the data end, one that outlives them (left_source_coverage in time) and a float that drifts off the
sample's eastern edge (left_source_coverage in place). The engine's tests hold the service's answers to these,
point by point.
"""
import importlib.util
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location('reference', os.path.join(ROOT, 'scripts', 'trajectory-reference.py'))
ref = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ref)

BASE = {'launch_latitude': 52.2297, 'launch_longitude': 21.0122, 'launch_datetime': '2020-08-04T12:00:00Z',
        'ascent_rate': 5.0}
FLIGHTS = {
    'warsaw standard': dict(BASE, burst_altitude=30000.0, descent_rate=5.0),
    'warsaw standard, model density': dict(BASE, burst_altitude=30000.0, descent_rate=5.0, descent_density='model'),
    'warsaw float': dict(BASE, profile='float_profile', float_altitude=15000.0, stop_datetime='2020-08-04T16:00:00Z'),
    'krakow pinned launch altitude, slow': dict(BASE, launch_latitude=50.06, launch_longitude=19.94,
                                                launch_datetime='2020-08-04T15:20:30Z', launch_altitude=400.0,
                                                ascent_rate=3.7, burst_altitude=24000.0, descent_rate=7.5),
    'warsaw launch 23Z': dict(BASE, launch_datetime='2020-08-04T23:00:00Z', burst_altitude=30000.0, descent_rate=5.0),
    'warsaw launch 01:30Z': dict(BASE, launch_datetime='2020-08-05T01:30:00Z', burst_altitude=30000.0,
                                 descent_rate=5.0),
    'east edge float': dict(BASE, launch_latitude=52.0, launch_longitude=24.5, profile='float_profile',
                            float_altitude=15000.0, stop_datetime='2020-08-04T16:00:00Z'),
}


def main():
    ref.sr.DECODED_AS_FLOAT32 = True
    sampler = ref.sr.Sampler(ref.sr.Catalog(os.path.join(ROOT, 'data', 'sample')), 3.0)
    cases = []
    for name, request in FLIGHTS.items():
        out = ref.fly(request, ref.GfsAir(sampler))
        cases.append({'name': name, 'request': request, 'expected': out})
    path = os.path.join(ROOT, 'test', 'fixtures', 'trajectory', 'golden.json')
    with open(path, 'w') as f:
        json.dump(cases, f, allow_nan=False)
        f.write('\n')
    print(f'wrote {path}: {len(cases)} flights')


if __name__ == '__main__':
    main()
