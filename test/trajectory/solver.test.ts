// The solver on synthetic air whose answer is known in closed form (docs/DESIGN.md §7): calm air,
// uniform winds, a wind reversing with height, exact stage ends, leaving the source.
import t from 'tap'
import { fly, type FlightSpec } from '../../src/trajectory/solver.js'
import { AIR_OK, AIR_OUTSIDE, AIR_UNUSABLE, type Air, type AirBatch } from '../../src/trajectory/air-batch.js'
import type { Stage } from '../../src/trajectory/stages.js'
import { EARTH_RADIUS_M, nasaDensity, descentRate } from '../../src/trajectory/models.js'

const DEG = 180 / Math.PI

/** Air with winds u(alt), v(alt), flat ground, standard density, inside everywhere unless `outside` says. */
function synthetic (o: {
  u?: (alt: number) => number
  v?: (alt: number) => number
  ground?: number
  outside?: (lat: number, lon: number, t: number) => boolean
  calls?: number[]
}): Air {
  return (b: AirBatch) => {
    o.calls?.push(b.n)
    for (let k = 0; k < b.n; k++) {
      b.status[k] = o.outside?.(b.latitude[k], b.longitude[k], b.t[k]) === true ? AIR_OUTSIDE : AIR_OK
      b.u[k] = o.u?.(b.altitude[k]) ?? 0
      b.v[k] = o.v?.(b.altitude[k]) ?? 0
      b.ground[k] = o.ground ?? 0
      b.density[k] = nasaDensity(b.altitude[k])
      b.clamped[k] = b.altitude[k] > 40_000 ? 1 : 0
    }
  }
}

function spec (stages: Stage[], over: Partial<FlightSpec> = {}): FlightSpec {
  return { t: 0, latitude: 52, longitude: 21, altitude: 100, stages, record: true, ...over }
}

const at = (points: number[], k: number): number[] => points.slice(4 * k, 4 * k + 4)
const last = (points: number[]): number[] => points.slice(points.length - 4)

t.test('calm air: the ascent lasts (burst − launch) / rate, ending exactly at the burst altitude', async (t) => {
  for (const [launch, burst, rate] of [[100, 30000, 5], [0, 33000, 5], [92.7, 28000, 4.5], [0, 1000, 3]]) {
    const [f] = await fly([spec([{ kind: 'ascent', rate, altitude: burst }], { altitude: launch })], synthetic({}))
    const end = last(f.stages[0].points)
    t.equal(f.end, 'complete')
    t.equal(end[3], burst, 'ends on the burst altitude')
    t.ok(Math.abs(end[0] - (burst - launch) / rate) < 1e-9, `duration ${end[0]} s`)
    t.same([end[1], end[2]], [52, 21], 'no wind, no drift')
    // the start, a state every 60 s, and the end replacing the step that crossed
    t.equal(f.stages[0].points.length / 4, Math.ceil((burst - launch) / rate / 60) + 1)
  }
})

t.test('calm air: the descent lasts the integral of the drag law, landing on the ground', async (t) => {
  const from = 30_000
  const ground = 150
  const [f] = await fly([spec([{ kind: 'descent', seaLevelRate: 5, modelDensity: false }], { altitude: from })],
    synthetic({ ground }))
  // ∫ dz / |dalt/dt| by Simpson's rule on a fine grid, piecewise between the layers' kinks
  let want = 0
  for (const [a, b] of [[ground, 11_000], [11_000, 25_000], [25_000, from]]) {
    const n = 20_000
    const h = (b - a) / n
    const g = (z: number): number => -1 / descentRate(5, nasaDensity(z))
    let s = g(a) + g(b)
    for (let k = 1; k < n; k++) s += (k % 2 === 1 ? 4 : 2) * g(a + k * h)
    want += s * h / 3
  }
  const end = last(f.stages[0].points)
  t.ok(Math.abs(end[3] - ground) < 1e-6, `lands on the ground (${end[3]} m)`)
  t.ok(Math.abs(end[0] - want) < 0.5, `descent ${end[0].toFixed(3)} s, integral ${want.toFixed(3)} s`)
})

t.test('a uniform zonal wind: the displacement of the wind equations', async (t) => {
  const u = 10
  const alt = 12_000
  const [f] = await fly([spec([{ kind: 'float', stop: 7200 }], { altitude: alt })], synthetic({ u: () => u }))
  const end = last(f.stages[0].points)
  const want = 21 + DEG * u * 7200 / ((EARTH_RADIUS_M + alt) * Math.cos(52 * Math.PI / 180))
  t.ok(Math.abs(end[2] - want) < 1e-9, `longitude ${end[2]} vs ${want}`)
  t.equal(end[1], 52, 'latitude unchanged')
  t.equal(end[0], 7200, 'the float ends exactly at its stop time')
})

t.test('a uniform meridional wind: the displacement of the wind equations', async (t) => {
  const v = -7
  const alt = 5000
  const [f] = await fly([spec([{ kind: 'float', stop: 3600 }], { altitude: alt })], synthetic({ v: () => v }))
  const end = last(f.stages[0].points)
  t.ok(Math.abs(end[1] - (52 + DEG * v * 3600 / (EARTH_RADIUS_M + alt))) < 1e-9, `latitude ${end[1]}`)
})

t.test('a wind reversing with height: what the ascent gains below it loses above', async (t) => {
  const top = 20_000
  const u = (alt: number): number => 15 * Math.cos(Math.PI * alt / top)
  const [f] = await fly([spec([{ kind: 'ascent', rate: 5, altitude: top }], { altitude: 0, latitude: 0 })],
    synthetic({ u }))
  const points = f.stages[0].points
  const east = Math.max(...points.filter((_, k) => k % 4 === 2).map((lon) => ((lon - 21 + 540) % 360) - 180))
  const end = last(points)
  t.ok(east > 0.1, `drifts east ${east}° on the way`)
  // dlon = (180/π) ∫ u(z) / (R + z) dt with z = 5 t: nearly, not exactly, back (R + z grows); RK4 at 60 s
  // steps follows it to its truncation error, about 1e-7° here
  const n = 100_000
  const h = top / 5 / n
  const g = (time: number): number => u(5 * time) / (EARTH_RADIUS_M + 5 * time)
  let sum = g(0) + g(top / 5)
  for (let k = 1; k < n; k++) sum += (k % 2 === 1 ? 4 : 2) * g(k * h)
  const want = DEG * sum * h / 3
  t.ok(Math.abs(want) < 1e-2 * east, 'the closed form comes back within 1 % of the excursion')
  t.ok(Math.abs((end[2] - 21) - want) < 1e-6, `and so does the flight (${end[2] - 21}° vs ${want}°)`)
})

t.test('stages chain: each starts at the previous one\'s exact end', async (t) => {
  const [f] = await fly([spec([{ kind: 'ascent', rate: 5, altitude: 1000 }, { kind: 'float', stop: 1000 }])],
    synthetic({ u: () => 5 }))
  t.same(f.stages.map((s) => s.stage), ['ascent', 'float'])
  t.same(at(f.stages[1].points, 0), last(f.stages[0].points))
  t.equal(last(f.stages[1].points)[0], 1000)
  t.equal(last(f.stages[1].points)[3], 1000, 'floats at the ascent\'s end altitude')
})

t.test('a float whose stop time has passed by the end of the ascent is its start alone', async (t) => {
  const [f] = await fly([spec([{ kind: 'ascent', rate: 5, altitude: 1000 }, { kind: 'float', stop: 10 }])],
    synthetic({}))
  t.equal(f.stages[1].points.length, 4)
  t.equal(f.end, 'complete')
})

t.test('the longitude stays in [0, 360) across the antimeridian, the end taking the short way', async (t) => {
  const [f] = await fly([spec([{ kind: 'ascent', rate: 5, altitude: 3000 }], { longitude: 359.99, latitude: 0 })],
    synthetic({ u: () => 20 }))
  const lons = f.stages[0].points.filter((_, k) => k % 4 === 2)
  t.ok(lons.every((l) => l >= 0 && l < 360))
  t.ok(lons.at(-1) as number < 1, `ends east of 0° (${lons.at(-1)})`)
})

t.test('leaving the source ends the flight at the last state evaluated', async (t) => {
  const outside = (_lat: number, lon: number): boolean => lon > 21.05 && lon < 180
  const [f] = await fly([spec([{ kind: 'ascent', rate: 5, altitude: 30000 }])], synthetic({ u: () => 20, outside }))
  t.equal(f.end, 'left_source_coverage')
  const end = last(f.stages[0].points)
  t.ok(end[2] <= 21.05, 'the last state is inside')
  t.ok(end[3] < 30000)
})

t.test('a descent end below the ground found outside the source is not kept', async (t) => {
  // the ground check of a descent state is its next evaluation: outside there, the state is dropped
  const outside = (_lat: number, _lon: number, time: number): boolean => time > 125
  const [f] = await fly([spec([{ kind: 'descent', seaLevelRate: 5, modelDensity: false }], { altitude: 5000 })],
    synthetic({ outside }))
  t.equal(f.end, 'left_source_coverage')
  t.equal(last(f.stages[0].points)[0], 120, 'ends at the last state whose ground was found')
})

t.test('an unusable column ends the flight with its own reason', async (t) => {
  const air: Air = (b) => {
    synthetic({})(b)
    for (let k = 0; k < b.n; k++) if (b.altitude[k] > 2000) b.status[k] = AIR_UNUSABLE
  }
  const [f] = await fly([spec([{ kind: 'ascent', rate: 5, altitude: 30000 }])], air)
  t.equal(f.end, 'unusable_source_column')
})

t.test('clamped evaluations are counted', async (t) => {
  const [f] = await fly([spec([{ kind: 'ascent', rate: 10, altitude: 41_200 }])], synthetic({}))
  // states every 600 m from 100 m; evaluations above 40 km: the k4 of the step from 39 700 m, all
  // four of the steps from 40 300 m and from 40 900 m (which crosses 41 200 m and ends the stage)
  t.equal(f.clamped, 9)
})

t.test('flights step together: one evaluation per RK4 stage, landed ones dropping out', async (t) => {
  const calls: number[] = []
  const stages = (burst: number): Stage[] => [{ kind: 'ascent', rate: 5, altitude: burst },
    { kind: 'descent', seaLevelRate: 5, modelDensity: false }]
  const specs = [spec(stages(3000)), spec(stages(6000)), spec(stages(1200))]
  const together = await fly(specs, synthetic({ u: (a) => a / 1000, calls }))
  t.ok(calls[0] === 3 && calls.at(-1) === 1, `batches shrink as flights land (${calls[0]} … ${calls.at(-1)})`)
  for (const [k, s] of specs.entries()) {
    const [alone] = await fly([s], synthetic({ u: (a) => a / 1000 }))
    t.same(together[k], alone, `flight ${k} flies as it would alone`)
  }
})

t.test('unrecorded flights keep each stage\'s start and end', async (t) => {
  const stages: Stage[] = [{ kind: 'ascent', rate: 5, altitude: 3000 },
    { kind: 'descent', seaLevelRate: 5, modelDensity: true }]
  const [kept] = await fly([spec(stages)], synthetic({ u: () => 3 }))
  const [bare] = await fly([spec(stages, { record: false })], synthetic({ u: () => 3 }))
  t.same(bare.stages.map((s) => s.points), kept.stages.map((s) => [...at(s.points, 0), ...last(s.points)]))
})

t.test('stepped back in time (reverse_profile): a uniform wind carries it back upwind, to the ground', async (t) => {
  const u = 10
  const [f] = await fly([spec([{ kind: 'reverse', rate: 5 }], { t: 10_000, altitude: 3100 })],
    synthetic({ u: () => u, ground: 100 }), -60)
  const end = last(f.stages[0].points)
  t.equal(f.end, 'complete')
  t.ok(Math.abs(end[3] - 100) < 1e-6, `on the ground (${end[3]} m)`)
  t.ok(Math.abs(end[0] - (10_000 - 3000 / 5)) < 1e-6, `risen for ${10_000 - end[0]} s before it was seen`)
  t.ok(end[2] < 21, 'west of where it was seen, the wind blowing east')
})
