#!/usr/bin/python3
"""Writes test/fixtures/samples/golden-surface.json: samples requests WITH the surface layer and their answers.

Run from the repository root (needs Debian python3-eccodes and numpy; no network):

    /usr/bin/python3 scripts/samples-surface-golden.py

Every request carries `surface_layer: true` and is answered by scripts/samples-surface-reference.py (imported as a
module; docs/DESIGN.md §6 + §8) over the bundled data/sample mirror. The shape is golden.json's: a list of
{name, request, expected: {count, units, columns}}, each `units` entry with `surface_layer` and, when that is
"gfs_height_above_ground", `surface_layer_nodes` (the heights each variable uses after §8's precision rule).

Places (13 place/time pairs): grid points (lowland 52.0N 19.0E, Tatra 49.25N 20.0E, the Gdańsk bay 54.75N 18.75E),
mid-cell points (52.125N 21.125E, Warsaw 52.2297N 21.0122E, the Tatra slope 49.3N 19.9E, the coast 54.5N 18.6E
between land and sea, Kraków 50.06N 19.94E), a point on a grid line (52.0N 19.1E); times on valid times
(2020-08-04T12Z, 18Z, 2020-08-05T00Z), between them (15:00Z, weight 0.5; 20:30Z, weight 5/12; 2020-08-15T14Z, weight
1/3), the nearest-time fallback after the last valid time (2020-08-05T01Z), and Warsaw on the 2020-07-22 06Z
analysis, the one bundled unit whose TMP at 80 and 100 m is packed to 0.1 K (temperature nodes 2, 80, 100 m).
Heights 0, 1, 5, 9.9, 10, 30, 80, 100, 150, 1000 m AGL (model ground, and a caller ground per point above and below
the model's), MSL heights just below and above each weighted column's model ground (lowest and highest corner), one
far above every column; `linear` and `nearest`; `out_of_column` null and nearest_level; plus edge points (outside in
place and time).

The writer drops from the `null` requests a point whose ok / outside_vertical_range decision rests on the last bits of
a sum (a z within 1e-6 m of a column's bottom or top that is not exactly on it by construction: AGL 0 over the
model ground blended with weights 7/12 and 5/12 of one terrain; those points stay in the nearest_level requests),
and checks every `nearest` row and
every `linear` row at a grid point on a valid time against scripts/surface-reference.py's profile answer.
"""
import importlib.util
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location('ssr', os.path.join(ROOT, 'scripts', 'samples-surface-reference.py'))
ssr = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ssr)
sr, ref = ssr.sr, ssr.ref

DATA = os.path.join(ROOT, 'data', 'sample')
OUT = os.path.join(ROOT, 'test', 'fixtures', 'samples', 'golden-surface.json')

AGL = [0, 1, 5, 9.9, 10, 30, 80, 100, 150, 1000]
CALLER_AGL = [0, 5, 10, 30, 100, 150, 1000]
# (name, latitude, longitude, time, caller ground offset from the blended model ground in m)
PAIRS = [
    ('lowland grid point, f000', 52.0, 19.0, '2020-08-04T12:00:00Z', 40.0),
    ('lowland grid point, between f000 and f006', 52.0, 19.0, '2020-08-04T15:00:00Z', -25.0),
    ('lowland grid point, between f006 and f012', 52.0, 19.0, '2020-08-04T20:30:00Z', 3.0),
    ('tatra grid point, f006', 49.25, 20.0, '2020-08-04T18:00:00Z', 8.0),
    ('gdansk bay grid point, between', 54.75, 18.75, '2020-08-04T15:00:00Z', 12.0),
    ('mid-cell 52.125N 21.125E, f000', 52.125, 21.125, '2020-08-04T12:00:00Z', -60.0),
    ('mid-cell 52.125N 21.125E, between', 52.125, 21.125, '2020-08-04T15:00:00Z', 25.0),
    ('warsaw, between', 52.2297, 21.0122, '2020-08-04T15:00:00Z', -5.0),
    ('tatra slope, between', 49.3, 19.9, '2020-08-04T20:30:00Z', 150.0),
    ('coast land and sea, f012', 54.5, 18.6, '2020-08-05T00:00:00Z', -2.78),
    ('grid line, nearest-time fallback', 52.0, 19.1, '2020-08-05T01:00:00Z', 0.0),
    ('krakow, 2020-08-15 between', 50.06, 19.94, '2020-08-15T14:00:00Z', -30.0),
    ('warsaw, 2020-07-22 06Z analysis (TMP 80 and 100 m to 0.1 K)', 52.2297, 21.0122, '2020-07-22T06:00:00Z', 10.0),
]
EDGES = {'latitude': [47.9, 52.0, 52.0, 52.0, 55.99, 48.0, 52.2297],
         'longitude': [20.0, 25.01, 20.0, 20.0, 24.99, 13.0, 21.0122],
         'altitude_m': [10, 10, 10, 10, 5, 1, 60000],
         'time': ['2020-08-04T18:00:00Z', '2020-08-04T18:00:00Z', '2020-08-05T03:00:00.001Z', '2020-08-05T03:00:00Z',
                  '2020-08-04T21:30:00+01:00', '2020-08-04T11:59:59.999Z', '2020-08-04T13:00:00Z'],
         'altitude_reference': 'agl', 'interpolation': 'linear', 'out_of_column': None, 'surface_layer': True}


def columns_at(sampler, lat, lon, when, method):
    status, _, items = sampler.weighted_columns(lat, lon, sr.parse_time_ms(when), method)
    assert status is None, (lat, lon, when, status)
    return items


def blended_ground(items):
    return sum(w * col.terrain for w, col, _, _, _ in items)


def msl_heights(items):
    """Near each weighted column's model ground: below the lowest, between, above the highest; one above all."""
    gs = [col.terrain for _, col, _, _, _ in items]
    lo, hi, mid = min(gs), max(gs), blended_ground(items)
    hs = [lo - 1.0, lo + 0.05, mid + 0.5, hi - 0.5, hi + 0.05, hi + 1.0, hi + 5.0, hi + 15.0, hi + 95.0, hi + 130.0]
    return sorted({round(h, 2) for h in hs}) + [60000.0]


def build_requests(sampler):
    reqs = {}

    def add(name, rows, method, out_of_column, reference, with_ground=False):
        req = {'latitude': [r[0] for r in rows], 'longitude': [r[1] for r in rows],
               'altitude_m': [r[2] for r in rows], 'time': [r[3] for r in rows],
               'altitude_reference': reference}
        if with_ground:
            req['ground_elevation_m_msl'] = [r[4] for r in rows]
        req.update(interpolation=method, out_of_column=out_of_column, surface_layer=True)
        reqs[name] = req

    for method in ('linear', 'nearest'):
        rows = {'agl': [], 'agl-low': [], 'caller': [], 'caller-low': [], 'msl': []}
        for _, lat, lon, when, offset in PAIRS:
            items = columns_at(sampler, lat, lon, when, method)
            g = round(blended_ground(items) + offset, 2)
            rows['agl'] += [(lat, lon, h, when) for h in AGL]
            rows['agl-low'] += [(lat, lon, h, when) for h in AGL if h <= 10]
            rows['caller'] += [(lat, lon, h, when, g) for h in CALLER_AGL]
            rows['caller-low'] += [(lat, lon, h, when, g) for h in CALLER_AGL if h <= 30]
            rows['msl'] += [(lat, lon, h, when) for h in msl_heights(items)]
        if method == 'linear':
            add('linear-agl-model-ground-null', rows['agl'], method, None, 'agl')
            add('linear-agl-model-ground-nearest-level', rows['agl-low'], method, 'nearest_level', 'agl')
            add('linear-agl-caller-ground-null', rows['caller'], method, None, 'agl', True)
            add('linear-agl-caller-ground-nearest-level', rows['caller-low'], method, 'nearest_level', 'agl', True)
            add('linear-msl-near-ground-null', rows['msl'], method, None, 'msl')
            add('linear-msl-near-ground-nearest-level', rows['msl'], method, 'nearest_level', 'msl')
        else:
            add('nearest-agl-model-ground-null', rows['agl'], method, None, 'agl')
            add('nearest-agl-caller-ground-null', [r for r in rows['caller'] if r[2] in (0, 10, 100)], method,
                None, 'agl', True)
            add('nearest-msl-near-ground-nearest-level', rows['msl'], method, 'nearest_level', 'msl')
    reqs['edges'] = EDGES
    return reqs


def fragile(sampler, req, k):
    """True when point k's ok / outside decision rests on rounding: z within 1e-6 m of a limit, not on it exactly
    by construction (one column of weight 1, or equal terrains with weights 0.5)."""
    if req.get('out_of_column') == 'nearest_level':
        return False
    lat, lon, alt = req['latitude'][k], req['longitude'][k], float(req['altitude_m'][k])
    when = req['time'][k] if isinstance(req['time'], list) else req['time']
    status, _, items = sampler.weighted_columns(lat, lon, sr.parse_time_ms(when), req.get('interpolation', 'linear'))
    if status is not None:
        return False
    grounds = req.get('ground_elevation_m_msl')
    ground = grounds[k] if isinstance(grounds, list) else grounds
    if ground is None:
        ground = blended_ground(items)
    z = alt + ground if req['altitude_reference'] == 'agl' else alt
    exact = len(items) == 1 or (len({col.terrain for _, col, _, _, _ in items}) == 1
                                 and all(w == 0.5 for w, _, _, _, _ in items))
    for _, col, _, _, _ in items:
        for limit in (col.bottom, col.top):
            d = abs(z - limit)
            if d < 1e-6 and not (d == 0 and exact and alt == 0 and grounds is None):
                return True
    return False


def drop(req, bad):
    n = len(req['latitude'])
    keep = [k for k in range(n) if k not in set(bad)]
    return {key: [val[k] for k in keep] if isinstance(val, list) and len(val) == n else val
            for key, val in req.items()}


def check_against_profiles(req, expected):
    """nearest rows, and linear rows on one column of weight 1, equal surface-reference.answer exactly."""
    catalog_units = {(u['model_run_at'], u['forecast_hour']): u for u in expected['units']}
    cols = expected['columns']
    checked = 0
    for k, status in enumerate(cols['status']):
        if status not in ('ok', 'outside_vertical_range') or req.get('out_of_column') == 'nearest_level':
            continue
        if cols['unit_before'][k] != cols['unit_after'][k]:
            continue
        lat, lon = req['latitude'][k], req['longitude'][k]
        if req['interpolation'] == 'linear':
            on_grid = ((lat - 48.0) / 0.25).is_integer() and ((lon - 13.0) / 0.25).is_integer()
            if not on_grid:
                continue
        unit = expected['units'][cols['unit_before'][k]]
        assert (unit['model_run_at'], unit['forecast_hour']) in catalog_units
        day = unit['model_run_at'][:10].replace('-', '')
        cyc = unit['model_run_at'][11:13]
        path = os.path.join(DATA, f'gfs.{day}', cyc, 'atmos', f'gfs.t{cyc}z.pgrb2.0p25.f{unit["forecast_hour"]:03d}')
        p = {'latitude': lat, 'longitude': lon, 'altitudes_m': [req['altitude_m'][k]],
             'altitude_reference': req['altitude_reference'], 'surface_layer': True}
        if 'ground_elevation_m_msl' in req:
            p['ground_elevation_m_msl'] = req['ground_elevation_m_msl'][k]
        exp = ref.answer(path, p)
        assert exp['surface_layer'] == unit['surface_layer']
        assert exp.get('surface_layer_nodes') == unit.get('surface_layer_nodes'), (k, unit)
        if 'error' in exp:
            assert status == 'outside_vertical_range', (k, status)
        else:
            lv = exp['levels'][0]
            assert status == 'ok'
            for f in ssr.FIELDS + ['altitude_msl_m']:
                a, b = cols[f][k], lv[f]
                assert a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b)), (k, f, a, b)
        checked += 1
    return checked


def main():
    sr.DECODED_AS_FLOAT32 = True
    catalog = sr.Catalog(DATA)
    sampler = ssr.SurfaceSampler(catalog, 3.0, True)
    reqs = build_requests(sampler)
    cases = []
    total = 0
    for name, req in reqs.items():
        bad = [k for k in range(len(req['latitude'])) if fragile(sampler, req, k)]
        if bad:
            req = drop(req, bad)
            print(f'{name}: dropped {len(bad)} point(s) within 1e-6 m of a column limit (kept with nearest_level)')
        expected = ssr.answer_with(req, sampler)
        checked = check_against_profiles(req, expected)
        statuses = {s: expected['columns']['status'].count(s) for s in sorted(set(expected['columns']['status']))}
        total += expected['count']
        print(f'{name}: {expected["count"]} points, statuses {statuses}, units {len(expected["units"])}, '
              f'{checked} rows equal to surface-reference.answer')
        cases.append({'name': name, 'request': req, 'expected': expected})
    assert sampler.fallbacks == 0, 'a column fell back to §4 in the bundled data'
    assert sampler.node_mismatches == 0, "a column's own nodes differ from its unit's surface_layer_nodes"
    nodes = {}
    for case in cases:
        for u in case['expected']['units']:
            nodes[(u['model_run_at'], u['forecast_hour'])] = u.get('surface_layer_nodes')
    for (run, step), n in sorted(nodes.items()):
        print(f'unit {run} f{step:03d}: surface_layer_nodes {json.dumps(n)}')
    with open(OUT, 'w') as fh:
        json.dump(cases, fh, allow_nan=False)
        fh.write('\n')
    print(f'wrote {os.path.relpath(OUT, ROOT)}: {len(cases)} requests, {total} points, '
          f'{os.path.getsize(OUT)} bytes')


if __name__ == '__main__':
    main()
