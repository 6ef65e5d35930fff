#!/usr/bin/python3
"""Write test/fixtures/grib/expectations.json: what ecCodes decodes from every GRIB fixture.

    /usr/bin/python3 scripts/grib-expectations.py            # rewrite the committed JSON
    /usr/bin/python3 scripts/grib-expectations.py --dump DIR # also write each field's float32 values
                                                             # (DIR/<n>.f32) for a full value-by-value diff

Needs Debian's python3-eccodes (ecCodes 2.28) and numpy; `npm test` reads only the JSON it writes.
Only ecCodes' *decoder* is used: its 2.28 encoder mis-packs 5.3 at 16+ bits (docs/DESIGN.md §2).

Per field: ecCodes metadata keys (raw integers where GRIB stores integers, so nothing is rounded),
value count, NaN count, min, max, sha256 of the float32 little-endian values (missing points as
the canonical float32 NaN 0x7fc00000), values at a few indices, and ecCodes' nearest grid point
(codes_grib_find_nearest) at a few places chosen well away from cell edges.
"""
import hashlib
import json
import math
import os
import sys

import numpy as np
import eccodes as ec

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test', 'fixtures', 'grib')
OUT = os.path.join(ROOT, 'expectations.json')
# Places away from cell edges on every fixture grid (0.25, 0.24, 1 and 2.5 degrees), so "nearest by
# distance" (ecCodes) and "nearest by index rounding" (aloft, docs/DESIGN.md §3) name the same point.
PLACES = [(52.52, 21.01), (40.01, -105.27), (-22.9, -43.2)]
MISSING = 9.0e36  # a sentinel ecCodes writes for missing points; no fixture value comes near it

# Keys kept per field (None values are left out of the JSON to keep it compact).
FIELD_KEYS = ['offset', 'discipline', 'parameterCategory', 'parameterNumber', 'shortName',
              'productDefinitionTemplateNumber', 'typeOfFirstFixedSurface', 'scaleFactorOfFirstFixedSurface',
              'scaledValueOfFirstFixedSurface', 'typeOfLevel', 'level', 'dataDate', 'dataTime',
              'forecastTime', 'indicatorOfUnitOfTimeRange', 'startStep', 'endStep',
              'dataRepresentationTemplateNumber', 'bitsPerValue', 'bitMapIndicator', 'numberOfValues']
# Grid keys: every fixture file has one grid for all its fields, so they are kept once per file.
GRID_KEYS = ['gridDefinitionTemplateNumber', 'shapeOfTheEarth', 'Ni', 'Nj',
             'latitudeOfFirstGridPoint', 'longitudeOfFirstGridPoint', 'latitudeOfLastGridPoint',
             'longitudeOfLastGridPoint', 'iDirectionIncrement', 'jDirectionIncrement', 'scanningMode',
             'numberOfDataPoints']


def get(h, key):
    """A key's value, or None where ecCodes has it missing or undefined for this template."""
    try:
        if not ec.codes_is_defined(h, key) or ec.codes_is_missing(h, key):
            return None
    except ec.CodesInternalError:
        return None
    if key in ('shortName', 'typeOfLevel'):
        return ec.codes_get_string(h, key)
    return ec.codes_get_long(h, key)  # integers as GRIB codes them ('pl' would be 100)


def field_record(h, dump_dir, serial):
    rec = {k: v for k in FIELD_KEYS if (v := get(h, k)) is not None}
    ec.codes_set_double(h, 'missingValue', MISSING)
    v64 = ec.codes_get_values(h)
    v32 = v64.astype(np.float32)
    v32[v64 == MISSING] = np.float32('nan')
    raw = v32.view(np.uint32).copy()
    raw[np.isnan(v32)] = 0x7FC00000  # one NaN bit pattern, whatever produced it
    finite = v32[~np.isnan(v32)]
    n = len(v32)
    idx = sorted({0, 1, n // 3, n // 2, (2 * n) // 3, n - 1}) if n else []
    rec['count'] = int(n)
    rec['nan'] = int(n - len(finite))
    rec['min'] = float(finite.min()) if len(finite) else None
    rec['max'] = float(finite.max()) if len(finite) else None
    rec['sha256'] = hashlib.sha256(raw.astype('<u4').tobytes()).hexdigest()
    rec['samples'] = [[i, None if math.isnan(v32[i]) else float(v32[i])] for i in idx]
    places = []
    for lat, lon in PLACES:
        try:
            p = ec.codes_grib_find_nearest(h, lat, lon)[0]
        except ec.GribInternalError:
            continue  # outside a regional grid
        if p['distance'] > 200:  # km: ecCodes clamps to the nearest edge point of a regional grid
            continue
        val = None if p['value'] == MISSING else float(np.float32(p['value']))
        places.append({'lat': lat, 'lon': lon, 'index': int(p['index']),
                       'latitude': p['lat'], 'longitude': p['lon'], 'value': val})
    rec['nearest'] = places
    rec['grid'] = {k: get(h, k) for k in GRID_KEYS}
    if dump_dir:
        raw.astype('<u4').tofile(os.path.join(dump_dir, f'{serial}.f32'))
    return rec


def main():
    dump_dir = None
    if '--dump' in sys.argv:
        dump_dir = sys.argv[sys.argv.index('--dump') + 1]
        os.makedirs(dump_dir, exist_ok=True)
    ec.codes_grib_multi_support_on()  # the 2011 pygrib files repeat sections 4-7 inside one message
    files = []
    serial = 0
    for dirpath, _, names in os.walk(ROOT):
        for name in names:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, ROOT)
            if name.endswith(('.idx', '.md', '.json')):
                continue
            with open(path, 'rb') as f:
                if b'GRIB' not in f.read():
                    continue  # the HTML page saved under a GRIB name
            fields = []
            with open(path, 'rb') as f:
                while True:
                    h = ec.codes_grib_new_from_file(f)
                    if h is None:
                        break
                    try:
                        rec = field_record(h, dump_dir, serial)
                        rec['serial'] = serial
                        serial += 1
                        fields.append(rec)
                    finally:
                        ec.codes_release(h)
            grids = {json.dumps(r.pop('grid'), sort_keys=True) for r in fields}
            assert len(grids) == 1, f'{rel}: several grids'
            # Same grid, so the same nearest points: keep them once, and only the value per field.
            nearest = [{k: v for k, v in p.items() if k != 'value'} for p in fields[0]['nearest']]
            for r in fields:
                r['nearest'] = [p['value'] for p in r['nearest']]
            files.append({'file': rel, 'size': os.path.getsize(path), 'grid': json.loads(grids.pop()),
                          'nearest': nearest, 'fields': fields})
            print(f'{rel}: {len(fields)} fields', file=sys.stderr)
    files.sort(key=lambda f: f['file'])
    doc = {'generator': 'scripts/grib-expectations.py', 'eccodes': ec.codes_get_api_version(), 'files': files}
    with open(OUT, 'w') as f:
        json.dump(doc, f, separators=(',', ':'))
        f.write('\n')


if __name__ == '__main__':
    main()
