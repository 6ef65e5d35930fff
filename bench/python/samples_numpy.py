#!/usr/bin/python3
"""Vectorised numpy implementation of aloft's bulk samples, method `linear` (docs/DESIGN.md §6): a yardstick.

Run from the repository root (needs Debian python3-eccodes and numpy; no network):

    /usr/bin/python3 bench/python/samples_numpy.py --data data/sample [--max-time-offset-hours 3] \\
        < request.json > answer.json

Same request and answer as scripts/samples-reference.py, restricted to `interpolation: linear` with
`out_of_column` null or `nearest_level`, one time or one per point, and ground elevation absent, one number or
one per point. It prints to stderr one JSON line
`{"points", "seconds", "samples_per_second", "load_seconds", "compute_seconds", "compute_samples_per_second"}`:
`seconds` runs from the parsed request (times already converted to milliseconds) to the finished output arrays
and INCLUDES reading the GRIB files with ecCodes and building every column (`load_seconds`); `compute_seconds`
is the rest (time choice, stencil, level search, blend, derived fields). Writing the JSON answer is not timed.

Written apart from the TypeScript engine and apart from scripts/samples-reference.py (nothing imported from
either; scripts/check-samples-numpy.py holds the two against each other), from docs/DESIGN.md §3, §4, §6 and the
decisions of its brief. The way a numpy user would do it: each needed (run, step) unit is decoded once into
float64 arrays [variable][level][lat][lon] (values rounded to float32 first, as the engine stores them); the
columns of all grid points are built at once (validity mask, sort by geometric height, padding with +inf), laid
out [cell][level]; the points then go through the up to 2 x 4 weighted columns slot by slot with a vectorised
binary search for the level pair. There is no per-point Python loop in the timed part.
"""
import argparse
import calendar
import json
import math
import os
import re
import sys
import time

import eccodes
import numpy as np

R_GEOPOTENTIAL = 6371229.0
EPS = 0.6219569
R_D = 287.04749
EPS_NCEP = 287.05 / 461.50
T_TRIPLE = 273.16
CV, CL, CI, RV, LV, LF = 1846.0, 4185.5, 2106.0, 461.5, 2.5e6, 3.3358e5
RAD_TO_DEG = 180.0 / math.pi
HOUR_MS = 3_600_000

FIELDS = ['wind_u_ms', 'wind_v_ms', 'wind_speed_ms', 'wind_direction_deg', 'temperature_k', 'pressure_pa',
          'specific_humidity_kg_kg', 'relative_humidity_pct', 'density_kg_m3']
VARS = {(0, 3, 5): 0, (0, 0, 0): 1, (0, 2, 2): 2, (0, 2, 3): 3, (0, 1, 1): 4, (0, 1, 0): 5}  # HGT TMP U V RH SPFH
HGT, TMP, UGRD, VGRD, RH, SPFH = range(6)

FILE_RE = re.compile(r'^gfs\.t(\d\d)z\.pgrb2\.0p25\.f(\d{3,})$')
DIR_RE = re.compile(r'^gfs\.(\d{4})(\d\d)(\d\d)$')
TIME_RE = re.compile(r'^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(\.\d+)?([Zz]|[+-]\d\d:\d\d)$')


def parse_time_ms(text):
    """RFC 3339 -> integer ms since the epoch (a sub-millisecond fraction is truncated, as JS Date does)."""
    m = TIME_RE.match(text)
    if not m:
        raise SystemExit(f'bad time {text!r}')
    y, mo, d, hh, mi, ss = (int(g) for g in m.groups()[:6])
    ms = int((m.group(7)[1:] + '000')[:3]) if m.group(7) else 0
    zone = m.group(8)
    off = 0 if zone in 'Zz' else (1 if zone[0] == '+' else -1) * (int(zone[1:3]) * 60 + int(zone[4:6]))
    return (calendar.timegm((y, mo, d, hh, mi, ss, 0, 0, 0)) - off * 60) * 1000 + ms


def iso(ms):
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(ms // 1000))


def catalog(root):
    """[(run_ms, step_h, path)] for every gfs.YYYYMMDD/CC/atmos/gfs.tCCz.pgrb2.0p25.fFFF under root."""
    out = []
    for day in os.listdir(root):
        dm = DIR_RE.match(day)
        if not dm:
            continue
        for cyc in os.listdir(os.path.join(root, day)):
            atmos = os.path.join(root, day, cyc, 'atmos')
            if not os.path.isdir(atmos):
                continue
            for name in os.listdir(atmos):
                fm = FILE_RE.match(name)
                if fm and fm.group(1) == cyc:
                    run = calendar.timegm((int(dm.group(1)), int(dm.group(2)), int(dm.group(3)), int(cyc), 0, 0))
                    out.append((run * 1000, int(fm.group(2)), os.path.join(atmos, name)))
    return sorted(out)


# --- time choice (vectorised over points, looping only over the catalog) -----------------------------------------

def choose_times(t, cat, max_off_ms):
    """Per point: unit_before, unit_after (catalog indices, -1 = outside in time) and time weight."""
    n = len(t)
    valid = np.array([r + s * HOUR_MS for r, s, _ in cat], dtype=np.int64)
    runs = np.array([r for r, _, _ in cat], dtype=np.int64)
    vt = np.unique(valid)
    newest = np.array([max(np.nonzero(valid == v)[0], key=lambda k: runs[k]) for v in vt])  # per valid time
    before = np.full(n, -1, dtype=np.int64)
    after = np.full(n, -1, dtype=np.int64)
    weight = np.zeros(n)
    done = np.zeros(n, dtype=bool)
    # (a) t is an available valid time: the newest run having it, alone.
    pos = np.searchsorted(vt, t)
    posc = np.minimum(pos, len(vt) - 1)
    exact = vt[posc] == t
    before[exact] = after[exact] = newest[posc[exact]]
    done |= exact
    # (b) consecutive available steps of one run around t, newest run first.
    pairs = []
    for run in sorted(set(runs.tolist()), reverse=True):
        ks = sorted(np.nonzero(runs == run)[0], key=lambda k: cat[k][1])
        for a, b in zip(ks, ks[1:]):
            if valid[b] - valid[a] <= 2 * max_off_ms:
                pairs.append((a, b))
    for a, b in pairs:
        m = ~done & (t > valid[a]) & (t < valid[b])
        before[m] = a
        after[m] = b
        weight[m] = (t[m] - valid[a]).astype(np.float64) / float(valid[b] - valid[a])
        done |= m
    # (c) §3 nearest valid time (a tie goes to the later one), within the offset inclusive.
    lo = np.clip(pos - 1, 0, len(vt) - 1)
    hi = np.clip(pos, 0, len(vt) - 1)
    dlo = np.abs(t - vt[lo])
    dhi = np.abs(vt[hi] - t)
    pick = np.where(dhi <= dlo, hi, lo)
    m = ~done & (np.minimum(dlo, dhi) <= max_off_ms)
    before[m] = after[m] = newest[pick[m]]
    return before, after, weight


# --- loading: one unit -> columns of every grid point ------------------------------------------------------------

def geometric(h):
    return R_GEOPOTENTIAL * h / (R_GEOPOTENTIAL - h)


def e_ncep(t):
    def part(cx, lat):
        a = -(CV - cx) / RV
        b = a + lat / (RV * T_TRIPLE)
        tr = T_TRIPLE / t
        return 610.78 * tr ** a * np.exp(b * (1.0 - tr))
    liq = part(CL, LV)
    ice = part(CI, LV + LF)
    w = (t - 253.16) / 20.0
    return np.where(t >= 273.16, liq, np.where(t < 253.16, ice, w * liq + (1.0 - w) * ice))


def load_unit(path):
    """Decode one file: grid facts and the per-cell column arrays (cell-major, levels padded with +inf)."""
    grid = None
    rows = cols = None
    surface = None
    planes = {}            # (var, pressure) -> 2-D plane; the first occurrence wins
    pressures = []
    with open(path, 'rb') as fh:
        while True:
            h = eccodes.codes_grib_new_from_file(fh)
            if h is None:
                break
            try:
                g = eccodes.codes_get_long
                code = (g(h, 'discipline'), g(h, 'parameterCategory'), g(h, 'parameterNumber'))
                first = g(h, 'typeOfFirstFixedSurface')
                if g(h, 'productDefinitionTemplateNumber') != 0 or g(h, 'typeOfSecondFixedSurface') != 255:
                    continue
                if not ((first == 1 and code == (0, 3, 5)) or (first == 100 and code in VARS)):
                    continue
                d = eccodes.codes_get_double
                lat1, lat2 = d(h, 'latitudeOfFirstGridPointInDegrees'), d(h, 'latitudeOfLastGridPointInDegrees')
                facts = (min(lat1, lat2), d(h, 'longitudeOfFirstGridPointInDegrees'),
                         d(h, 'jDirectionIncrementInDegrees'), d(h, 'iDirectionIncrementInDegrees'),
                         g(h, 'Nj'), g(h, 'Ni'))
                if grid is None:
                    grid = facts
                    south, west, dlat, dlon, nj, ni = grid
                    lats = eccodes.codes_get_double_array(h, 'latitudes')
                    lons = eccodes.codes_get_double_array(h, 'longitudes')
                    rows = np.rint((lats - south) / dlat).astype(np.int64)
                    cols = np.rint(((lons - west) % 360) / dlon).astype(np.int64) % ni
                elif facts != grid:
                    raise SystemExit(f'{path}: grid differs between messages')
                vals = eccodes.codes_get_double_array(h, 'values').astype(np.float32).astype(np.float64)
                if g(h, 'bitmapPresent'):
                    vals[np.asarray(eccodes.codes_get_long_array(h, 'bitmap')) == 0] = np.nan
                plane = np.full((grid[4], grid[5]), np.nan)
                plane[rows, cols] = vals
                if first == 1:
                    if surface is None:
                        surface = plane
                    continue
                pa = g(h, 'scaledValueOfFirstFixedSurface') / 10 ** g(h, 'scaleFactorOfFirstFixedSurface')
                if pa not in pressures:
                    pressures.append(pa)
                planes.setdefault((VARS[code], pa), plane)
            finally:
                eccodes.codes_release(h)
    south, west, dlat, dlon, nj, ni = grid
    nl = len(pressures)
    data = np.full((6, nl, nj, ni), np.nan)          # [variable][level][lat][lon]
    for (var, pa), plane in planes.items():
        data[var, pressures.index(pa)] = plane
    has_spfh = any(var == SPFH for var, _ in planes)
    p = np.array(pressures)[:, None, None]
    terrain = geometric(surface) if surface is not None else np.full((nj, ni), np.nan)
    z = geometric(data[HGT])
    t = data[TMP]
    if has_spfh:
        q = data[SPFH]
    else:
        with np.errstate(invalid='ignore'):
            e = np.minimum(e_ncep(t), p)
            q = data[RH] / 100.0 * (EPS_NCEP * e / (p - (1.0 - EPS_NCEP) * e))
    with np.errstate(invalid='ignore'):
        ok = (np.isfinite(z) & np.isfinite(t) & np.isfinite(data[UGRD]) & np.isfinite(data[VGRD])
              & np.isfinite(data[SPFH if has_spfh else RH]) & (z >= terrain))
    key = np.where(ok, z, np.inf)
    order = np.argsort(key, axis=0, kind='stable')   # stable: equal heights keep file order
    pfull = np.broadcast_to(p, z.shape)

    def cellmajor(a):
        return np.ascontiguousarray(np.take_along_axis(a, order, axis=0).reshape(nl, nj * ni).T)
    count = ok.sum(axis=0).reshape(-1)
    pres = cellmajor(np.where(ok, pfull, np.nan))
    with np.errstate(invalid='ignore', divide='ignore'):
        lnp = np.log(pres)
    return {
        'grid': {'south': south, 'west': west, 'dlat': dlat, 'dlon': dlon, 'nj': nj, 'ni': ni,
                 'global': round(360 / dlon) == ni},
        'terrain': terrain.reshape(-1), 'count': count,
        'usable': (count > 0) & np.isfinite(terrain.reshape(-1)),
        'z': cellmajor(key), 'u': cellmajor(data[UGRD]), 'v': cellmajor(data[VGRD]), 't': cellmajor(t),
        'q': cellmajor(q), 'p': pres, 'lnp': lnp,
    }


def stack_units(loaded):
    """One set of [cell][level] arrays over all loaded units (cell ids offset per unit, levels padded)."""
    lmax = max(u['z'].shape[1] for u in loaded)
    out = {}
    for key, pad in (('z', np.inf), ('u', np.nan), ('v', np.nan), ('t', np.nan), ('q', np.nan), ('p', np.nan),
                     ('lnp', np.nan)):
        out[key] = np.concatenate([np.pad(u[key], ((0, 0), (0, lmax - u[key].shape[1])), constant_values=pad)
                                   for u in loaded])
    for key in ('terrain', 'count', 'usable'):
        out[key] = np.concatenate([u[key] for u in loaded])
    out['offset'] = np.cumsum([0] + [len(u['terrain']) for u in loaded])[:-1]
    out['lmax'] = lmax
    return out


# --- sampling ----------------------------------------------------------------------------------------------------

def stencil(lat, lon, unit_of_point, loaded, offsets):
    """Per point, 4 corners: (cell id, spatial weight, off-grid flag) for the unit each point uses."""
    n = len(lat)
    cid = np.zeros((4, n), dtype=np.int64)
    ws = np.zeros((4, n))
    off = np.zeros((4, n), dtype=bool)
    for k, u in enumerate(loaded):
        m = unit_of_point == k
        if not m.any():
            continue
        g = u['grid']
        x = ((lon[m] - g['west']) % 360) / g['dlon']
        y = (lat[m] - g['south']) / g['dlat']
        i = np.floor(x)
        j = np.floor(y)
        fx = x - i
        fy = y - j
        i = i.astype(np.int64)
        j = j.astype(np.int64)
        for c, (dj, di, w) in enumerate(((0, 0, (1 - fx) * (1 - fy)), (0, 1, fx * (1 - fy)),
                                         (1, 0, (1 - fx) * fy), (1, 1, fx * fy))):
            cj, ci = j + dj, i + di
            if g['global']:
                ci = ci % g['ni']
            outside = (cj < 0) | (cj >= g['nj']) | (ci < 0) | (ci >= g['ni'])
            weighted = w != 0
            ws[c, m] = w
            off[c, m] = weighted & outside
            cid[c, m] = np.where(weighted & ~outside, offsets[k] + cj * g['ni'] + ci, 0)
    return cid, ws, off


def level_values(cols, cid, z, clamp):
    """Values of column cid at z (vectorised bisect). Returns (vals, out-of-range, clamped, exact-level)."""
    cnt = cols['count'][cid]
    zc = cols['z']
    zlo = zc[cid, 0]
    zhi = zc[cid, np.maximum(cnt - 1, 0)]
    below, above = z < zlo, z > zhi
    outside = below | above
    if clamp:
        z = np.where(below, zlo, np.where(above, zhi, z))
    lo = np.zeros(len(cid), dtype=np.int64)
    hi = cnt.astype(np.int64).copy()
    for _ in range(int(cols['lmax']).bit_length() + 1):   # bisect_right over the valid levels
        active = lo < hi
        mid = (lo + hi) >> 1
        right = zc[cid, np.minimum(mid, cols['lmax'] - 1)] <= z
        lo = np.where(active & right, mid + 1, lo)
        hi = np.where(active & ~right, mid, hi)
    k = np.maximum(lo - 1, 0)
    k1 = np.minimum(k + 1, np.maximum(cnt - 1, 0))
    zk = zc[cid, k]
    exact = zk == z
    with np.errstate(invalid='ignore', divide='ignore'):
        a = np.where(exact, 0.0, (z - zk) / (zc[cid, k1] - zk))
    vals = {}
    with np.errstate(invalid='ignore'):   # lanes of inactive slots may hold NaN; they are masked later
        for key in ('u', 'v', 't', 'q', 'lnp'):
            vk = cols[key][cid, k]
            vals[key] = np.where(exact, vk, vk + a * (cols[key][cid, k1] - vk))
        vals['p'] = np.where(exact, cols['p'][cid, k], np.exp(vals['lnp']))
    return vals, outside, outside if clamp else np.zeros_like(outside)


def sample(req, t_ms, cat, max_off_ms):
    """The whole computation; returns (columns dict, units list, load_seconds)."""
    lat = np.asarray(req['latitude'], dtype=np.float64)
    lon = np.asarray(req['longitude'], dtype=np.float64)
    alt = np.asarray(req['altitude_m'], dtype=np.float64)
    n = len(lat)
    clamp = req.get('out_of_column') == 'nearest_level'
    g = req.get('ground_elevation_m_msl')
    ground_in = None if g is None else np.broadcast_to(np.asarray(g, dtype=np.float64), (n,))

    before, after, tw = choose_times(t_ms, cat, max_off_ms)
    has_time = before >= 0
    needed = sorted(set(before[has_time].tolist()) | set(after[has_time].tolist()))
    t0 = time.perf_counter()
    loaded = [load_unit(cat[k][2]) for k in needed]
    cols = stack_units(loaded) if loaded else None
    load_s = time.perf_counter() - t0
    if cols is None:   # every point is outside the source in time
        status = np.full(n, 'outside_source_coverage', dtype=object)
        nan = np.full(n, np.nan)
        values = {k: nan for k in FIELDS + ['altitude_msl_m', 'ground_elevation_m_msl']}
        return {'status': status, 'ok': np.zeros(n, dtype=bool), 'values': values, 'before': before,
                'after': after, 'tw': tw, 'has_time': has_time}, [], load_s

    slot_of = {k: s for s, k in enumerate(needed)}
    lut = np.full(len(cat), -1, dtype=np.int64)
    for k, s in slot_of.items():
        lut[k] = s
    ub = np.where(has_time, lut[np.maximum(before, 0)], -1)
    ua = np.where(has_time, lut[np.maximum(after, 0)], -1)
    two = has_time & (ub != ua)
    # Time slots: before with 1 - w (or 1 alone), after with w where it is a second unit.
    slots = [(ub, np.where(two, 1.0 - tw, 1.0), has_time), (ua, tw, two)]

    status_off = ~has_time
    parts = []
    offsets = cols['offset']
    for uidx, wt, present in slots:
        cid, ws, off = stencil(lat, lon, np.where(present, uidx, -1), loaded, offsets)
        status_off |= (off & present).any(axis=0)
        for c in range(4):
            parts.append((cid[c], ws[c] * wt, present & (ws[c] != 0)))
    unusable = np.zeros(n, dtype=bool)
    for cid, w, act in parts:
        unusable |= act & ~cols['usable'][cid]
    unusable &= ~status_off
    good = ~status_off & ~unusable
    parts = [(cid, w, act & good) for cid, w, act in parts]

    if ground_in is None:
        ground = np.zeros(n)
        for cid, w, act in parts:
            ground = ground + np.where(act, w * cols['terrain'][cid], 0.0)
    else:
        ground = np.array(ground_in)
    z = alt + ground if req['altitude_reference'] == 'agl' else alt.copy()

    acc = {key: np.zeros(n) for key in ('u', 'v', 't', 'q', 'lnp')}
    outside = np.zeros(n, dtype=bool)
    nact = np.zeros(n, dtype=np.int64)
    single = {key: np.zeros(n) for key in ('u', 'v', 't', 'q', 'p')}
    single_w = np.zeros(n)
    for cid, w, act in parts:
        if not act.any():
            continue
        vals, out, _ = level_values(cols, cid, z, clamp)
        if not clamp:
            outside |= act & out
        for key in acc:
            acc[key] = acc[key] + np.where(act, w * vals[key], 0.0)
        for key in single:
            single[key] = np.where(act, vals[key], single[key])
        single_w = np.where(act, w, single_w)
        nact += act
    vertical = good & outside
    ok = good & ~outside
    # One column of weight 1 (on a grid point at a valid time): its own values and pressure, as the reference.
    alone = (nact == 1) & (single_w == 1.0)
    u = np.where(alone, single['u'], acc['u'])
    v = np.where(alone, single['v'], acc['v'])
    t = np.where(alone, single['t'], acc['t'])
    q = np.where(alone, single['q'], acc['q'])
    p = np.where(alone, single['p'], np.exp(acc['lnp']))

    with np.errstate(invalid='ignore', divide='ignore', over='ignore'):
        speed = np.sqrt(u * u + v * v)
        d = np.arctan2(-u, -v) * RAD_TO_DEG
        d = np.where(d < 0.0, d + 360.0, d)
        d = np.where((d >= 360.0) | (speed == 0.0), 0.0, d)
        lnt = np.log(t)
        es = np.exp(54.842763 - 6763.22 / t - 4.210 * lnt + 0.000367 * t
                    + np.tanh(0.0415 * (t - 218.8)) * (53.878 - 1331.22 / t - 9.44523 * lnt + 0.014025 * t))
        e = q * p / (EPS + (1.0 - EPS) * q)
        rh = 100.0 * e / es
        rho = p / (R_D * t * (1.0 + (1.0 / EPS - 1.0) * q))

    status = np.full(n, 'ok', dtype=object)
    status[vertical] = 'outside_vertical_range'
    status[unusable] = 'unusable_source_column'
    status[status_off] = 'outside_source_coverage'
    values = dict(zip(FIELDS, (u, v, speed, d, t, p, q, rh, rho)))
    values['altitude_msl_m'] = z
    values['ground_elevation_m_msl'] = ground
    # Units: every one referenced, by run then step (catalog order), indices re-mapped.
    units = [cat[k] for k in needed]
    return {'status': status, 'ok': ok, 'values': values, 'before': ub, 'after': ua, 'tw': tw,
            'has_time': has_time}, units, load_s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--data', required=True)
    ap.add_argument('--max-time-offset-hours', type=float, default=3.0)
    args = ap.parse_args()
    req = json.load(sys.stdin)
    if (req.get('interpolation') or 'linear') != 'linear':
        raise SystemExit('only interpolation "linear" is implemented here')
    n = len(req['latitude'])
    tt = req['time']
    if isinstance(tt, list):
        cache = {}   # per-point times often repeat: parse each distinct string once
        for s in tt:
            if s not in cache:
                cache[s] = parse_time_ms(s)
        t_ms = np.array([cache[s] for s in tt], dtype=np.int64)
    else:
        t_ms = np.full(n, parse_time_ms(tt), dtype=np.int64)
    cat = catalog(args.data)

    t0 = time.perf_counter()
    res, units, load_s = sample(req, t_ms, cat, args.max_time_offset_hours * HOUR_MS)
    total = time.perf_counter() - t0

    ok = res['ok']
    columns = {'status': res['status'].tolist()}
    for key, arr in res['values'].items():
        lst = arr.tolist()
        columns[key] = [x if m else None for x, m in zip(lst, ok.tolist())]
    ht = res['has_time'].tolist()
    columns['unit_before'] = [x if m else None for x, m in zip(res['before'].tolist(), ht)]
    columns['unit_after'] = [x if m else None for x, m in zip(res['after'].tolist(), ht)]
    columns['time_weight'] = [x if m else None for x, m in zip(res['tw'].tolist(), ht)]
    order = ['status'] + FIELDS + ['altitude_msl_m', 'ground_elevation_m_msl', 'unit_before', 'unit_after',
                                   'time_weight']
    out = {'count': n,
           'units': [{'model_run_at': iso(r), 'forecast_hour': s, 'valid_time': iso(r + s * HOUR_MS)}
                     for r, s, _ in units],
           'columns': {k: columns[k] for k in order}}
    sys.stdout.write(json.dumps(out, allow_nan=False) + '\n')   # one write: json.dump writes per token
    sys.stderr.write(json.dumps({'points': n, 'seconds': total, 'samples_per_second': n / total,
                                 'load_seconds': load_s, 'compute_seconds': total - load_s,
                                 'compute_samples_per_second': n / max(total - load_s, 1e-12),
                                 'includes_grib_reading': True}) + '\n')


if __name__ == '__main__':
    main()
