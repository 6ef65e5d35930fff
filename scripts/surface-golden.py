#!/usr/bin/python3
"""Writes test/fixtures/profiles/cases-surface.json: golden profiles WITH the surface layer (docs/DESIGN.md §8).

Run from the repository root (needs Debian python3-eccodes and numpy; no network):

    /usr/bin/python3 scripts/surface-golden.py

Every case is answered by scripts/surface-reference.py (imported as a module) on the GRIB file it names, relative to
test/fixtures/grib/. The shape is cases.json's (name, file, run, forecast_hour, request, expected) with
`request.surface_layer: true` and `expected.surface_layer` ("gfs_height_above_ground" or "unavailable"), followed
when the layer is joined by `expected.surface_layer_nodes` (the heights each variable uses after §8's precision
rule); `time` is the file's valid time. The places: lowland (52.0N 19.0E, 52.72N 24.83E), the coast at Gdansk and
the open sea of its bay, and the highest model terrain of the 48-56N 13-25E sample (49.25N 20.0E, Tatra); heights
from the model ground to 5000 m in both references, callers' grounds above and below the model's, heights below
ground; the files: the real 2020-08-04 12Z f006 and 2020-07-21 12Z f000 grib-filter files, three filtered copies of
the f006 in aloft-derived/ (no SPFH 2 m, no 20-50 m winds, no surface PRES; see ../grib/PROVENANCE.md) and the SPFH
file derived/gfs.t12z.pgrb2.0p25.f006 (no above-ground fields and no surface PRES: "unavailable"). MSL heights are
written relative to each point's model ground (g_m + 0.05 rounded to 0.01 m, then g_m + h rounded to 0.1 m).
"""
import calendar
import importlib.util
import json
import os
import time

import eccodes

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRIB = os.path.join(ROOT, 'test', 'fixtures', 'grib')
OUT = os.path.join(ROOT, 'test', 'fixtures', 'profiles', 'cases-surface.json')
_spec = importlib.util.spec_from_file_location('surface_reference', os.path.join(ROOT, 'scripts', 'surface-reference.py'))
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)

F006 = 'Porbi96+GFS-forecast-web-app/data/gfs/20200804/12z/gfs.pgrb2.0p25.f006'
F0721 = 'Porbi96+GFS-forecast-web-app/gfs.t12z.pgrb2.0p25.f000'
NO_SPFH2 = 'aloft-derived/gfs.t12z.pgrb2.0p25.f006-no-2m-spfh.grib2'
NO_WIND = 'aloft-derived/gfs.t12z.pgrb2.0p25.f006-no-20-50m-wind.grib2'
NO_PRES = 'aloft-derived/gfs.t12z.pgrb2.0p25.f006-no-sfc-pres.grib2'
SPFH = 'derived/gfs.t12z.pgrb2.0p25.f006'

# The heights of the brief: every §8 node, around them, and above the layer (21 <= 32 per request).
HEIGHTS = [0, 1, 2, 5, 9.9, 10, 15, 20, 25, 30, 40, 50, 60, 80, 90, 100, 101, 150, 300, 1000, 5000]

LOWLAND = (52.0, 19.0)
LOWLAND_EAST = (52.72, 24.83)
GDANSK = (54.35, 18.65)        # -> 54.25N 18.75E, land (lsm 1), model ground ~14 m; the bay is the next row north
BAY = (54.74, 18.8)            # -> 54.75N 18.75E, sea (lsm 0), model ground ~0.06 m
TATRA = (49.2, 20.0)           # -> 49.25N 20.0E, the highest model terrain of the sample (~1251 m)


def file_times(rel):
    """(run, forecast_hour, valid time) of a file, from its first message."""
    with open(os.path.join(GRIB, rel), 'rb') as fh:
        h = eccodes.codes_grib_new_from_file(fh)
        try:
            date = eccodes.codes_get_long(h, 'dataDate')
            hhmm = eccodes.codes_get_long(h, 'dataTime')
            assert eccodes.codes_get_string(h, 'stepUnits') in ('1', 'h'), 'steps in hours expected'
            step = eccodes.codes_get_long(h, 'endStep')
        finally:
            eccodes.codes_release(h)
    run = calendar.timegm((date // 10000, date // 100 % 100, date % 100, hhmm // 100, hhmm % 100, 0, 0, 0, 0))
    fmt = lambda s: time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(s))  # noqa: E731
    return fmt(run), step, fmt(run + step * 3600)


def model_ground(rel, point):
    return ref.answer(os.path.join(GRIB, rel), {'latitude': point[0], 'longitude': point[1], 'altitudes_m': [],
                                                'altitude_reference': 'agl'})['model_ground_elevation_m_msl']


def msl_heights(rel, point, heights=HEIGHTS):
    """MSL heights near each of `heights` above the model ground: g_m + 0.05 (2 decimals) for 0, else g_m + h (1).

    g_m itself is not used: a height exactly on the ground is served, but an engine whose terrain differs from the
    reference's in the last bit would refuse it; AGL 0 tests that limit instead (z = ground + 0 is exact).
    """
    g = model_ground(rel, point)
    return [round(g + 0.05, 2) if h == 0 else round(g + h, 1) for h in heights]


def case(name, rel, point, altitudes, reference, ground=None):
    run, step, valid = file_times(rel)
    assert len(altitudes) <= 32, name
    req = {'latitude': point[0], 'longitude': point[1], 'time': valid, 'altitudes_m': altitudes,
           'altitude_reference': reference}
    if ground is not None:
        req['ground_elevation_m_msl'] = ground
    req['surface_layer'] = True
    expected = ref.answer(os.path.join(GRIB, rel), req)
    if expected['surface_layer'] == 'gfs_height_above_ground':
        # the unit's provenance is the grid point's own nodes in every file here
        state = ref.build(ref.read_point(os.path.join(GRIB, rel), point[0], point[1]), req)
        assert ref.provenance(state['heights']) == expected['surface_layer_nodes'], name
    else:
        assert 'surface_layer_nodes' not in expected, name
    return {'name': name, 'file': rel, 'run': run, 'forecast_hour': step, 'request': req, 'expected': expected}


def cases():
    out = [
        # Real 2020-08-04 12Z f006: all of §8's fields present.
        case('lowland-52n19e-agl', F006, LOWLAND, HEIGHTS, 'agl'),
        case('lowland-52n19e-msl', F006, LOWLAND, msl_heights(F006, LOWLAND), 'msl'),
        case('lowland-52n19e-msl-below-ground', F006, LOWLAND,
             [300, round(model_ground(F006, LOWLAND) - 1.0, 1), 1000], 'msl'),
        case('lowland-52n19e-caller-ground-above', F006, LOWLAND, [0, 5, 50, 100, 300, 1000], 'agl', 130),
        case('lowland-east-agl', F006, LOWLAND_EAST, HEIGHTS, 'agl'),
        case('lowland-east-msl', F006, LOWLAND_EAST, msl_heights(F006, LOWLAND_EAST), 'msl'),
        case('coast-gdansk-agl', F006, GDANSK, HEIGHTS, 'agl'),
        case('coast-gdansk-msl', F006, GDANSK, msl_heights(F006, GDANSK), 'msl'),
        case('coast-gdansk-msl-zero-below-ground', F006, GDANSK, [0, 100], 'msl'),
        case('sea-gdansk-bay-agl', F006, BAY, HEIGHTS, 'agl'),
        case('sea-gdansk-bay-msl-zero-below-ground', F006, BAY, [0], 'msl'),
        case('tatra-agl', F006, TATRA, HEIGHTS, 'agl'),
        case('tatra-msl', F006, TATRA, msl_heights(F006, TATRA), 'msl'),
        case('tatra-msl-below-ground', F006, TATRA, [1500, 1250, 2000], 'msl'),
        case('tatra-caller-ground-above', F006, TATRA,
             [0, 1, 2, 5, 9.9, 10, 15, 20, 50, 80, 90, 100, 150, 300, 1000, 5000], 'agl', 1260),
        case('tatra-caller-ground-below-served', F006, TATRA, [12, 20, 50, 100, 300, 1000], 'agl', 1240),
        case('tatra-caller-ground-below-outside', F006, TATRA, [100, 0, 300], 'agl', 1240),
        # Another date (analysis, 2020-07-21 12Z f000).
        case('lowland-52n19e-agl-20200721', F0721, LOWLAND, HEIGHTS, 'agl'),
        case('tatra-agl-20200721', F0721, TATRA, HEIGHTS, 'agl'),
        # RH only at 2 m: q at 2 m by the NCEP inversion with p at 2 m from the ln p rule.
        case('no-2m-spfh-lowland-agl', NO_SPFH2, LOWLAND, HEIGHTS, 'agl'),
        case('no-2m-spfh-tatra-msl', NO_SPFH2, TATRA, msl_heights(NO_SPFH2, TATRA), 'msl'),
        # No 20-50 m winds: u, v nodes 10, 80, 100.
        case('no-20-50m-wind-lowland-agl', NO_WIND, LOWLAND, HEIGHTS, 'agl'),
        case('no-20-50m-wind-coast-agl', NO_WIND, GDANSK, HEIGHTS, 'agl'),
        # The minimum is missing: §4's column, surface_layer "unavailable".
        case('no-sfc-pres-lowland-agl-served', NO_PRES, LOWLAND, [300, 1000, 5000], 'agl'),
        case('no-sfc-pres-lowland-agl-outside', NO_PRES, LOWLAND, [0, 10, 300], 'agl'),
        case('spfh-file-lowland-agl-served', SPFH, LOWLAND, [300, 1000, 5000], 'agl'),
        case('spfh-file-lowland-agl-outside', SPFH, LOWLAND, [0, 100, 300], 'agl'),
        case('spfh-file-tatra-msl-served', SPFH, TATRA, [1500, 2000, 5000, 12000], 'msl'),
    ]
    names = [c['name'] for c in out]
    assert len(set(names)) == len(names)
    return out


def zero(x):
    """-0.0 (u10 or v10 times 0 at the ground) is written as 0.0."""
    return 0.0 if x == 0 else x


def main():
    out = cases()
    for c in out:
        for lv in c['expected'].get('levels', []):
            for k in lv:
                lv[k] = zero(lv[k])
    with open(OUT, 'w') as fh:
        json.dump(out, fh, indent=1, allow_nan=False)
        fh.write('\n')
    for c in out:
        e = c['expected']
        what = e.get('error') or f'{len(e["levels"])} levels'
        nodes = json.dumps(e['surface_layer_nodes']) if 'surface_layer_nodes' in e else ''
        print(f'{c["name"]}: {e["surface_layer"]}, {what} {nodes}')
    print(f'wrote {os.path.relpath(OUT, ROOT)}: {len(out)} cases')


if __name__ == '__main__':
    main()
