// Engine sessions (a flight's many small calls): a call over pieces the session holds answers at
// once, and exactly what the engine answers the same points; anything else (a piece not loaded,
// a catalog hour not read, too many units) is left to the engine and its checks.
import t from 'tap'
import { startTestService } from '../helpers/service.js'
import { startSampleUpstream } from '../helpers/upstream.js'
import type { SamplesEngine } from '../../src/samples/engine.js'
import { TooManyUnitsError } from '../../src/samples/cost.js'
import { OUT_COLUMNS, type HeldSamples } from '../../src/samples/result.js'
import type { SampleOptions, SamplePoints } from '../../src/samples/points.js'

const OPTIONS: SampleOptions = {
  interpolation: 'linear', altitudeReference: 'msl', clamp: true, fields: ['wind_u_ms', 'wind_v_ms']
}

/** [latitude, longitude, altitude, ISO time] per point. */
function pointsOf (list: Array<[number, number, number, string]>): SamplePoints {
  return {
    n: list.length,
    latitude: Float64Array.from(list, (p) => p[0]),
    longitude: Float64Array.from(list, (p) => p[1]),
    altitude: Float64Array.from(list, (p) => p[2]),
    time: Float64Array.from(list, (p) => Date.parse(p[3])),
    ground: new Float64Array(list.length).fill(NaN)
  }
}

/** The numbers of an answer, NaN as null (so tap compares them exactly). */
function numbers (r: HeldSamples): unknown[] {
  const out = Array.from(r.out.subarray(0, r.n * OUT_COLUMNS), (x) => Number.isNaN(x) ? null : x)
  return [[...r.status.subarray(0, r.n)], [...r.clamped.subarray(0, r.n)], out]
}

/** The engine of a service on the sample files, through the grib filter (1° tiles) or as a mirror. */
async function engineOf (
  env: Record<string, string>, filter: boolean
): Promise<{ engine: SamplesEngine, accountId: string }> {
  const source: Record<string, string> = {}
  if (filter) source.ALOFT_SOURCE = `filter:${(await startSampleUpstream(t)).server.filterUrl}`
  const svc = await startTestService(t, { env: { ...source, ...env } })
  return { engine: svc.samples as SamplesEngine, accountId: (await svc.newAccount()).accountId }
}

t.test('held calls answer what the engine answers, across tile edges, hours and heights', async (t) => {
  // 1° tiles: the walk crosses a tile edge every few calls, so the session comes to hold many pieces
  const { engine, accountId } = await engineOf({ ALOFT_TILE_DEGREES: '1', ALOFT_SAMPLES_MAX_UNITS: '64' }, true)
  const session = engine.session(OPTIONS, accountId)
  const first = pointsOf([[51.9, 20.9, 100, '2020-08-04T13:00:00Z']])
  t.equal(session.sampleHeld(first), null, 'nothing held before the first call')
  await session.sample(first)
  let held = 0
  for (let k = 0; k < 60; k++) {
    const at = (m: number): string => new Date(Date.parse('2020-08-04T13:00:00Z') + m * 60_000).toISOString()
    const lat = 51.9 + k * 0.02
    const lon = 20.9 + k * 0.03
    // one point, then three over two hours (as an ensemble's members), one of them high above the model's top
    const calls = [
      pointsOf([[lat, lon, 500 * k, at(2 * k)]]),
      pointsOf([[lat, lon, 300, at(2 * k + 50)], [lat + 0.01, lon, 40_000, at(2 * k + 70)],
        [lat, lon, 9000, at(2 * k)]])
    ]
    for (const points of calls) {
      const expected = await engine.sample(points, OPTIONS, accountId)
      const fast = session.sampleHeld(points)
      if (fast === null) {
        t.same(numbers(await session.sample(points)), numbers(expected), `call ${k}: the engine's`)
        t.not(session.sampleHeld(points), null, `call ${k}: held once its pieces are loaded`)
      } else {
        held++
        t.same(numbers(fast), numbers(expected), `call ${k}: held, the same numbers`)
      }
    }
  }
  t.ok(held > 80, `most calls held (${held} of 120)`)

  // a point outside the source's time: no piece read, the engine's status
  const never = pointsOf([[52, 21, 100, '2019-01-01T00:00:00Z']])
  t.equal(session.sampleHeld(never), null, 'a catalog hour not read yet')
  const outside = await session.sample(never)
  t.same(numbers(session.sampleHeld(never) as HeldSamples), numbers(outside), 'then outside_source, held')
})

t.test('off the mirror\'s grid: outside_source, held', async (t) => {
  const { engine, accountId } = await engineOf({}, false)
  const session = engine.session(OPTIONS, accountId)
  const points = pointsOf([[52, 21, 1000, '2020-08-04T13:00:00Z'], [10, 21, 1000, '2020-08-04T13:00:00Z']])
  const first = numbers(await session.sample(points))
  t.same(first[0], [0, 1], 'ok, outside_source')
  t.same(numbers(session.sampleHeld(points) as HeldSamples), first)
})

t.test('a held call needing more units than allowed is left to the engine, which refuses it', async (t) => {
  const { engine, accountId } = await engineOf({ ALOFT_SAMPLES_MAX_UNITS: '1' }, false)
  const session = engine.session(OPTIONS, accountId)
  // 12Z and 18Z each read one unit; 15Z blends both
  const between = pointsOf([[52, 21, 1000, '2020-08-04T15:00:00Z']])
  await session.sample(pointsOf([[52, 21, 1000, '2020-08-04T12:00:00Z']]))
  await t.rejects(session.sample(between), TooManyUnitsError)
  t.equal(session.sampleHeld(between), null, 'the hour read, 18Z not loaded')
  await session.sample(pointsOf([[52, 21, 1000, '2020-08-04T18:00:00Z']]))
  t.not(session.sampleHeld(pointsOf([[52, 21, 1000, '2020-08-04T18:00:00Z']])), null)
  t.equal(session.sampleHeld(between), null, 'both units held: still two units')
  await t.rejects(session.sample(between), TooManyUnitsError)
})
