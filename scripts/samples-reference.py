#!/usr/bin/python3
"""Independent reference for aloft's bulk samples (docs/DESIGN.md §6), exact and deliberately plain.

Run from the repository root (needs Debian python3-eccodes and numpy; no network):

    /usr/bin/python3 scripts/samples-reference.py --data data/sample [--max-time-offset-hours 3] \\
        < request.json > answer.json
    /usr/bin/python3 scripts/samples-reference.py --data data/sample --check-golden test/fixtures/profiles

The request is the service's JSON body of §6 (latitude, longitude, altitude_m, time, altitude_reference,
ground_elevation_m_msl, interpolation, out_of_column). The answer is
`{count, units, columns: {status, <fields>, altitude_msl_m, ground_elevation_m_msl, unit_before, unit_after,
time_weight}}`. `--check-golden` instead runs the `nearest` method on the golden profile cases whose GRIB file
is one of the data directory's units and compares with their expected numbers.

This script is written apart from the TypeScript engine, from docs/DESIGN.md (§3 nearest model time and grid
point, §4 physics, §6 samples) and the decisions fixed in its brief; it reads nothing under src/. GRIB files are
decoded by ecCodes; decoded values are rounded to float32 (the engine stores Float32Array) and everything after
is float64. One point is computed at a time, in the most literal way: speed is not a goal here.

trajectory-reference.py imports this file (sampling, terrain, catalog, time parsing).
"""
import argparse
import bisect
import calendar
import json
import math
import os
import re
import sys
import time

import eccodes
import numpy as np

# --- §4 constants -----------------------------------------------------------------------------------------------
R_GEOPOTENTIAL = 6371229.0          # geopotential -> geometric height
EPS = 0.6219569                     # R_d / R_v for RH output and density
R_D = 287.04749                     # J kg-1 K-1
EPS_NCEP = 287.05 / 461.50          # NCEP UPP's own epsilon, only for the RH -> q inversion
NCEP_T_TRIPLE = 273.16
NCEP_CV, NCEP_CL, NCEP_CI, NCEP_RV = 1846.0, 4185.5, 2106.0, 461.5
NCEP_LV, NCEP_LF = 2.5e6, 3.3358e5

FIELDS = ['wind_u_ms', 'wind_v_ms', 'wind_speed_ms', 'wind_direction_deg', 'temperature_k', 'pressure_pa',
          'specific_humidity_kg_kg', 'relative_humidity_pct', 'density_kg_m3']

# (discipline, category, number) of the isobaric fields a column needs; matched on codes, not short names.
ISOBARIC_PARAMS = {
    (0, 3, 5): 'hgt',
    (0, 0, 0): 'tmp',
    (0, 2, 2): 'ugrd',
    (0, 2, 3): 'vgrd',
    (0, 1, 1): 'rh',
    (0, 1, 0): 'spfh',
}
SURFACE_HGT = (0, 3, 5)
SURFACE, ISOBARIC, MISSING_SURFACE = 1, 100, 255

# The engine stores decoded values as float32 (DESIGN §4), so by default they are rounded to float32 here too.
# `--decoded float64` keeps ecCodes' doubles: that is how the golden profiles of test/fixtures/profiles were made.
DECODED_AS_FLOAT32 = True

HOUR_MS = 3600 * 1000
FILE_RE = re.compile(r'^gfs\.t(\d\d)z\.pgrb2\.0p25\.f(\d{3,})$')
DIR_RE = re.compile(r'^gfs\.(\d{4})(\d\d)(\d\d)$')
TIME_RE = re.compile(r'^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(\.\d+)?([Zz]|[+-]\d\d:\d\d)$')


class RequestError(Exception):
    """Something the service would refuse as a whole request (400/404): not a per-point status."""


# --- times ------------------------------------------------------------------------------------------------------

def parse_time_ms(text):
    """RFC 3339 (§3 shapes) -> integer milliseconds since the epoch.

    A fraction finer than a millisecond is truncated, as JavaScript's Date keeps whole milliseconds.
    """
    m = TIME_RE.match(text)
    if not m:
        raise RequestError(f'not an RFC 3339 time: {text!r}')
    y, mo, d, hh, mi, ss = (int(g) for g in m.groups()[:6])
    if ss > 59:
        raise RequestError(f'leap seconds are refused: {text!r}')
    seconds = calendar.timegm((y, mo, d, hh, mi, ss, 0, 0, 0))
    frac = m.group(7)
    ms = int((frac[1:] + '000')[:3]) if frac else 0
    zone = m.group(8)
    offset_min = 0
    if zone not in ('Z', 'z'):
        sign = 1 if zone[0] == '+' else -1
        offset_min = sign * (int(zone[1:3]) * 60 + int(zone[4:6]))
    return (seconds - offset_min * 60) * 1000 + ms


def format_time_ms(ms):
    """Whole-second UTC RFC 3339 with Z (units are always on whole hours)."""
    s, rest = divmod(int(ms), 1000)
    assert rest == 0
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(s))


# --- §4 physics -------------------------------------------------------------------------------------------------

def geometric_height(h):
    """Geopotential height (gpm) -> geometric height (m), §4."""
    return R_GEOPOTENTIAL * h / (R_GEOPOTENTIAL - h)


def e_ncep(t):
    """UPP FPVSNEW evaluated directly (no table): saturation vapour pressure (Pa), liquid/ice blend, §4."""
    def one(cx):
        a = -(NCEP_CV - cx) / NCEP_RV
        lat = NCEP_LV if cx == NCEP_CL else NCEP_LV + NCEP_LF
        b = a + lat / (NCEP_RV * NCEP_T_TRIPLE)
        tr = NCEP_T_TRIPLE / t
        return 610.78 * tr ** a * math.exp(b * (1.0 - tr))
    if t >= 273.16:
        return one(NCEP_CL)
    if t < 253.16:
        return one(NCEP_CI)
    w = (t - 253.16) / 20.0
    return w * one(NCEP_CL) + (1.0 - w) * one(NCEP_CI)


def q_from_rh(rh, t, p):
    """Invert NCEP's RH definition (UPP CALRH_GFS): q = RH/100 * q_s, §4."""
    e = min(e_ncep(t), p)
    qs = EPS_NCEP * e / (p - (1.0 - EPS_NCEP) * e)
    return rh / 100.0 * qs


def e_sat_liquid_murphy_koop(t):
    """Murphy & Koop (2005) eq. 10, saturation vapour pressure over liquid water (Pa)."""
    ln_t = math.log(t)
    return math.exp(54.842763 - 6763.22 / t - 4.210 * ln_t + 0.000367 * t
                    + math.tanh(0.0415 * (t - 218.8)) * (53.878 - 1331.22 / t - 9.44523 * ln_t + 0.014025 * t))


def wind_direction(u, v):
    """Direction the wind blows from, degrees clockwise from north, in [0, 360); 0 when calm (§4)."""
    if math.sqrt(u * u + v * v) == 0.0:
        return 0.0
    d = math.degrees(math.atan2(-u, -v))
    if d < 0.0:
        d += 360.0
    if d >= 360.0:
        d = 0.0
    return d


def derived(u, v, t, p, q):
    """Every output field from blended u, v, T, p, q (§4 formulas)."""
    e = q * p / (EPS + (1.0 - EPS) * q)
    return {
        'wind_u_ms': u,
        'wind_v_ms': v,
        'wind_speed_ms': math.sqrt(u * u + v * v),
        'wind_direction_deg': wind_direction(u, v),
        'temperature_k': t,
        'pressure_pa': p,
        'specific_humidity_kg_kg': q,
        'relative_humidity_pct': 100.0 * e / e_sat_liquid_murphy_koop(t),
        'density_kg_m3': p / (R_D * t * (1.0 + (1.0 / EPS - 1.0) * q)),
    }


# --- data: one (run, step) unit ---------------------------------------------------------------------------------

class Column:
    """A §4 column at one grid point: levels sorted by geometric height, q formed per level."""

    def __init__(self, terrain, levels):
        self.terrain = terrain
        levels = sorted(levels, key=lambda lv: lv['z'])  # stable: equal heights keep file order
        self.z = [lv['z'] for lv in levels]
        self.levels = levels

    def at(self, z, clamp):
        """Values at height z: (values dict with lnp, clamped) or (None, False) when outside and not clamping."""
        zs = self.z
        clamped = False
        if z < zs[0] or z > zs[-1]:
            if not clamp:
                return None, False
            clamped = True
            z = zs[0] if z < zs[0] else zs[-1]
        k = bisect.bisect_right(zs, z) - 1      # z_k <= z < z_{k+1}, or k is the top level
        lo = self.levels[k]
        if zs[k] == z:
            # Exactly on a level: that level's own values, its own pressure.
            return {'u': lo['u'], 'v': lo['v'], 't': lo['t'], 'q': lo['q'], 'p': lo['p'],
                    'lnp': math.log(lo['p'])}, clamped
        hi = self.levels[k + 1]
        a = (z - zs[k]) / (zs[k + 1] - zs[k])
        out = {key: lo[key] + a * (hi[key] - lo[key]) for key in ('u', 'v', 't', 'q')}
        lnp_lo, lnp_hi = math.log(lo['p']), math.log(hi['p'])
        out['lnp'] = lnp_lo + a * (lnp_hi - lnp_lo)
        out['p'] = math.exp(out['lnp'])
        return out, clamped


class Unit:
    """One (run, step) file of the catalog; decoded lazily, columns built lazily per grid point."""

    def __init__(self, run_ms, step_h, path):
        self.run_ms = run_ms
        self.step_h = step_h
        self.valid_ms = run_ms + step_h * HOUR_MS
        self.path = path
        self._loaded = False
        self._columns = {}

    def describe(self):
        return {'model_run_at': format_time_ms(self.run_ms), 'forecast_hour': self.step_h,
                'valid_time': format_time_ms(self.valid_ms)}

    def load(self):
        if self._loaded:
            return
        grid = None
        index = None      # message value position -> (j, i) counted from the south and west edges
        surface = None
        fields = {}       # (key, pressure Pa) -> 2-D array; the first occurrence wins (§4)
        level_order = []  # pressures in order of first appearance
        with open(self.path, 'rb') as fh:
            while True:
                h = eccodes.codes_grib_new_from_file(fh)
                if h is None:
                    break
                try:
                    code = (eccodes.codes_get_long(h, 'discipline'),
                            eccodes.codes_get_long(h, 'parameterCategory'),
                            eccodes.codes_get_long(h, 'parameterNumber'))
                    first = eccodes.codes_get_long(h, 'typeOfFirstFixedSurface')
                    second = eccodes.codes_get_long(h, 'typeOfSecondFixedSurface')
                    pdt = eccodes.codes_get_long(h, 'productDefinitionTemplateNumber')
                    wanted = pdt == 0 and second == MISSING_SURFACE and (
                        (first == SURFACE and code == SURFACE_HGT) or
                        (first == ISOBARIC and code in ISOBARIC_PARAMS))
                    if not wanted:
                        continue
                    g = self._grid_facts(h)
                    if grid is None:
                        grid = g
                        index = self._index(h, grid)
                    elif g != grid:
                        raise SystemExit(f'{self.path}: grid differs between messages')
                    values = self._values(h, grid, index)
                    if first == SURFACE:
                        if surface is None:
                            surface = values
                        continue
                    scale = eccodes.codes_get_long(h, 'scaleFactorOfFirstFixedSurface')
                    scaled = eccodes.codes_get_long(h, 'scaledValueOfFirstFixedSurface')
                    pa = scaled / 10 ** scale
                    key = (ISOBARIC_PARAMS[code], pa)
                    if pa not in level_order:
                        level_order.append(pa)
                    if key not in fields:
                        fields[key] = values
                finally:
                    eccodes.codes_release(h)
        if grid is None:
            raise SystemExit(f'{self.path}: no usable message')
        self.grid = grid
        self.surface = surface
        self.fields = fields
        self.pressures = level_order
        # SPFH where the file has it (current GFS), else q from RH (GFS v15): decided per unit.
        self.has_spfh = any(k == 'spfh' for k, _ in fields)
        self._loaded = True

    @staticmethod
    def _grid_facts(h):
        if eccodes.codes_get_string(h, 'gridType') != 'regular_ll':
            raise SystemExit('only regular_ll grids are handled')
        lat_first = eccodes.codes_get_double(h, 'latitudeOfFirstGridPointInDegrees')
        lat_last = eccodes.codes_get_double(h, 'latitudeOfLastGridPointInDegrees')
        ni = eccodes.codes_get_long(h, 'Ni')
        dlon = eccodes.codes_get_double(h, 'iDirectionIncrementInDegrees')
        return {
            'south': min(lat_first, lat_last),
            'west': eccodes.codes_get_double(h, 'longitudeOfFirstGridPointInDegrees'),
            'dlat': eccodes.codes_get_double(h, 'jDirectionIncrementInDegrees'),
            'dlon': dlon,
            'ni': ni,
            'nj': eccodes.codes_get_long(h, 'Nj'),
            'global': round(360 / dlon) == ni,
        }

    @staticmethod
    def _index(h, grid):
        """Row/column of every value from ecCodes' own coordinates, so any scanning mode is handled."""
        lats = eccodes.codes_get_double_array(h, 'latitudes')
        lons = eccodes.codes_get_double_array(h, 'longitudes')
        j = np.rint((lats - grid['south']) / grid['dlat']).astype(int)
        i = np.rint(((lons - grid['west']) % 360) / grid['dlon']).astype(int) % (
            grid['ni'] if grid['global'] else 1 << 30)
        assert j.min() >= 0 and j.max() < grid['nj'] and i.min() >= 0 and i.max() < grid['ni']
        assert len(set(zip(j.tolist(), i.tolist()))) == grid['ni'] * grid['nj']
        return j, i

    @staticmethod
    def _values(h, grid, index):
        values = eccodes.codes_get_double_array(h, 'values')
        if DECODED_AS_FLOAT32:
            values = values.astype(np.float32).astype(np.float64)
        if eccodes.codes_get_long(h, 'bitmapPresent'):
            bitmap = eccodes.codes_get_long_array(h, 'bitmap')
            values = np.where(np.asarray(bitmap) == 0, np.nan, values)
        out = np.full((grid['nj'], grid['ni']), np.nan)
        out[index[0], index[1]] = values
        return out

    def terrain(self, j, i):
        """Model terrain (geometric height of surface HGT) at a grid point; None when absent or not finite."""
        self.load()
        if self.surface is None:
            return None
        h = float(self.surface[j, i])
        if not math.isfinite(h):
            return None
        return geometric_height(h)

    def column(self, j, i):
        """The §4 column at (j, i), or None when unusable (no finite terrain or no level)."""
        key = (j, i)
        if key in self._columns:
            return self._columns[key]
        self.load()
        terrain = self.terrain(j, i)
        col = None
        if terrain is not None:
            levels = []
            for pa in self.pressures:
                vals = {}
                for name in ('hgt', 'tmp', 'ugrd', 'vgrd', 'spfh' if self.has_spfh else 'rh'):
                    arr = self.fields.get((name, pa))
                    vals[name] = float(arr[j, i]) if arr is not None else math.nan
                if not all(math.isfinite(x) for x in vals.values()):
                    continue
                z = geometric_height(vals['hgt'])
                if z < terrain:   # strictly below the model terrain: dropped; on it: kept
                    continue
                t = vals['tmp']
                q = vals['spfh'] if self.has_spfh else q_from_rh(vals['rh'], t, pa)
                levels.append({'z': z, 'p': pa, 'u': vals['ugrd'], 'v': vals['vgrd'], 't': t, 'q': q})
            if levels:
                col = Column(terrain, levels)
        self._columns[key] = col
        return col


class Catalog:
    """The set of (run, step) files in a mirror directory laid out as the noaa-gfs-bdp-pds bucket."""

    def __init__(self, root):
        self.units = []
        for day in sorted(os.listdir(root)):
            dm = DIR_RE.match(day)
            if not dm:
                continue
            for cycle in sorted(os.listdir(os.path.join(root, day))):
                atmos = os.path.join(root, day, cycle, 'atmos')
                if not os.path.isdir(atmos):
                    continue
                for name in sorted(os.listdir(atmos)):
                    fm = FILE_RE.match(name)
                    if not fm or fm.group(1) != cycle:
                        continue
                    run_s = calendar.timegm((int(dm.group(1)), int(dm.group(2)), int(dm.group(3)),
                                             int(cycle), 0, 0, 0, 0, 0))
                    self.units.append(Unit(run_s * 1000, int(fm.group(2)), os.path.join(atmos, name)))
        self.units.sort(key=lambda u: (u.run_ms, u.step_h))
        self.by_valid = {}
        for u in self.units:
            self.by_valid.setdefault(u.valid_ms, []).append(u)
        self.runs = {}
        for u in self.units:
            self.runs.setdefault(u.run_ms, []).append(u)   # already sorted by step

    def newest_for_valid(self, v):
        return max(self.by_valid[v], key=lambda u: u.run_ms)

    def nearest(self, t_ms, max_offset_ms):
        """§3: nearest valid time (tie -> later), newest run for it, if within the offset (inclusive)."""
        best = None
        for v in self.by_valid:
            d = abs(v - t_ms)
            if best is None or d < best[0] or (d == best[0] and v > best[1]):
                best = (d, v)
        if best is None or best[0] > max_offset_ms:
            return None
        return self.newest_for_valid(best[1])

    def choose_linear(self, t_ms, max_offset_ms):
        """§6 linear time choice -> (unit_before, unit_after, time_weight) or None (outside in time)."""
        if t_ms in self.by_valid:
            u = self.newest_for_valid(t_ms)
            return u, u, 0.0
        for run_ms in sorted(self.runs, reverse=True):
            steps = self.runs[run_ms]
            for a, b in zip(steps, steps[1:]):
                if a.valid_ms < t_ms < b.valid_ms and b.valid_ms - a.valid_ms <= 2 * max_offset_ms:
                    return a, b, (t_ms - a.valid_ms) / (b.valid_ms - a.valid_ms)
        u = self.nearest(t_ms, max_offset_ms)
        if u is None:
            return None
        return u, u, 0.0


# --- sampling ---------------------------------------------------------------------------------------------------

def bilinear_corners(grid, lat, lon):
    """§6 stencil: [(j, i, weight)] for the corners with non-zero weight, or None if one is off the grid."""
    x = ((lon - grid['west']) % 360) / grid['dlon']
    y = (lat - grid['south']) / grid['dlat']
    i = math.floor(x)
    j = math.floor(y)
    fx = x - i
    fy = y - j
    stencil = [(j, i, (1 - fx) * (1 - fy)), (j, i + 1, fx * (1 - fy)),
               (j + 1, i, (1 - fx) * fy), (j + 1, i + 1, fx * fy)]
    out = []
    for cj, ci, w in stencil:
        if w == 0:
            continue          # a corner without weight is never read
        if grid['global']:
            ci %= grid['ni']
        if not (0 <= cj < grid['nj'] and 0 <= ci < grid['ni']):
            return None
        out.append((cj, ci, w))
    return out


def nearest_point(grid, lat, lon):
    """§3 index rounding from the southern and western edges; None off a regional grid."""
    j = math.floor((lat - grid['south']) / grid['dlat'] + 0.5)
    i = math.floor(((lon - grid['west']) % 360) / grid['dlon'] + 0.5)
    if grid['global']:
        i %= grid['ni']
    if not (0 <= j < grid['nj'] and 0 <= i < grid['ni']):
        return None
    return j, i


class Sampler:
    def __init__(self, catalog, max_offset_hours=3.0):
        self.catalog = catalog
        self.max_offset_ms = max_offset_hours * HOUR_MS

    def column(self, unit, j, i):
        """The column at grid point (j, i) of a unit (a subclass may build columns its own way)."""
        return unit.column(j, i)

    @staticmethod
    def derive(u, v, t, p, q):
        """The answer's level fields from the blended u, v, T, p, q."""
        return derived(u, v, t, p, q)

    def weighted_columns(self, lat, lon, t_ms, interpolation='linear'):
        """The (weight, column) list for a point in time and place.

        Returns (status, choice, items): status None when every weighted column is usable; choice is
        (unit_before, unit_after, time_weight) or None when outside in time; items [(w, column, unit, j, i)].
        """
        if interpolation == 'nearest':
            u = self.catalog.nearest(t_ms, self.max_offset_ms)
            if u is None:
                return 'outside_source_coverage', None, []
            choice = (u, u, 0.0)
            u.load()
            point = nearest_point(u.grid, lat, lon)
            if point is None:
                return 'outside_source_coverage', choice, []
            plan = [(u, [(point[0], point[1], 1.0)], 1.0)]
        else:
            choice = self.catalog.choose_linear(t_ms, self.max_offset_ms)
            if choice is None:
                return 'outside_source_coverage', None, []
            before, after, tw = choice
            slots = [(before, 1.0)] if before is after else [(before, 1.0 - tw), (after, tw)]
            plan = []
            for unit, wt in slots:
                unit.load()
                corners = bilinear_corners(unit.grid, lat, lon)
                if corners is None:
                    return 'outside_source_coverage', choice, []
                plan.append((unit, corners, wt))
        items = []
        unusable = False
        for unit, corners, wt in plan:
            for j, i, ws in corners:
                col = self.column(unit, j, i)
                if col is None:
                    unusable = True
                items.append((ws * wt, col, unit, j, i))
        return ('unusable_source_column' if unusable else None), choice, items

    def terrain(self, lat, lon, t_ms):
        """Model terrain blended with the linear weights (rule 6); (status, value)."""
        status, _, items = self.weighted_columns(lat, lon, t_ms)
        if status is not None:
            return status, None
        return None, sum(w * col.terrain for w, col, _, _, _ in items)

    def sample(self, lat, lon, alt, t_ms, reference='msl', ground=None, interpolation='linear', clamp=False):
        """One point. Returns a dict: status, choice, values (or None), z_msl, ground, clamped."""
        status, choice, items = self.weighted_columns(lat, lon, t_ms, interpolation)
        res = {'status': status, 'choice': choice, 'values': None, 'z_msl': None, 'ground': None, 'clamped': False}
        if status is not None:
            return res
        if ground is None:
            ground = sum(w * col.terrain for w, col, _, _, _ in items)
        z = alt + ground if reference == 'agl' else alt
        acc = {'u': 0.0, 'v': 0.0, 't': 0.0, 'q': 0.0, 'lnp': 0.0}
        clamped = False
        at_list = []
        for w, col, _, _, _ in items:
            vals, c = col.at(z, clamp)
            if vals is None:
                res['status'] = 'outside_vertical_range'
                return res
            clamped = clamped or c
            at_list.append((w, vals))
        if len(at_list) == 1 and at_list[0][0] == 1.0:
            # A single column (nearest, or a point on a grid point at a valid time): its own pressure.
            vals = at_list[0][1]
            u, v, t, q, p = vals['u'], vals['v'], vals['t'], vals['q'], vals['p']
        else:
            for w, vals in at_list:
                for key in acc:
                    acc[key] += w * vals[key]
            u, v, t, q, p = acc['u'], acc['v'], acc['t'], acc['q'], math.exp(acc['lnp'])
        res.update(status='ok', values=self.derive(u, v, t, p, q), z_msl=z, ground=ground, clamped=clamped)
        return res


# --- the request ------------------------------------------------------------------------------------------------

def per_point(value, n, name):
    if isinstance(value, list):
        if len(value) != n:
            raise RequestError(f'{name} has {len(value)} items, expected {n}')
        return value
    return [value] * n


def answer(request, sampler, fields=None, value=lambda x: x, describe=lambda u: u.describe()):
    """The §6 answer {count, units, columns}; a variant sampler may bring its own fields, value writer and unit line."""
    lats, lons, alts = request['latitude'], request['longitude'], request['altitude_m']
    n = len(lats)
    if len(lons) != n or len(alts) != n:
        raise RequestError('latitude, longitude and altitude_m differ in length')
    times = [parse_time_ms(t) for t in per_point(request['time'], n, 'time')]
    grounds = per_point(request.get('ground_elevation_m_msl'), n, 'ground_elevation_m_msl')
    reference = request['altitude_reference']
    interpolation = request.get('interpolation') or 'linear'
    clamp = request.get('out_of_column') == 'nearest_level'
    results = [sampler.sample(float(lats[k]), float(lons[k]), float(alts[k]), times[k], reference,
                              None if grounds[k] is None else float(grounds[k]), interpolation, clamp)
               for k in range(n)]
    # a point outside the coverage (in time or place) reads no unit: it names none and lists none
    for r in results:
        if r['status'] == 'outside_source_coverage':
            r['choice'] = None
    used = {}
    for r in results:
        if r['choice'] is not None:
            for u in r['choice'][:2]:
                used[id(u)] = u
    units = sorted(used.values(), key=lambda u: (u.run_ms, u.step_h))
    pos = {id(u): k for k, u in enumerate(units)}
    columns = {'status': [r['status'] for r in results]}
    for f in fields or FIELDS:
        columns[f] = [value(r['values'][f]) if r['status'] == 'ok' else None for r in results]
    columns['altitude_msl_m'] = [r['z_msl'] if r['status'] == 'ok' else None for r in results]
    columns['ground_elevation_m_msl'] = [r['ground'] if r['status'] == 'ok' else None for r in results]
    columns['unit_before'] = [pos[id(r['choice'][0])] if r['choice'] else None for r in results]
    columns['unit_after'] = [pos[id(r['choice'][1])] if r['choice'] else None for r in results]
    columns['time_weight'] = [r['choice'][2] if r['choice'] else None for r in results]
    return {'count': n, 'units': [describe(u) for u in units], 'columns': columns}


# --- self-check against the golden profiles ---------------------------------------------------------------------

def check_golden(sampler, profiles_dir, data_dir):
    """`nearest` must reproduce test/fixtures/profiles/cases.json for the cases whose file is a data unit."""
    with open(os.path.join(profiles_dir, 'cases.json')) as fh:
        cases = json.load(fh)
    worst = 0.0
    checked = 0
    for case in cases:
        run_ms = parse_time_ms(case['run'])
        unit = next((u for u in sampler.catalog.units
                     if u.run_ms == run_ms and u.step_h == case['forecast_hour']), None)
        if unit is None:
            print(f'{case["name"]}: unit not in {data_dir}, skipped')
            continue
        req = case['request']
        exp = case['expected']
        t_ms = parse_time_ms(req['time'])
        chosen = sampler.catalog.nearest(t_ms, sampler.max_offset_ms)
        assert chosen is unit, (case['name'], chosen.path)
        unit.load()
        j, i = nearest_point(unit.grid, req['latitude'], req['longitude'])
        assert abs(unit.grid['south'] + j * unit.grid['dlat'] - exp['sampled_latitude']) < 1e-9
        col = unit.column(j, i)
        ground = req.get('ground_elevation_m_msl')
        rel = lambda a, b: abs(a - b) / max(abs(b), 1e-300)  # noqa: E731
        worst = max(worst, rel(col.terrain, exp['model_ground_elevation_m_msl']),
                    rel(col.z[0], exp['coverage']['minimum_msl_m']), rel(col.z[-1], exp['coverage']['maximum_msl_m']))
        outside = 0
        for k, alt in enumerate(req['altitudes_m']):
            r = sampler.sample(req['latitude'], req['longitude'], alt, t_ms, req['altitude_reference'],
                               ground, 'nearest', False)
            if 'error' in exp:
                outside += r['status'] == 'outside_vertical_range'
                continue
            lv = exp['levels'][k]
            assert r['status'] == 'ok', (case['name'], r['status'])
            worst = max(worst, rel(r['z_msl'], lv['altitude_msl_m']))
            for f in FIELDS:
                worst = max(worst, rel(r['values'][f], lv[f]))
            checked += 1
        if 'error' in exp:
            assert outside > 0, case['name']
            print(f'{case["name"]}: {outside} height(s) outside_vertical_range as expected')
    print(f'golden: {checked} levels checked, worst relative difference {worst:.3e}')
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--data', required=True)
    ap.add_argument('--max-time-offset-hours', type=float, default=3.0)
    ap.add_argument('--check-golden', metavar='PROFILES_DIR')
    ap.add_argument('--decoded', choices=('float32', 'float64'), default='float32',
                    help='precision decoded GRIB values are kept in (default float32, as the engine)')
    args = ap.parse_args()
    global DECODED_AS_FLOAT32
    DECODED_AS_FLOAT32 = args.decoded == 'float32'
    sampler = Sampler(Catalog(args.data), args.max_time_offset_hours)
    if args.check_golden:
        worst = check_golden(sampler, args.check_golden, args.data)
        # Golden numbers come from ecCodes doubles: 1e-9 holds with --decoded float64; float32 storage
        # moves them by up to about 1e-6 relative (the golden README's own tolerance is 1e-5).
        sys.exit(0 if worst < (1e-9 if not DECODED_AS_FLOAT32 else 1e-5) else 1)
    request = json.load(sys.stdin)
    try:
        out = answer(request, sampler)
    except RequestError as err:   # a whole-request error (400 in the service): say so, no partial answer
        json.dump({'error': 'invalid_request', 'detail': str(err)}, sys.stdout)
        sys.stdout.write('\n')
        sys.exit(2)
    sys.stdout.write(json.dumps(out, allow_nan=False) + '\n')


if __name__ == '__main__':
    main()
