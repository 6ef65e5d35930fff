#!/usr/bin/python3
"""Raw per-level GFS values at each golden case's grid point, read by ecCodes.

Run from the repository root (needs Debian python3-eccodes):

    /usr/bin/python3 scripts/profile-columns.py ../shared/fixtures

It reads test/fixtures/profiles/cases.json and cases-spfh.json, opens each case's GRIB file under
<fixtures>/grib/, and writes test/fixtures/profiles/columns.json and columns-spfh.json: for every
case the surface HGT and, per isobaric level, pressure (Pa), HGT, TMP, UGRD, VGRD, RH and SPFH
exactly as ecCodes decodes them, as float32-representable numbers (null when the field is absent,
bitmap-missing or not finite). The atmosphere tests feed these through src/atmosphere, so the
golden cases run without our own GRIB decoder; this is the ecCodes path of issue 5.

The grid point is chosen by docs/DESIGN.md §3's rule from the grid section (never from the case), then
checked against the case's sampled_latitude/longitude and against ecCodes' own coordinates.
"""
import json
import math
import os
import sys

import eccodes
import numpy as np

# (discipline, category, number) -> output key. Matched on codes, not ecCodes short names.
ISOBARIC_PARAMS = {
    (0, 3, 5): 'hgt_gpm',
    (0, 0, 0): 'tmp_k',
    (0, 2, 2): 'ugrd_ms',
    (0, 2, 3): 'vgrd_ms',
    (0, 1, 1): 'rh_pct',
    (0, 1, 0): 'spfh_kg_kg',
}
SURFACE_HGT = (0, 3, 5)
SURFACE, ISOBARIC, MISSING_SURFACE = 1, 100, 255

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROFILES = os.path.join(ROOT, 'test', 'fixtures', 'profiles')


def f32(x):
    """The float64 that holds the float32 value, or None for missing/non-finite."""
    if x is None or not math.isfinite(x):
        return None
    return float(np.float32(x))


def grid_facts(h):
    lat_first = eccodes.codes_get_double(h, 'latitudeOfFirstGridPointInDegrees')
    lat_last = eccodes.codes_get_double(h, 'latitudeOfLastGridPointInDegrees')
    return {
        'south': min(lat_first, lat_last),
        'west': eccodes.codes_get_double(h, 'longitudeOfFirstGridPointInDegrees'),
        'dlat': eccodes.codes_get_double(h, 'jDirectionIncrementInDegrees'),
        'dlon': eccodes.codes_get_double(h, 'iDirectionIncrementInDegrees'),
        'ni': eccodes.codes_get_long(h, 'Ni'),
        'nj': eccodes.codes_get_long(h, 'Nj'),
    }


def pick_point(grid, lat, lon):
    """docs/DESIGN.md §3: index rounding from the southern and western edges, whatever the scanning mode."""
    j = math.floor((lat - grid['south']) / grid['dlat'] + 0.5)
    i = math.floor(((lon - grid['west']) % 360) / grid['dlon'] + 0.5)
    global_row = round(360 / grid['dlon']) == grid['ni']
    if global_row:
        i %= grid['ni']
    if not (0 <= j < grid['nj'] and 0 <= i < grid['ni']):
        raise SystemExit(f'point {lat},{lon} is outside the grid (i={i}, j={j})')
    sampled_lat = grid['south'] + j * grid['dlat']
    sampled_lon = (grid['west'] + i * grid['dlon']) % 360
    if sampled_lon > 180:
        sampled_lon -= 360
    return j, i, sampled_lat, sampled_lon


def value_at(h, lat, lon):
    """The decoded value at (lat, lon), located through ecCodes' own coordinate arrays."""
    lats = eccodes.codes_get_double_array(h, 'latitudes')
    lons = eccodes.codes_get_double_array(h, 'longitudes')
    lons = np.where(lons > 180, lons - 360, lons)
    hits = np.nonzero((np.abs(lats - lat) < 1e-6) & (np.abs(lons - lon) < 1e-6))[0]
    if len(hits) != 1:
        raise SystemExit(f'grid point {lat},{lon} found {len(hits)} times')
    values = eccodes.codes_get_double_array(h, 'values')
    v = float(values[hits[0]])
    if eccodes.codes_get_long(h, 'bitmapPresent') and v == eccodes.codes_get_double(h, 'missingValue'):
        return None
    return f32(v)


def column(path, case):
    req = case['request']
    surface = None
    levels = {}  # pressure (Pa) -> {key: value}; the first occurrence of a (variable, level) wins
    grid = point = None
    with open(path, 'rb') as fh:
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
                g = grid_facts(h)
                if grid is None:
                    grid = g
                    j, i, slat, slon = pick_point(grid, req['latitude'], req['longitude'])
                    point = (slat, slon)
                    exp = case['expected']
                    assert abs(slat - exp['sampled_latitude']) < 1e-9, (slat, exp['sampled_latitude'])
                    assert abs(slon - exp['sampled_longitude']) < 1e-9, (slon, exp['sampled_longitude'])
                elif g != grid:
                    raise SystemExit(f'{path}: grid differs between messages')
                v = value_at(h, *point)
                if first == SURFACE:
                    if surface is None:
                        surface = {'value': v}
                    continue
                scale = eccodes.codes_get_long(h, 'scaleFactorOfFirstFixedSurface')
                scaled = eccodes.codes_get_long(h, 'scaledValueOfFirstFixedSurface')
                pa = scaled / 10 ** scale
                entry = levels.setdefault(pa, {})
                key = ISOBARIC_PARAMS[code]
                if key not in entry:
                    entry[key] = v
            finally:
                eccodes.codes_release(h)
    if surface is None:
        raise SystemExit(f'{path}: no surface HGT')
    keys = ['hgt_gpm', 'tmp_k', 'ugrd_ms', 'vgrd_ms', 'rh_pct', 'spfh_kg_kg']
    return {
        'name': case['name'],
        'file': case['file'],
        'sampled_latitude': point[0],
        'sampled_longitude': point[1],
        'surface_hgt_gpm': surface['value'],
        # File order is kept deliberately (HGT:1000 mb and the Pa levels are out of order):
        # sorting is the column builder's job.
        'levels': [dict({'pressure_pa': pa}, **{k: lv.get(k) for k in keys}) for pa, lv in levels.items()],
    }


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    grib_root = os.path.join(sys.argv[1], 'grib')
    for name, out in (('cases.json', 'columns.json'), ('cases-spfh.json', 'columns-spfh.json')):
        with open(os.path.join(PROFILES, name)) as fh:
            cases = json.load(fh)
        cols = [column(os.path.join(grib_root, c['file']), c) for c in cases]
        with open(os.path.join(PROFILES, out), 'w') as fh:
            json.dump(cols, fh, indent=1)
            fh.write('\n')
        print(f'wrote {out}: {len(cols)} columns')


if __name__ == '__main__':
    main()
