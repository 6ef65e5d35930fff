#!/usr/bin/python3
"""Check the local upstream's GRIB2 simple-packing writer against ecCodes, once, by hand:

    npm run build && /usr/bin/python3 scripts/source-check-writer.py

Cuts 50..51.5N 20..22.25E out of every field of a real 2020 grib-filter file with our writer,
then with ecCodes (python3-eccodes): every cut message must decode; its grid must be the box
(scanning mode 64, 10 x 7 points); its values must equal the ecCodes-decoded original values at
the same points within half the packing step (2^E * 10^-D / 2), missing where they were missing;
and our own decoder must read the same float32 values as ecCodes does. Exit status 0 when all hold.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

import eccodes

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, 'test/fixtures/grib/Porbi96+GFS-forecast-web-app/data/gfs/20200804/12z/gfs.pgrb2.0p25.f006')
BOX = (50.0, 51.5, 20.0, 22.25)  # bottom, top, left, right
I0, J0, NI, NJ = 28, 8, 10, 7  # the box on the 48..56N 13..25E grid, from its SW corner


def messages(path):
    with open(path, 'rb') as f:
        while True:
            h = eccodes.codes_grib_new_from_file(f)
            if h is None:
                return
            try:
                yield h
            finally:
                eccodes.codes_release(h)


def main():
    out = os.path.join(tempfile.mkdtemp(prefix='aloft-writer-'), 'cut.grib2')
    node = ['node', 'dist/scripts/source-writer-cut.js', SOURCE, out] + [str(x) for x in BOX]
    subprocess.run(node, cwd=ROOT, check=True)
    ours = json.load(open(out + '.ours.json'))

    originals = []
    for h in messages(SOURCE):
        ni, nj = eccodes.codes_get(h, 'Ni'), eccodes.codes_get(h, 'Nj')
        assert eccodes.codes_get(h, 'jScansPositively') == 1 and ni == 49 and nj == 33
        missing = eccodes.codes_get(h, 'missingValue')
        vals = eccodes.codes_get_values(h)
        bitmap = eccodes.codes_get(h, 'bitmapPresent')
        originals.append([None if bitmap and v == missing else float(v) for v in vals])

    problems = 0
    count = 0
    for k, h in enumerate(messages(out)):
        count += 1
        g = {key: eccodes.codes_get(h, key) for key in (
            'Ni', 'Nj', 'latitudeOfFirstGridPointInDegrees', 'longitudeOfFirstGridPointInDegrees',
            'latitudeOfLastGridPointInDegrees', 'longitudeOfLastGridPointInDegrees', 'jScansPositively',
            'packingType')}
        want = {'Ni': NI, 'Nj': NJ,
                'latitudeOfFirstGridPointInDegrees': 50.0, 'longitudeOfFirstGridPointInDegrees': 20.0,
                'latitudeOfLastGridPointInDegrees': 51.5, 'longitudeOfLastGridPointInDegrees': 22.25,
                'jScansPositively': 1, 'packingType': 'grid_simple'}
        if g != want:
            print(f'message {k}: grid/packing {g} != {want}')
            problems += 1
        e, d = eccodes.codes_get(h, 'binaryScaleFactor'), eccodes.codes_get(h, 'decimalScaleFactor')
        step = 2.0 ** e * 10.0 ** -d
        missing = eccodes.codes_get(h, 'missingValue')
        bitmap = eccodes.codes_get(h, 'bitmapPresent')
        vals = [None if bitmap and v == missing else float(v) for v in eccodes.codes_get_values(h)]
        for jj in range(NJ):
            for ii in range(NI):
                a = originals[k][(J0 + jj) * 49 + I0 + ii]
                b = vals[jj * NI + ii]
                c = ours[k][jj * NI + ii]
                if (a is None) != (b is None) or (b is None) != (c is None):
                    print(f'message {k} point {ii},{jj}: missing differs: original {a}, ecCodes {b}, ours {c}')
                    problems += 1
                    continue
                if a is None:
                    continue
                if abs(a - b) > step / 2 * 1.0001 + 1e-6 * abs(a):
                    print(f'message {k} point {ii},{jj}: ecCodes reads {b}, original {a}, packing step {step}')
                    problems += 1
                if abs(b - c) > 1e-6 * max(1.0, abs(b)):
                    print(f'message {k} point {ii},{jj}: our decoder reads {c}, ecCodes {b}')
                    problems += 1
    print(f'{count} messages checked against ecCodes {eccodes.__version__}: {problems} problem(s)')
    return 0 if problems == 0 and count == len(originals) else 1


if __name__ == '__main__':
    sys.exit(main())
