#!/usr/bin/python3
"""Independent reference for aloft's profile WITH the surface layer (docs/DESIGN.md §8 on top of §3 and §4).

Run from the repository root (needs Debian python3-eccodes and numpy; no network):

    /usr/bin/python3 scripts/surface-reference.py --grib FILE < request.json > expected.json
    /usr/bin/python3 scripts/surface-reference.py --grib FILE --request '{"latitude": 52, ...}'
    /usr/bin/python3 scripts/surface-reference.py --grib FILE --nodes --request '{...}'   # raw nodes, for debugging
    /usr/bin/python3 scripts/surface-reference.py --check-plain test/fixtures/profiles     # §4 self-check
    /usr/bin/python3 scripts/surface-reference.py --packing FILE...   # each §8 field's packing step, used or not

The request is the profile body's physics part: latitude, longitude, altitudes_m, altitude_reference (agl | msl),
optional ground_elevation_m_msl, and surface_layer (true for §8; absent or false gives the plain §4 column, exactly
as the service defaults). `time` is ignored: FILE is the (run, step) unit the nearest-time rule picked. The answer
is the `expected` object of test/fixtures/profiles/cases*.json: sampled_latitude, sampled_longitude,
model_ground_elevation_m_msl, ground_elevation_m_msl, surface_layer (only when asked: "gfs_height_above_ground" or
"unavailable"), surface_layer_nodes (only when the layer is joined), coverage, and either `levels` (request order,
every AtmosphereLevel field) or `error: "outside_vertical_range"`. `--check-plain` runs the plain §4 path on
cases.json and cases-spfh.json (their files relative to test/fixtures/grib/) and compares with their numbers.

Written apart from the TypeScript engine, from docs/DESIGN.md §3, §4 and §8 only; it reads nothing under src/ and
imports no other script. Fields are matched on GRIB codes (discipline, category, number, type of first fixed
surface, level; product template 0, no second surface), never on ecCodes short names; the first occurrence of a
field wins. Decoded values are rounded to float32 (the engine stores Float32Array); all later arithmetic is float64.
One grid point at a time, in the most literal way.

Decisions where §8 leaves room (also written in test/fixtures/profiles/README-surface.md):
- Precision rule (§8): a field is a node only when its packing step is at most its variable's tolerance
  (`packing_step`, `TOLERANCE`, `fine`): step = 2.0 ** E / 10.0 ** D in float64 from section 5 (E
  binaryScaleFactor, D decimalScaleFactor), 0 for IEEE packing (template 5.4); tolerances u, v 0.1 m/s, T 0.1 K,
  q 1e-5 kg/kg, RH 0.5 %, p 10 Pa. A coarser field counts as missing, also for the minimum below (GFS's whole-kelvin
  TMP at 80 and 100 m drops out: T runs from 2 m straight to the kept levels).
- A node exists when its field is present, finite at the grid point and fine. A wind node at h needs BOTH UGRD
  and VGRD at h (else both are left out at h); u and v are then interpolated separately.
- `surface_layer_nodes` (provenance, when the layer is joined): the heights each variable uses, judged per unit
  from the fields the file holds and the rule (`unit_nodes`); "specific_humidity" lists the SPFH heights and 2
  when q at 2 m comes from RH. In every file here it equals the grid point's own nodes (`node_heights`).
- h_top is the highest node used at the point by any variable (u, v, T, q, ln p; ln p's 0 m counts);
  pressure levels of §4's column are kept only when z > g_m + h_top (strictly; a level at or below is dropped).
- The minimum (surface PRES, TMP 2 m, SPFH or RH 2 m, UGRD and VGRD 10 m, and a finite surface HGT) is judged at
  the grid point after the rule; without it the answer is §4's column with surface_layer "unavailable".
- q at 2 m: SPFH 2 m when finite and fine, else RH 2 m (finite and fine) by §4's NCEP inversion with T = TMP 2 m and
  p at 2 m taken from the ln p interpolant (nodes 0 m, 80 m when present, then the kept pressure levels).
- Heights: z = ground + alt for agl (ground = caller's or model's), alt for msl; z < g_m (below the model
  terrain) or z above the top level is outside. Coverage minimum_msl_m = g_m, maximum the top level;
  the AGL pair is both minus the ground used. altitude_agl_m = z - ground.
- Wind below the 10 m node: u10·(h/10)^(1/7), h = z - g_m; at 10 m and above: linear in z over the wind nodes
  then the kept levels. T and q below their lowest (2 m) node hold its value. Exactly on a node: its own values
  (its own pressure, not exp(ln p)).
"""
import argparse
import bisect
import json
import math
import os
import sys

import eccodes
import numpy as np

# --- §4 constants -----------------------------------------------------------------------------------------------
R_GEOPOTENTIAL = 6371229.0
EPS = 0.6219569
R_D = 287.04749
EPS_NCEP = 287.05 / 461.50
T_TRIPLE = 273.16
C_V, C_L, C_I, R_V = 1846.0, 4185.5, 2106.0, 461.5
L_V, L_F = 2.5e6, 3.3358e5

ISOBARIC, SURFACE, ABOVE_GROUND, NO_SURFACE = 100, 1, 103, 255
HGT, TMP, UGRD, VGRD, SPFH, RH, PRES = (0, 3, 5), (0, 0, 0), (0, 2, 2), (0, 2, 3), (0, 1, 0), (0, 1, 1), (0, 3, 0)
ISOBARIC_CODES = {HGT: 'hgt', TMP: 'tmp', UGRD: 'ugrd', VGRD: 'vgrd', SPFH: 'spfh', RH: 'rh'}
SURFACE_CODES = {HGT: 'hgt', PRES: 'pres'}
ABOVE_GROUND_CODES = {UGRD: 'ugrd', VGRD: 'vgrd', TMP: 'tmp', SPFH: 'spfh', RH: 'rh', PRES: 'pres'}

# §8's node heights per variable (m above the model terrain) and the field each comes from.
WIND_HEIGHTS = (10.0, 20.0, 30.0, 40.0, 50.0, 80.0, 100.0)
T_HEIGHTS = (2.0, 80.0, 100.0)
Q_HEIGHTS = (2.0, 80.0)
P_HEIGHT = 80.0
POWER = 1.0 / 7.0

# The precision rule: a surface-layer field is a node only when its packing step is at most these (its units).
TOLERANCE = {'ugrd': 0.1, 'vgrd': 0.1, 'tmp': 0.1, 'spfh': 1e-5, 'rh': 0.5, 'pres': 10.0}
IEEE_TEMPLATE = 4
# Provenance keys, in this order.
NODE_KEYS = ('wind', 'temperature', 'specific_humidity', 'pressure')

FIELDS = ['wind_u_ms', 'wind_v_ms', 'wind_speed_ms', 'wind_direction_deg', 'temperature_k', 'pressure_pa',
          'specific_humidity_kg_kg', 'relative_humidity_pct', 'density_kg_m3']

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --- §4 physics -------------------------------------------------------------------------------------------------

def geometric(h):
    return R_GEOPOTENTIAL * h / (R_GEOPOTENTIAL - h)


def fpvs_ncep(t):
    """UPP FPVSNEW, formula evaluated directly."""
    def branch(c, latent):
        a = -(C_V - c) / R_V
        b = a + latent / (R_V * T_TRIPLE)
        x = T_TRIPLE / t
        return 610.78 * x ** a * math.exp(b * (1.0 - x))
    liquid = branch(C_L, L_V)
    ice = branch(C_I, L_V + L_F)
    if t >= 273.16:
        return liquid
    if t < 253.16:
        return ice
    w = (t - 253.16) / 20.0
    return w * liquid + (1.0 - w) * ice


def q_ncep(rh, t, p):
    e = min(fpvs_ncep(t), p)
    return rh / 100.0 * (EPS_NCEP * e / (p - (1.0 - EPS_NCEP) * e))


def es_murphy_koop(t):
    lt = math.log(t)
    return math.exp(54.842763 - 6763.22 / t - 4.210 * lt + 0.000367 * t
                    + math.tanh(0.0415 * (t - 218.8)) * (53.878 - 1331.22 / t - 9.44523 * lt + 0.014025 * t))


def level_fields(u, v, t, p, q):
    speed = math.sqrt(u * u + v * v)
    if speed == 0.0:
        direction = 0.0
    else:
        direction = math.degrees(math.atan2(-u, -v))
        if direction < 0.0:
            direction += 360.0
        if direction >= 360.0:
            direction = 0.0
    e = q * p / (EPS + (1.0 - EPS) * q)
    return {
        'wind_u_ms': u, 'wind_v_ms': v, 'wind_speed_ms': speed, 'wind_direction_deg': direction,
        'temperature_k': t, 'pressure_pa': p, 'specific_humidity_kg_kg': q,
        'relative_humidity_pct': 100.0 * e / es_murphy_koop(t),
        'density_kg_m3': p / (R_D * t * (1.0 + (1.0 / EPS - 1.0) * q)),
    }


# --- GRIB: every wanted field's value at one grid point ---------------------------------------------------------

def _grid(h):
    if eccodes.codes_get_string(h, 'gridType') != 'regular_ll':
        raise SystemExit('only regular_ll grids are handled')
    a = eccodes.codes_get_double(h, 'latitudeOfFirstGridPointInDegrees')
    b = eccodes.codes_get_double(h, 'latitudeOfLastGridPointInDegrees')
    return (min(a, b), eccodes.codes_get_double(h, 'longitudeOfFirstGridPointInDegrees'),
            eccodes.codes_get_double(h, 'jDirectionIncrementInDegrees'),
            eccodes.codes_get_double(h, 'iDirectionIncrementInDegrees'),
            eccodes.codes_get_long(h, 'Ni'), eccodes.codes_get_long(h, 'Nj'))


def _point(grid, lat, lon):
    """§3: j, i by index rounding from the south and west edges; sampled coordinates."""
    south, west, dlat, dlon, ni, nj = grid
    j = math.floor((lat - south) / dlat + 0.5)
    i = math.floor(((lon - west) % 360.0) / dlon + 0.5)
    if round(360.0 / dlon) == ni:
        i %= ni
    if not (0 <= j < nj and 0 <= i < ni):
        raise SystemExit(f'point {lat},{lon} is outside the grid (j={j}, i={i}): outside_source_coverage')
    slat = south + j * dlat
    slon = (west + i * dlon) % 360.0
    if slon > 180.0:
        slon -= 360.0
    return j, i, slat, slon


def _value(h, slat, slon):
    """The value at the sampled point, found through ecCodes' own coordinates (any scanning mode); float32."""
    lats = eccodes.codes_get_double_array(h, 'latitudes')
    lons = eccodes.codes_get_double_array(h, 'longitudes')
    lons = np.where(lons > 180.0, lons - 360.0, lons)
    dlon = np.abs(lons - slon)
    dlon = np.minimum(dlon, 360.0 - dlon)
    hit = np.nonzero((np.abs(lats - slat) < 1e-6) & (dlon < 1e-6))[0]
    if len(hit) != 1:
        raise SystemExit(f'grid point {slat},{slon} found {len(hit)} times')
    k = int(hit[0])
    if eccodes.codes_get_long(h, 'bitmapPresent'):
        if eccodes.codes_get_long_array(h, 'bitmap')[k] == 0:
            return None
    v = float(eccodes.codes_get_double_array(h, 'values')[k])
    if not math.isfinite(v):
        return None
    return float(np.float32(v))


def packing_step(h):
    """The field's packing step from section 5: 2^E / 10^D (float64, exactly so); 0 for IEEE packing (5.4)."""
    if eccodes.codes_get_long(h, 'dataRepresentationTemplateNumber') == IEEE_TEMPLATE:
        return 0.0
    e = eccodes.codes_get_long(h, 'binaryScaleFactor')
    d = eccodes.codes_get_long(h, 'decimalScaleFactor')
    return 2.0 ** e / 10.0 ** d


def matched_fields(path):
    """Each message of a file a §4/§8 column can use, in file order, as (handle, code, kind, key): kind 'surface'
    (key: name), 'above_ground' (key: (name, metres)) or 'isobaric' (key: (pa, name)). Matched on GRIB codes, product
    template 0 and one fixed surface; each handle is released once the next one is asked for."""
    with open(path, 'rb') as fh:
        while True:
            h = eccodes.codes_grib_new_from_file(fh)
            if h is None:
                return
            try:
                code = (eccodes.codes_get_long(h, 'discipline'), eccodes.codes_get_long(h, 'parameterCategory'),
                        eccodes.codes_get_long(h, 'parameterNumber'))
                first = eccodes.codes_get_long(h, 'typeOfFirstFixedSurface')
                if (eccodes.codes_get_long(h, 'productDefinitionTemplateNumber') != 0
                        or eccodes.codes_get_long(h, 'typeOfSecondFixedSurface') != NO_SURFACE):
                    continue
                if first == SURFACE and code in SURFACE_CODES:
                    yield h, code, 'surface', SURFACE_CODES[code]
                elif first in (ABOVE_GROUND, ISOBARIC):
                    value = (eccodes.codes_get_long(h, 'scaledValueOfFirstFixedSurface')
                             / 10 ** eccodes.codes_get_long(h, 'scaleFactorOfFirstFixedSurface'))
                    if first == ABOVE_GROUND and code in ABOVE_GROUND_CODES:
                        yield h, code, 'above_ground', (ABOVE_GROUND_CODES[code], float(value))
                    elif first == ISOBARIC and code in ISOBARIC_CODES:
                        yield h, code, 'isobaric', (float(value), ISOBARIC_CODES[code])
            finally:
                eccodes.codes_release(h)


class FieldTables:
    """Where each matched field's value (and packing step) is kept: by name at the surface, by (name, metres) above
    ground, by level then name on isobaric levels (levels in first-seen order)."""

    def __init__(self):
        self.surface, self.above, self.iso, self.order = {}, {}, {}, []
        self.surface_step, self.above_step = {}, {}

    def slot(self, kind, key):
        """(table, key within it, step table or None) for a field matched_fields gave."""
        if kind == 'isobaric':
            pa, name = key
            if pa not in self.iso:
                self.iso[pa] = {}
                self.order.append(pa)
            return self.iso[pa], name, None
        if kind == 'surface':
            return self.surface, key, self.surface_step
        return self.above, key, self.above_step


def read_point(path, lat, lon):
    """All fields the profile can use, at the §3 grid point of (lat, lon).

    Returns {'sampled': (lat, lon), 'surface': {name: v}, 'above_ground': {(name, m): v},
             'isobaric': {pa: {name: v}}, 'isobaric_order': [pa in first-seen order], 'has_spfh': bool,
             'surface_step': {name: step}, 'above_ground_step': {(name, m): step}}.
    A value is None when the bitmap marks it missing or it is not finite. First occurrence wins (its value and its
    packing step). The steps' keys are the surface / above-ground fields the file holds.
    """
    grid = point = None
    tables = FieldTables()
    for h, _code, kind, key in matched_fields(path):
        table, key, step_table = tables.slot(kind, key)
        g = _grid(h)
        if grid is None:
            grid = g
            point = _point(grid, lat, lon)
        elif g != grid:
            raise SystemExit(f'{path}: the grid differs between messages')
        if key not in table:          # the first occurrence wins
            table[key] = _value(h, point[2], point[3])
            if step_table is not None:
                step_table[key] = packing_step(h)
    if grid is None:
        raise SystemExit(f'{path}: no usable message')
    has_spfh = any('spfh' in lv for lv in tables.iso.values())
    return {'sampled': (point[2], point[3]), 'surface': tables.surface, 'above_ground': tables.above,
            'isobaric': tables.iso, 'isobaric_order': tables.order, 'has_spfh': has_spfh,
            'surface_step': tables.surface_step, 'above_ground_step': tables.above_step}


# --- §4 column and §8 nodes -------------------------------------------------------------------------------------

def plain_column(pt, terrain):
    """§4: levels with HGT, TMP, UGRD, VGRD and SPFH (or RH) all finite, not strictly below the terrain, by z."""
    hum = 'spfh' if pt['has_spfh'] else 'rh'
    levels = []
    for pa in pt['isobaric_order']:
        lv = pt['isobaric'][pa]
        vals = [lv.get(k) for k in ('hgt', 'tmp', 'ugrd', 'vgrd', hum)]
        if any(x is None for x in vals):
            continue
        hgt, t, u, v, hv = vals
        z = geometric(hgt)
        if z < terrain:
            continue
        q = hv if hum == 'spfh' else q_ncep(hv, t, pa)
        levels.append({'z': z, 'u': u, 'v': v, 't': t, 'q': q, 'p': pa})
    levels.sort(key=lambda lv: lv['z'])      # stable
    return levels


class Profile:
    """One variable's nodes (z, value) in increasing z, evaluated piecewise linearly."""

    def __init__(self, nodes):
        self.z = [n[0] for n in nodes]
        self.val = [n[1] for n in nodes]
        assert all(a < b for a, b in zip(self.z, self.z[1:])), self.z

    def at(self, z):
        zs = self.z
        if z <= zs[0]:
            return self.val[0]               # hold below the lowest node (T, q under 2 m); exact on it
        if z >= zs[-1]:
            assert z == zs[-1]
            return self.val[-1]
        k = bisect.bisect_right(zs, z) - 1
        if zs[k] == z:
            return self.val[k]
        a = (z - zs[k]) / (zs[k + 1] - zs[k])
        return self.val[k] + a * (self.val[k + 1] - self.val[k])


def fine(name, step):
    """The precision rule: a field whose packing step exceeds its variable's tolerance is no node."""
    return step <= TOLERANCE[name]


def node_heights(has_surface, has_above):
    """§8 node heights per variable after the precision rule and the wind pair rule, or None without the minimum.

    has_surface(name) / has_above((name, h)) say whether a field may be a node (held, fine, and at a grid point
    also finite). Returns {'wind', 'temperature', 'spfh', 'q2_from_rh', 'pressure'}: lists of heights (m above g_m)
    and whether q at 2 m comes from RH 2 m.
    """
    wind = [h for h in WIND_HEIGHTS if has_above(('ugrd', h)) and has_above(('vgrd', h))]
    temperature = [h for h in T_HEIGHTS if has_above(('tmp', h))]
    spfh = [h for h in Q_HEIGHTS if has_above(('spfh', h))]
    q2_from_rh = 2.0 not in spfh and has_above(('rh', 2.0))
    pressure = [0.0] + ([P_HEIGHT] if has_above(('pres', P_HEIGHT)) else [])
    if (not has_surface('pres') or 2.0 not in temperature or not (2.0 in spfh or q2_from_rh)
            or 10.0 not in wind):
        return None
    return {'wind': wind, 'temperature': temperature, 'spfh': spfh, 'q2_from_rh': q2_from_rh,
            'pressure': pressure}


def unit_nodes(surface_step, above_step):
    """The unit's node heights (provenance): the fields its file holds, judged by the rule; None: no layer."""
    return node_heights(lambda name: name in surface_step and fine(name, surface_step[name]),
                        lambda key: key in above_step and fine(key[0], above_step[key]))


def provenance(heights):
    """`surface_layer_nodes`: {wind, temperature, specific_humidity, pressure}, ascending whole metres."""
    q = sorted(set(heights['spfh']) | ({2.0} if heights['q2_from_rh'] else set()))

    def metres(hs):
        out = []
        for h in hs:
            assert float(h).is_integer(), h
            out.append(int(h))
        return out
    return {'wind': metres(heights['wind']), 'temperature': metres(heights['temperature']),
            'specific_humidity': metres(q), 'pressure': metres(heights['pressure'])}


def surface_nodes(pt, g_m):
    """§8 nodes per variable (lists of (h, value)), or None when the minimum is missing at the point."""
    ag, ag_step = pt['above_ground'], pt['above_ground_step']
    sfc, sfc_step = pt['surface'], pt['surface_step']
    heights = node_heights(lambda name: sfc.get(name) is not None and fine(name, sfc_step[name]),
                           lambda key: ag.get(key) is not None and fine(key[0], ag_step[key]))
    if heights is None:
        return None
    p_nodes = [(0.0, sfc['pres'])] + [(h, ag[('pres', h)]) for h in heights['pressure'][1:]]
    nodes = {
        'u': [(h, ag[('ugrd', h)]) for h in heights['wind']],
        'v': [(h, ag[('vgrd', h)]) for h in heights['wind']],
        't': [(h, ag[('tmp', h)]) for h in heights['temperature']],
        'lnp': [(h, math.log(p)) for h, p in p_nodes],
        'p': p_nodes,
    }
    # q: 2 m from SPFH when usable, else from RH (resolved once the ln p profile exists); 80 m from SPFH only.
    q = [(h, ag[('spfh', h)]) for h in heights['spfh']]
    if heights['q2_from_rh']:
        q.insert(0, (2.0, ('rh', ag[('rh', 2.0)])))
    nodes['q'] = q
    nodes['heights'] = heights
    return nodes


def build(pt, request):
    """Everything needed to answer: terrain, ground, coverage, per-variable evaluators (or None)."""
    hgt_sfc = pt['surface'].get('hgt')
    if hgt_sfc is None:
        raise SystemExit('no finite surface HGT at the point: unusable_source_column')
    g_m = geometric(hgt_sfc)
    levels = plain_column(pt, g_m)
    if not levels:
        raise SystemExit('no pressure level at the point: unusable_source_column')
    want_layer = bool(request.get('surface_layer'))
    nodes = surface_nodes(pt, g_m) if want_layer else None
    state = {'g_m': g_m, 'want_layer': want_layer, 'layer': nodes is not None}
    if nodes is None:
        state['levels'] = levels
        state['bottom'] = levels[0]['z']
        state['top'] = levels[-1]['z']
        return state
    heights = nodes.pop('heights')
    h_top = max(h for var in nodes.values() for h, _ in var)
    kept = [lv for lv in levels if lv['z'] > g_m + h_top]
    state.update(levels=kept, h_top=h_top, bottom=g_m, top=kept[-1]['z'] if kept else g_m + h_top,
                 heights=heights)
    assert kept, 'no pressure level above the surface layer'

    def prof(key, var, conv=None):
        pts = [(g_m + h, val) for h, val in nodes[var]]
        pts += [(lv['z'], lv[key] if conv is None else conv(lv[key])) for lv in kept]
        return Profile(pts)

    state['lnp'] = prof('p', 'lnp', math.log)
    state['p_nodes'] = {g_m + h: val for h, val in nodes['p']}
    state['p_nodes'].update({lv['z']: lv['p'] for lv in kept})
    if isinstance(nodes['q'][0][1], tuple):
        t2 = nodes['t'][0][1]
        assert nodes['t'][0][0] == 2.0
        p2 = pressure(state, g_m + 2.0)
        rh2 = nodes['q'][0][1][1]
        nodes['q'][0] = (2.0, q_ncep(rh2, t2, p2))
        state['q2_from_rh'] = {'rh_pct': rh2, 't_k': t2, 'p_pa': p2, 'q': nodes['q'][0][1]}
    state['u'] = prof('u', 'u')
    state['v'] = prof('v', 'v')
    state['t'] = prof('t', 't')
    state['q'] = prof('q', 'q')
    state['u10'] = dict(nodes['u'])[10.0]
    state['v10'] = dict(nodes['v'])[10.0]
    state['nodes'] = nodes
    return state


def pressure(state, z):
    own = state['p_nodes'].get(z)
    if own is not None:
        return own                           # exactly on a node: its own pressure
    return math.exp(state['lnp'].at(z))


def sample_layer(state, z):
    g_m = state['g_m']
    h = z - g_m
    if z < g_m + 10.0:
        f = (h / 10.0) ** POWER
        u, v = state['u10'] * f + 0.0, state['v10'] * f + 0.0     # + 0.0: no -0.0 at the ground
    else:
        u, v = state['u'].at(z), state['v'].at(z)
    return level_fields(u, v, state['t'].at(z), pressure(state, z), state['q'].at(z))


def sample_plain(levels, z):
    zs = [lv['z'] for lv in levels]
    k = bisect.bisect_right(zs, z) - 1
    lo = levels[k]
    if zs[k] == z:
        return level_fields(lo['u'], lo['v'], lo['t'], lo['p'], lo['q'])
    hi = levels[k + 1]
    a = (z - zs[k]) / (zs[k + 1] - zs[k])
    lin = {key: lo[key] + a * (hi[key] - lo[key]) for key in ('u', 'v', 't', 'q')}
    p = math.exp(math.log(lo['p']) + a * (math.log(hi['p']) - math.log(lo['p'])))
    return level_fields(lin['u'], lin['v'], lin['t'], p, lin['q'])


def answer(path, request):
    """The `expected` object for one request on one GRIB file (see the module docstring)."""
    pt = read_point(path, float(request['latitude']), float(request['longitude']))
    state = build(pt, request)
    g_m = state['g_m']
    caller = request.get('ground_elevation_m_msl')
    ground = g_m if caller is None else float(caller)
    out = {'sampled_latitude': pt['sampled'][0], 'sampled_longitude': pt['sampled'][1],
           'model_ground_elevation_m_msl': g_m, 'ground_elevation_m_msl': ground}
    if state['want_layer']:
        out['surface_layer'] = 'gfs_height_above_ground' if state['layer'] else 'unavailable'
        if state['layer']:
            out['surface_layer_nodes'] = provenance(unit_nodes(pt['surface_step'], pt['above_ground_step']))
    bottom, top = state['bottom'], state['top']
    out['coverage'] = {'minimum_msl_m': bottom, 'maximum_msl_m': top,
                       'minimum_agl_m': bottom - ground, 'maximum_agl_m': top - ground}
    ref = request['altitude_reference']
    zs = [float(a) + ground if ref == 'agl' else float(a) for a in request['altitudes_m']]
    if any(z < bottom or z > top for z in zs):
        out['error'] = 'outside_vertical_range'
        return out
    levels = []
    for z in zs:
        vals = sample_layer(state, z) if state['layer'] else sample_plain(state['levels'], z)
        levels.append(dict({'altitude_agl_m': z - ground, 'altitude_msl_m': z}, **vals))
    out['levels'] = levels
    return out


def nodes_report(path, request):
    """Raw inputs at the point (debugging / hand checks): surface, above-ground, kept levels."""
    pt = read_point(path, float(request['latitude']), float(request['longitude']))
    state = build(pt, dict(request, surface_layer=True))
    return {'sampled': pt['sampled'], 'surface': pt['surface'],
            'above_ground': {f'{k[0]}@{k[1]:g}m': v for k, v in sorted(pt['above_ground'].items())},
            'steps': {f'{k[0]}@{k[1]:g}m': v for k, v in sorted(pt['above_ground_step'].items())},
            'surface_steps': pt['surface_step'],
            'g_m': state['g_m'], 'layer': state['layer'], 'h_top': state.get('h_top'),
            'nodes': provenance(state['heights']) if state['layer'] else None,
            'q2_from_rh': state.get('q2_from_rh'),
            'kept_levels': state['levels'][:4]}


def packing_table(path):
    """Rows (name, level, template, E, D, bits, step, tolerance, fine) of the §8 fields a file holds (first ones)."""
    rows, seen = [], set()
    names = {v: k for k, v in {'HGT': HGT, 'TMP': TMP, 'UGRD': UGRD, 'VGRD': VGRD, 'SPFH': SPFH, 'RH': RH,
                               'PRES': PRES}.items()}
    for h, code, kind, key in matched_fields(path):
        if kind == 'isobaric':
            continue
        name, level = (key, 'surface') if kind == 'surface' else (key[0], f'{key[1]:g} m')
        if (name, level) in seen:
            continue
        seen.add((name, level))
        template = eccodes.codes_get_long(h, 'dataRepresentationTemplateNumber')
        e = d = None
        if template != IEEE_TEMPLATE:
            e = eccodes.codes_get_long(h, 'binaryScaleFactor')
            d = eccodes.codes_get_long(h, 'decimalScaleFactor')
        step = packing_step(h)
        tol = TOLERANCE.get(name)
        rows.append((names[code], level, f'5.{template}', e, d, eccodes.codes_get_long(h, 'bitsPerValue'),
                     step, tol, None if tol is None else fine(name, step)))
    return rows


# --- §4 self-check ----------------------------------------------------------------------------------------------

def check_plain(profiles):
    grib = os.path.join(os.path.dirname(os.path.abspath(profiles)), 'grib')
    if not os.path.isdir(grib):
        grib = os.path.join(ROOT, 'test', 'fixtures', 'grib')
    worst = 0.0
    for name in ('cases.json', 'cases-spfh.json'):
        with open(os.path.join(profiles, name)) as fh:
            cases = json.load(fh)
        for case in cases:
            got = answer(os.path.join(grib, case['file']), case['request'])
            exp = case['expected']
            assert ('error' in got) == ('error' in exp), case['name']
            pairs = [(got[k], exp[k]) for k in ('sampled_latitude', 'sampled_longitude',
                                                'model_ground_elevation_m_msl', 'ground_elevation_m_msl')]
            pairs += [(got['coverage'][k], exp['coverage'][k]) for k in exp['coverage']]
            for g, e in zip(got.get('levels', []), exp.get('levels', [])):
                pairs += [(g[k], e[k]) for k in e]
            for g, e in pairs:
                worst = max(worst, abs(g - e) / max(abs(e), 1e-300) if e != 0 else abs(g))
            print(f'{name} {case["name"]}: ok')
    print(f'worst relative difference {worst:.3e}')
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--grib', help='the GRIB2 file (one run and step)')
    ap.add_argument('--request', help='the request JSON (default: read stdin)')
    ap.add_argument('--nodes', action='store_true', help='print the raw inputs at the point instead')
    ap.add_argument('--check-plain', metavar='PROFILES_DIR', help='check §4 against cases.json, cases-spfh.json')
    ap.add_argument('--packing', nargs='+', metavar='FILE', help="print each §8 field's packing step and the rule")
    args = ap.parse_args()
    if args.check_plain:
        sys.exit(0 if check_plain(args.check_plain) < 1e-5 else 1)
    if args.packing:
        for path in args.packing:
            print(path)
            for name, level, template, e, d, bits, step, tol, ok in packing_table(path):
                rule = '(terrain, no node)' if tol is None else f'<= {tol:g}: {"node" if ok else "too coarse"}'
                print(f'  {name:5} {level:8} {template:4} E={e!s:>3} D={d!s:>3} bits={bits:2} step={step:<8g} {rule}')
        return
    if not args.grib:
        ap.error('--grib is required')
    request = json.loads(args.request) if args.request else json.load(sys.stdin)
    out = nodes_report(args.grib, request) if args.nodes else answer(args.grib, request)
    sys.stdout.write(json.dumps(out, indent=1, allow_nan=False) + '\n')


if __name__ == '__main__':
    main()
