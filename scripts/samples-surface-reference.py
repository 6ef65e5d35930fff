#!/usr/bin/python3
"""Independent reference for aloft's bulk samples WITH the surface layer (docs/DESIGN.md §6 + §8), exact and plain.

Run from the repository root (needs Debian python3-eccodes and numpy; no network):

    /usr/bin/python3 scripts/samples-surface-reference.py --data data/sample [--max-time-offset-hours 3] \\
        < request.json > answer.json
    /usr/bin/python3 scripts/samples-surface-reference.py --data data/sample --self-check

The request is the service's JSON body of §6 plus `surface_layer` (true: §8's column; absent or false: §4's
column, exactly as the service defaults). The answer is `{count, units, columns}` as scripts/samples-reference.py
writes it; with `surface_layer: true` every `units` entry also carries `surface_layer`
("gfs_height_above_ground" or "unavailable", §8 "Samples carry the same per unit") and, when the layer is joined,
`surface_layer_nodes` right after it (surface-reference.py's `unit_nodes` / `provenance`: the heights each variable
uses after the precision rule, judged from the fields the unit's file holds).

How it is put together (nothing under src/, workers/ or web/ was read):
- Time choice (§6 linear, §3 nearest), the bilinear stencil, the nearest grid point, the catalog of units and the
  request parsing come from scripts/samples-reference.py (imported as a module, like samples-golden.py does).
- The column at a grid point is built by scripts/surface-reference.py's own functions (`build`, which calls
  `plain_column` and `surface_nodes`; `sample_layer` / `sample_plain`, `Profile`, `level_fields`), so the §8
  reading is exactly the single-profile reference's (see test/fixtures/profiles/README-surface.md). Only the
  GRIB reading differs: surface-reference.py's `read_point` decodes a whole file per grid point, so this module
  decodes every unit once into whole grids with the same matching rules (GRIB codes, product template 0, no
  second surface, first occurrence wins, bitmap or non-finite -> missing, float32 rounding, the packing step of
  each surface / above-ground field by `ref.packing_step`) and hands `build` the same per-point dictionary
  `read_point` would (checked by `--self-check` on sample grid points). The precision rule and the wind pair rule
  live only in surface-reference.py (`node_heights`), for the columns and for the units' provenance alike.
- Per weighted column (up to 4 grid columns x 2 valid times): that grid point's column (its own model terrain
  g_m; with the layer its bottom is g_m, without it the lowest kept level), evaluated at the point's z_msl.
  z_msl below a weighted column's bottom or above its top: `outside_vertical_range` (out_of_column null) or that
  column alone clamps z_msl to its own [bottom, top] (nearest_level). Blend: u, v, T, q with the weights,
  p = exp(sum w ln p); one column of weight exactly 1 (a grid point at a valid time, or `nearest`) keeps its own
  values, its own pressure. Derived fields from the blended values (surface-reference.py's `level_fields`).
- ln p of a column at z: ln of the node's / level's own pressure when z is exactly on one, else the ln p
  interpolant (surface-reference.py's `lnp` profile, or the linear ln p between the two §4 levels).

trajectory-surface-reference.py imports this file (the sampler has samples-reference.py's Sampler interface:
`sample`, `terrain`, `weighted_columns`).
"""
import argparse
import bisect
import importlib.util
import json
import math
import os
import sys

import eccodes
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _load(name, filename):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, filename))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


sr = _load('samples_reference', 'samples-reference.py')      # §6 time/stencil/catalog, §3 nearest
ref = _load('surface_reference', 'surface-reference.py')     # §4/§8 column building and evaluation

FIELDS = ref.FIELDS
LAYER_ON = 'gfs_height_above_ground'
LAYER_OFF = 'unavailable'


# --- GRIB: one unit's wanted fields as whole grids, matched exactly as surface-reference.read_point does ----------

class UnitFields:
    """Every field surface-reference.read_point can use, for every grid point of one (run, step) file."""

    def __init__(self, path, grid):
        tables = ref.FieldTables()
        index = None
        for h, _code, kind, key in ref.matched_fields(path):
            table, key, step_table = tables.slot(kind, key)
            g = sr.Unit._grid_facts(h)
            if g != grid:
                raise SystemExit(f'{path}: a message grid differs from the unit grid')
            if index is None:
                index = sr.Unit._index(h, grid)
            if key not in table:          # the first occurrence wins (even when its value is missing)
                table[key] = self._values(h, grid, index)
                if step_table is not None:
                    step_table[key] = ref.packing_step(h)
        self.grid = grid
        self.surface, self.above, self.iso, self.order = tables.surface, tables.above, tables.iso, tables.order
        self.has_spfh = any('spfh' in lv for lv in tables.iso.values())
        self.surface_step, self.above_step = tables.surface_step, tables.above_step
        # §8's minimum and node heights, judged per unit (after the precision rule) from the messages the file
        # carries (provenance); the per-column fallback to §4 (a value missing or not finite at one grid point)
        # is surface-reference's.
        self.heights = ref.unit_nodes(tables.surface_step, tables.above_step)
        self.layer_fields = self.heights is not None

    @staticmethod
    def _values(h, grid, index):
        """float32-rounded values on [j][i]; NaN where the bitmap says missing or the value is not finite."""
        values = eccodes.codes_get_double_array(h, 'values')
        bad = ~np.isfinite(values)
        if eccodes.codes_get_long(h, 'bitmapPresent'):
            bad |= np.asarray(eccodes.codes_get_long_array(h, 'bitmap')) == 0
        values = np.where(bad, np.nan, values.astype(np.float32).astype(np.float64))
        out = np.full((grid['nj'], grid['ni']), np.nan)
        out[index[0], index[1]] = values
        return out

    def point(self, j, i):
        """The dictionary surface-reference.read_point returns for grid point (j, i)."""
        def val(arr):
            v = float(arr[j, i])
            return v if math.isfinite(v) else None
        g = self.grid
        slon = (g['west'] + i * g['dlon']) % 360.0
        if slon > 180.0:
            slon -= 360.0
        return {'sampled': (g['south'] + j * g['dlat'], slon),
                'surface': {k: val(a) for k, a in self.surface.items()},
                'above_ground': {k: val(a) for k, a in self.above.items()},
                'isobaric': {pa: {k: val(a) for k, a in lv.items()} for pa, lv in self.iso.items()},
                'isobaric_order': list(self.order), 'has_spfh': self.has_spfh,
                'surface_step': dict(self.surface_step), 'above_ground_step': dict(self.above_step)}


# --- a column: surface-reference's state, evaluated with ln p kept for the blend ----------------------------------

class LayerColumn:
    """One grid point's column (§8 with the layer, else §4), as surface-reference.build makes it."""

    def __init__(self, state):
        self.state = state
        self.terrain = state['g_m']
        self.layer = state['layer']
        self.bottom = state['bottom']
        self.top = state['top']

    def at(self, z, clamp):
        """Values at z: ({u, v, t, q, p, lnp}, clamped) or (None, False) outside without clamping."""
        clamped = False
        if z < self.bottom or z > self.top:
            if not clamp:
                return None, False
            clamped = True
            z = self.bottom if z < self.bottom else self.top
        st = self.state
        if self.layer:
            vals = ref.sample_layer(st, z)
            own = st['p_nodes'].get(z)
            lnp = math.log(own) if own is not None else st['lnp'].at(z)
        else:
            vals = ref.sample_plain(st['levels'], z)
            levels = st['levels']
            zs = [lv['z'] for lv in levels]
            k = bisect.bisect_right(zs, z) - 1
            if zs[k] == z:
                lnp = math.log(levels[k]['p'])
            else:
                a = (z - zs[k]) / (zs[k + 1] - zs[k])
                lo, hi = math.log(levels[k]['p']), math.log(levels[k + 1]['p'])
                lnp = lo + a * (hi - lo)
        return {'u': vals['wind_u_ms'], 'v': vals['wind_v_ms'], 't': vals['temperature_k'],
                'q': vals['specific_humidity_kg_kg'], 'p': vals['pressure_pa'], 'lnp': lnp}, clamped


# --- the sampler (samples-reference.Sampler with §8 columns) -----------------------------------------------------------

class SurfaceSampler(sr.Sampler):
    """samples-reference's Sampler (time choice, stencil, blend) over this module's §8 columns."""

    def __init__(self, catalog, max_offset_hours=3.0, surface_layer=True):
        super().__init__(catalog, max_offset_hours)
        self.surface_layer = bool(surface_layer)
        self._fields = {}
        self._columns = {}
        self.fallbacks = 0        # columns where the layer was asked but the point lacked §8's minimum
        self.node_mismatches = 0  # layer columns whose own nodes differ from their unit's surface_layer_nodes

    def fields(self, unit):
        f = self._fields.get(id(unit))
        if f is None:
            unit.load()
            f = self._fields[id(unit)] = UnitFields(unit.path, unit.grid)
        return f

    def unit_layer(self, unit):
        return LAYER_ON if self.fields(unit).layer_fields else LAYER_OFF

    def unit_nodes(self, unit):
        """The unit's `surface_layer_nodes`, or None when the layer is not joined."""
        heights = self.fields(unit).heights
        return None if heights is None else ref.provenance(heights)

    def column(self, unit, j, i):
        """LayerColumn at (j, i), or None when unusable (no finite terrain, no level, nothing above the layer)."""
        key = (id(unit), j, i)
        if key in self._columns:
            return self._columns[key]
        pt = self.fields(unit).point(j, i)
        col = None
        hgt = pt['surface'].get('hgt')
        if hgt is not None and ref.plain_column(pt, ref.geometric(hgt)):
            try:
                state = ref.build(pt, {'surface_layer': self.surface_layer})
            except AssertionError:   # the layer leaves no pressure level above g_m + h_top
                state = None
            if state is not None:
                col = LayerColumn(state)
                if self.surface_layer and not state['layer']:
                    self.fallbacks += 1
                if state['layer'] and ref.provenance(state['heights']) != self.unit_nodes(unit):
                    self.node_mismatches += 1
        self._columns[key] = col
        return col

    @staticmethod
    def derive(u, v, t, p, q):
        return ref.level_fields(u, v, t, p, q)


# --- the request ---------------------------------------------------------------------------------------------------

def _zero(x):
    return 0.0 if x == 0 else x      # no -0.0 in the answer


def answer(request, catalog, max_offset_hours=3.0):
    """The §6 answer {count, units, columns} for one request (surface_layer read from the request)."""
    layer = bool(request.get('surface_layer'))
    sampler = SurfaceSampler(catalog, max_offset_hours, layer)
    return answer_with(request, sampler)


def answer_with(request, sampler):
    def describe(u):
        d = u.describe()
        if sampler.surface_layer:
            d['surface_layer'] = sampler.unit_layer(u)
            nodes = sampler.unit_nodes(u)
            if nodes is not None:
                d['surface_layer_nodes'] = nodes
        return d
    return sr.answer(request, sampler, fields=FIELDS, value=_zero, describe=describe)


# --- self-checks ---------------------------------------------------------------------------------------------------

def _rel(a, b):
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(a), abs(b))


def check_loader(catalog, points=((52.0, 19.0), (49.25, 20.0), (54.75, 18.75), (56.0, 25.0), (48.0, 13.0))):
    """This module's per-point dictionaries equal surface-reference.read_point's, for every unit."""
    sampler = SurfaceSampler(catalog)
    n = 0
    for unit in catalog.units:
        f = sampler.fields(unit)
        for lat, lon in points:
            j, i = sr.nearest_point(unit.grid, lat, lon)
            mine = f.point(j, i)
            theirs = ref.read_point(unit.path, lat, lon)
            if mine != theirs:
                raise SystemExit(f'loader differs from read_point at {lat},{lon} in {unit.path}')
            n += 1
    print(f'loader: {n} grid points x units identical to surface-reference.read_point')


def check_profiles(catalog, heights=(0, 1, 2, 5, 9.9, 10, 15, 30, 80, 100, 101, 150, 1000, 5000)):
    """`linear` at grid points on valid times, and `nearest` anywhere, equal surface-reference.answer."""
    sampler = SurfaceSampler(catalog, 3.0, True)
    worst, n = 0.0, 0
    cases = [((52.0, 19.0), '2020-08-04T12:00:00Z', 'linear'), ((52.25, 21.0), '2020-08-04T18:00:00Z', 'linear'),
             ((49.25, 20.0), '2020-08-05T00:00:00Z', 'linear'), ((54.75, 18.75), '2020-08-04T18:00:00Z', 'linear'),
             ((54.25, 18.75), '2020-07-21T12:00:00Z', 'linear'), ((50.0, 24.75), '2020-08-15T12:00:00Z', 'linear'),
             ((52.2297, 21.0122), '2020-08-04T15:00:00Z', 'nearest'), ((49.3, 19.9), '2020-08-04T20:59:00Z', 'nearest'),
             ((52.125, 21.125), '2020-08-05T01:00:00Z', 'nearest'), ((54.6, 18.7), '2020-07-22T07:29:59Z', 'nearest')]
    for (lat, lon), when, method in cases:
        t_ms = sr.parse_time_ms(when)
        unit = catalog.nearest(t_ms, sampler.max_offset_ms)
        for reference, ground in (('agl', None), ('agl', 300.0), ('msl', None)):
            base = {'latitude': lat, 'longitude': lon, 'altitudes_m': [], 'altitude_reference': 'agl',
                    'surface_layer': True}
            g_m = ref.answer(unit.path, base)['model_ground_elevation_m_msl']
            alts = list(heights) if reference == 'agl' else [round(g_m + h, 2) for h in (0.05, 3, 50, 500)]
            for alt in alts:
                req = dict(base, altitudes_m=[alt], altitude_reference=reference)
                if ground is not None:
                    req['ground_elevation_m_msl'] = ground
                exp = ref.answer(unit.path, req)
                got = sampler.sample(lat, lon, float(alt), t_ms, reference, ground, method, False)
                assert exp['surface_layer'] == sampler.unit_layer(unit)
                assert exp.get('surface_layer_nodes') == sampler.unit_nodes(unit), (lat, lon, when)
                if 'error' in exp:
                    assert got['status'] == 'outside_vertical_range', (lat, lon, when, alt, got['status'])
                    n += 1
                    continue
                assert got['status'] == 'ok', (lat, lon, when, alt, got['status'])
                lv = exp['levels'][0]
                pairs = [(got['z_msl'], lv['altitude_msl_m']), (got['ground'], exp['ground_elevation_m_msl'])]
                pairs += [(got['values'][k], lv[k]) for k in FIELDS]
                for a, b in pairs:
                    worst = max(worst, _rel(a, b))
                n += 1
    print(f'profiles: {n} heights (linear at grid points on valid times, nearest anywhere) against '
          f'surface-reference.answer, worst relative difference {worst:.3e}')
    return worst


def check_plain_golden(catalog, golden, limit=None):
    """Without the surface layer this module must reproduce test/fixtures/samples/golden.json."""
    with open(golden) as fh:
        cases = json.load(fh)
    worst, numbers = 0.0, 0
    for case in cases:
        req = dict(case['request'])
        if limit:
            n = len(req['latitude'])
            keep = list(range(0, n, max(1, n // limit)))[:limit]
            for key, val in list(req.items()):
                if isinstance(val, list) and len(val) == n:
                    req[key] = [val[k] for k in keep]
            exp_cols = {k: [v[x] for x in keep] for k, v in case['expected']['columns'].items()}
        else:
            exp_cols = case['expected']['columns']
        got = answer(req, catalog)
        # units may be fewer on a subset: compare through the unit descriptions
        for key, exp in exp_cols.items():
            for x, (a, b) in enumerate(zip(got['columns'][key], exp)):
                if key in ('unit_before', 'unit_after'):
                    a = None if a is None else got['units'][a]
                    b = None if b is None else case['expected']['units'][b]
                if isinstance(a, float) and isinstance(b, float):
                    worst = max(worst, _rel(a, b))
                    numbers += 1
                elif a != b:
                    raise SystemExit(f'{case["name"]} {key}[{x}]: {a!r} != {b!r}')
        print(f'  plain {case["name"]}: {len(req["latitude"])} points ok')
    print(f'plain (no surface layer) against {os.path.relpath(golden, ROOT)}: {numbers} numbers, '
          f'worst relative difference {worst:.3e}')
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--data', required=True)
    ap.add_argument('--max-time-offset-hours', type=float, default=3.0)
    ap.add_argument('--self-check', action='store_true',
                    help='loader vs read_point, profiles vs surface-reference, plain path vs samples golden')
    ap.add_argument('--golden', default=os.path.join(ROOT, 'test', 'fixtures', 'samples', 'golden.json'))
    ap.add_argument('--golden-points', type=int, default=0, help='points per golden request (0: all)')
    args = ap.parse_args()
    sr.DECODED_AS_FLOAT32 = True
    catalog = sr.Catalog(args.data)
    if args.self_check:
        check_loader(catalog)
        w1 = check_profiles(catalog)
        w2 = check_plain_golden(catalog, args.golden, args.golden_points or None)
        ok = w1 <= 1e-12 and w2 <= 1e-9
        print('self-check ' + ('passed' if ok else 'FAILED'))
        sys.exit(0 if ok else 1)
    request = json.load(sys.stdin)
    try:
        out = answer(request, catalog, args.max_time_offset_hours)
    except sr.RequestError as err:
        json.dump({'error': 'invalid_request', 'detail': str(err)}, sys.stdout)
        sys.stdout.write('\n')
        sys.exit(2)
    sys.stdout.write(json.dumps(out, allow_nan=False) + '\n')


if __name__ == '__main__':
    main()
