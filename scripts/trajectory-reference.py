#!/usr/bin/python3
"""Independent reference for aloft's balloon trajectories (docs/DESIGN.md §7, Tawhiri-compatible), exact.

Run from the repository root (needs Debian python3-eccodes and numpy; no network):

    /usr/bin/python3 scripts/trajectory-reference.py --data data/sample [--max-time-offset-hours 3] \\
        < request.json > answer.json
    /usr/bin/python3 scripts/trajectory-reference.py --self-test [--data data/sample]

The request holds Tawhiri's fields: profile (standard_profile | float_profile), launch_latitude,
launch_longitude, launch_datetime, launch_altitude (optional: model terrain), ascent_rate, burst_altitude,
descent_rate, float_altitude, stop_datetime, descent_density ('model' for aloft's density). One flight, no
ensemble. The answer: `{prediction: [{stage, trajectory: [{datetime, latitude, longitude, altitude, t}]}],
warnings: {altitude_outside_column|left_source_coverage: {count}}, launch_altitude}` where `t` is the exact
float instant in seconds since the Unix epoch. A request the service would refuse (launch outside the source)
prints `{"error": ...}` and exits with status 2.

Written apart from the TypeScript engine, from docs/DESIGN.md §7 and the decisions of its brief; it reads
nothing under src/. Winds, densities and terrain come from scripts/samples-reference.py (the §6 `linear` method,
`out_of_column: nearest_level`, heights MSL), imported as a module. The integrator `solve` knows nothing of GRIB:
it takes a derivative function and a stage terminator, so `--self-test` can check it on synthetic air (calm air:
the ascent lasts exactly (burst - launch) / ascent_rate).
"""
import argparse
import importlib.util
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location('samples_reference', os.path.join(HERE, 'samples-reference.py'))
sr = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sr)

R_EARTH = 6371009.0          # §7 sphere radius for the position equations
DEG_PER_RAD = 180.0 / math.pi
RAD_PER_DEG = math.pi / 180.0
STEP_S = 60.0


class LeftSource(Exception):
    """An evaluation fell outside the source's coverage (time or place)."""


# --- the integrator, independent of any data --------------------------------------------------------------------

def rk4_step(deriv, t, y, h):
    """Classical RK4; intermediate longitudes are not wrapped, the result's longitude is taken mod 360."""
    k1 = deriv(t, y)
    k2 = deriv(t + h / 2, [y[i] + (h / 2) * k1[i] for i in range(3)])
    k3 = deriv(t + h / 2, [y[i] + (h / 2) * k2[i] for i in range(3)])
    k4 = deriv(t + h, [y[i] + h * k3[i] for i in range(3)])
    y1 = [y[i] + (h / 6) * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]) for i in range(3)]
    y1[1] %= 360.0
    return y1


def interpolate(t0, y0, y1, f, h, alt=None):
    """The state a fraction f of the way from y0 (at t0) to y1, longitude along the short way round."""
    lat = y0[0] + f * (y1[0] - y0[0])
    dlon = ((y1[1] - y0[1] + 540.0) % 360.0) - 180.0
    lon = (y0[1] + f * dlon) % 360.0
    if alt is None:
        alt = y0[2] + f * (y1[2] - y0[2])
    return t0 + f * h, [lat, lon, alt]


class ReachAltitude:
    """Ascent ends when alt >= target; the end sits exactly on the target."""

    def __init__(self, target):
        self.target = target

    def start(self, t, y):
        return None

    def check(self, t0, y0, t1, y1, h):
        if y1[2] >= self.target:
            f = (self.target - y0[2]) / (y1[2] - y0[2])
            return interpolate(t0, y0, y1, f, h, alt=self.target)
        return None


class ReachTime:
    """Float ends when t >= stop."""

    def __init__(self, stop):
        self.stop = stop

    def start(self, t, y):
        # Already at or past the stop time when the stage starts: the stage is its start point alone.
        return (t, y) if t >= self.stop else None

    def check(self, t0, y0, t1, y1, h):
        if t1 >= self.stop:
            return interpolate(t0, y0, y1, (self.stop - t0) / h, h)
        return None


class ReachGround:
    """Descent ends where alt - ground crosses 0, ground looked up at each state (may raise LeftSource)."""

    def __init__(self, ground):
        self.ground = ground
        self.d0 = None

    def start(self, t, y):
        self.d0 = y[2] - self.ground(t, y[0], y[1])
        return None

    def check(self, t0, y0, t1, y1, h):
        d1 = y1[2] - self.ground(t1, y1[0], y1[1])
        if d1 <= 0:
            f = self.d0 / (self.d0 - d1)
            return interpolate(t0, y0, y1, f, h)
        self.d0 = d1
        return None


def solve(deriv, terminator, t0, y0, h=STEP_S):
    """Integrate one stage. Returns (points [(t, [lat, lon, alt])], left_source).

    points: the start, every step's state, and the end, which replaces the step that crossed it. When an
    evaluation leaves the source, the stage stops at the last state already in points (left_source True).
    """
    points = [(t0, list(y0))]
    try:
        end = terminator.start(t0, y0)
    except LeftSource:
        return points, True
    if end is not None:
        return points, False
    t, y = t0, list(y0)
    while True:
        try:
            y1 = rk4_step(deriv, t, y, h)
            t1 = t + h
            end = terminator.check(t, y, t1, y1, h)
        except LeftSource:
            return points, True
        if end is not None:
            points.append((end[0], end[1]))
            return points, False
        points.append((t1, y1))
        t, y = t1, y1


# --- the physics on GFS data ------------------------------------------------------------------------------------

def nasa_density(h):
    """NASA standard-atmosphere density (kg/m3) as Tawhiri uses it (§7): h in m, T in C, p in kPa."""
    if h > 25000:
        t = -131.21 + 0.00299 * h
        p = 2.488 * ((t + 273.1) / 216.6) ** -11.388
    elif h > 11000:
        t = -56.46
        p = 22.65 * math.exp(1.73 - 0.000157 * h)
    else:
        t = 15.04 - 0.00649 * h
        p = 101.29 * ((t + 273.1) / 288.08) ** 5.256
    return p / (0.2869 * (t + 273.1))


class GfsAir:
    """Wind, density and terrain from the samples reference; counts clamped evaluations."""

    def __init__(self, sampler):
        self.sampler = sampler
        self.clamped = 0

    def sample(self, t, lat, lon, alt):
        r = self.sampler.sample(lat, lon % 360.0, alt, t * 1000.0, 'msl', None, 'linear', clamp=True)
        if r['status'] == 'outside_source_coverage':
            raise LeftSource()
        if r['status'] != 'ok':
            raise SystemExit(f'{r["status"]} at {lat},{lon},{alt} t={t}: not handled by this reference')
        if r['clamped']:
            self.clamped += 1
        return r['values']

    def ground(self, t, lat, lon):
        status, g = self.sampler.terrain(lat, lon % 360.0, t * 1000.0)
        if status == 'outside_source_coverage':
            raise LeftSource()
        if status is not None:
            raise SystemExit(f'{status} for the terrain at {lat},{lon}: not handled by this reference')
        return g


def stage_deriv(air, vertical):
    """dy/dt for a stage; vertical(alt, values) -> dalt/dt."""
    def deriv(t, y):
        lat, lon, alt = y
        vals = air.sample(t, lat, lon, alt)
        dlat = DEG_PER_RAD * vals['wind_v_ms'] / (R_EARTH + alt)
        dlon = DEG_PER_RAD * vals['wind_u_ms'] / ((R_EARTH + alt) * math.cos(lat * RAD_PER_DEG))
        return [dlat, dlon, vertical(alt, vals)]
    return deriv


def fly(req, air):
    profile = req.get('profile') or 'standard_profile'
    t0 = sr.parse_time_ms(req['launch_datetime']) / 1000.0
    lat0 = float(req['launch_latitude'])
    lon0 = float(req['launch_longitude']) % 360.0
    try:
        launch_alt = req.get('launch_altitude')
        launch_alt = air.ground(t0, lat0, lon0) if launch_alt is None else float(launch_alt)
        status, _, _ = air.sampler.weighted_columns(lat0, lon0, t0 * 1000.0)
        if status == 'outside_source_coverage':
            raise LeftSource()
    except LeftSource:
        return {'error': 'outside_source_coverage'}
    ascent_rate = float(req['ascent_rate'])
    model_density = req.get('descent_density') == 'model'

    stages = []
    if profile == 'standard_profile':
        descent_rate = float(req['descent_rate'])
        if model_density:
            def descend(alt, vals):
                return -descent_rate * 1.1045 / math.sqrt(vals['density_kg_m3'])
        else:
            def descend(alt, vals):
                return -descent_rate * 1.1045 / math.sqrt(nasa_density(alt))
        stages.append(('ascent', lambda alt, vals: ascent_rate, ReachAltitude(float(req['burst_altitude']))))
        stages.append(('descent', descend, ReachGround(air.ground)))
    elif profile == 'float_profile':
        stop = sr.parse_time_ms(req['stop_datetime']) / 1000.0
        stages.append(('ascent', lambda alt, vals: ascent_rate, ReachAltitude(float(req['float_altitude']))))
        stages.append(('float', lambda alt, vals: 0.0, ReachTime(stop)))
    else:
        raise SystemExit(f'unknown profile {profile!r}')

    prediction = []
    left = False
    t, y = t0, [lat0, lon0, launch_alt]
    for name, vertical, terminator in stages:
        points, left = solve(stage_deriv(air, vertical), terminator, t, y)
        prediction.append({'stage': name, 'trajectory': [point(tp, yp) for tp, yp in points]})
        t, y = points[-1]
        if left:
            break
    warnings = {}
    if air.clamped:
        warnings['altitude_outside_column'] = {'count': air.clamped}
    if left:
        warnings['left_source_coverage'] = {'count': 1}
    return {'prediction': prediction, 'warnings': warnings, 'launch_altitude': launch_alt}


def format_instant(t):
    """UTC RFC 3339; milliseconds only when the instant (rounded to the nearest ms) is not a whole second."""
    ms = math.floor(t * 1000.0 + 0.5)
    s, rest = divmod(ms, 1000)
    base = time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(s))
    return f'{base}.{rest:03d}Z' if rest else f'{base}Z'


def point(t, y):
    return {'datetime': format_instant(t), 'latitude': y[0], 'longitude': y[1], 'altitude': y[2], 't': t}


# --- self-test --------------------------------------------------------------------------------------------------

def self_test(data):
    failures = 0

    def check(name, cond, detail):
        nonlocal failures
        failures += not cond
        print(f'{"ok  " if cond else "FAIL"} {name}: {detail}')

    # Synthetic calm air: position fixed, ascent time exactly (burst - launch) / rate.
    def calm(rate):
        return lambda t, y: [0.0, 0.0, rate]
    # From t0 = 0 the end time is exact up to rounding of f*h; from an epoch instant (~1.6e9 s) the end instant
    # is also rounded to that instant's float spacing (2.4e-7 s), so the duration is exact only to that.
    for launch, burst, rate in ((100.0, 30000.0, 5.0), (0.0, 33000.0, 5.0), (92.7, 28000.0, 4.5),
                                (250.0, 30000.0, 6.0), (0.0, 1000.0, 3.0)):
        want = (burst - launch) / rate
        for t0 in (0.0, 1596542400.0):
            pts, left = solve(calm(rate), ReachAltitude(burst), t0, [52.0, 21.0, launch])
            dur = pts[-1][0] - t0
            tol = 4 * math.ulp(want) if t0 == 0 else 2 * math.ulp(t0 + want)
            check(f'calm ascent {launch}->{burst} at {rate}, t0={t0:.0f}', not left and pts[-1][1][2] == burst
                  and pts[-1][1][:2] == [52.0, 21.0] and abs(dur - want) <= tol,
                  f'duration {dur!r} s, (burst-launch)/rate {want!r}, exact {dur == want}, '
                  f'difference {dur - want:.3g} s, {len(pts)} points')
    # Synthetic constant eastward wind across the antimeridian: the interpolated end takes the short way.
    pts, _ = solve(lambda t, y: [0.0, 0.01, 5.0], ReachAltitude(1000.0), 0.0, [0.0, 359.9, 0.0])
    check('longitude wraps', all(0 <= p[1][1] < 360 for p in pts) and abs(pts[-1][1][1] - 1.9) < 1e-9,
          f'end longitude {pts[-1][1][1]!r} (359.9 + 200 s x 0.01 deg/s = 1.9)')
    # Synthetic descent over flat ground at 0 m with a constant rate: lands at t = alt / rate.
    pts, _ = solve(lambda t, y: [0.0, 0.0, -5.0], ReachGround(lambda t, lat, lon: 0.0), 0.0, [0.0, 0.0, 1234.0])
    check('calm descent to flat ground', pts[-1][1][2] == 0.0 and abs(pts[-1][0] - 1234.0 / 5.0) < 1e-9,
          f'end {pts[-1][0]!r} s altitude {pts[-1][1][2]!r}')
    # NASA density continuity at the layer limits (Tawhiri's formula is nearly but not exactly continuous).
    print(f'     nasa density: 0 m {nasa_density(0):.6f}, 11 km {nasa_density(11000):.6f}/'
          f'{nasa_density(11000.001):.6f}, 25 km {nasa_density(25000):.6f}/{nasa_density(25000.001):.6f}')

    if data:
        sampler = sr.Sampler(sr.Catalog(data))
        base = {'launch_latitude': 52.2297, 'launch_longitude': 21.0122, 'launch_datetime': '2020-08-04T12:00:00Z',
                'ascent_rate': 5.0}
        flights = {
            'warsaw standard': dict(base, burst_altitude=30000.0, descent_rate=5.0),
            'warsaw standard, model density': dict(base, burst_altitude=30000.0, descent_rate=5.0,
                                                   descent_density='model'),
            'warsaw float': dict(base, profile='float_profile', float_altitude=15000.0,
                                 stop_datetime='2020-08-04T16:00:00Z'),
            # The data end at 2020-08-05T00Z, but the nearest-time rule serves that unit up to 03:00Z inclusive.
            'warsaw launch 23Z': dict(base, launch_datetime='2020-08-04T23:00:00Z', burst_altitude=30000.0,
                                      descent_rate=5.0),
            'warsaw launch 01:30Z': dict(base, launch_datetime='2020-08-05T01:30:00Z', burst_altitude=30000.0,
                                         descent_rate=5.0),
            'east edge float': dict(base, launch_latitude=52.0, launch_longitude=24.5, profile='float_profile',
                                    float_altitude=15000.0, stop_datetime='2020-08-04T16:00:00Z'),
        }
        for name, req in flights.items():
            out = fly(req, GfsAir(sampler))
            last = out['prediction'][-1]['trajectory'][-1]
            first = out['prediction'][0]['trajectory'][0]
            stages = ', '.join(f'{s["stage"]} {len(s["trajectory"])} pts -> {s["trajectory"][-1]["datetime"]} '
                               f'alt {s["trajectory"][-1]["altitude"]:.1f}' for s in out['prediction'])
            hours = (last['t'] - first['t']) / 3600
            inside = 48 <= last['latitude'] <= 56 and 13 <= last['longitude'] <= 25
            print(f'     {name}: launch alt {out["launch_altitude"]:.3f}; {stages}; end {last["latitude"]:.5f}, '
                  f'{last["longitude"]:.5f} after {hours:.3f} h; warnings {out["warnings"]}')
            if name.startswith('warsaw standard'):
                check(name, inside and 2 <= hours <= 3 and 'left_source_coverage' not in out['warnings']
                      and [s['stage'] for s in out['prediction']] == ['ascent', 'descent'],
                      'lands inside the region after 2-3 h')
            elif name == 'warsaw float':
                check(name, last['t'] == 1596556800.0 or abs(last['t'] - 1596556800.0) < 1e-6,
                      f'ends at stop time (t = {last["t"]!r}) at {last["altitude"]!r} m')
            elif name == 'warsaw launch 23Z':
                check(name, 'left_source_coverage' not in out['warnings'] and last['altitude'] < 1000,
                      f'lands at {last["datetime"]}, before 03:00Z: no left_source_coverage')
            elif name == 'warsaw launch 01:30Z':
                check(name, out['warnings'].get('left_source_coverage') == {'count': 1} and
                      last['t'] <= 1596596400.0 and last['t'] + 3 * STEP_S > 1596596400.0,
                      f'left the source in time, last point {last["datetime"]}')
            else:
                check(name, out['warnings'].get('left_source_coverage') == {'count': 1} and
                      last['longitude'] <= 25.0, f'left the source in place, last point {last["longitude"]}E')
    print('self-test ' + ('passed' if failures == 0 else f'FAILED ({failures})'))
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--data')
    ap.add_argument('--max-time-offset-hours', type=float, default=3.0)
    ap.add_argument('--decoded', choices=('float32', 'float64'), default='float32',
                    help='precision decoded GRIB values are kept in (default float32, as the engine)')
    ap.add_argument('--self-test', action='store_true')
    args = ap.parse_args()
    sr.DECODED_AS_FLOAT32 = args.decoded == 'float32'
    if args.self_test:
        sys.exit(1 if self_test(args.data) else 0)
    if not args.data:
        ap.error('--data is required')
    req = json.load(sys.stdin)
    out = fly(req, GfsAir(sr.Sampler(sr.Catalog(args.data), args.max_time_offset_hours)))
    json.dump(out, sys.stdout, allow_nan=False)
    sys.stdout.write('\n')
    sys.exit(2 if 'error' in out else 0)


if __name__ == '__main__':
    main()
