// Whole flights on the bundled real GFS sample held against scripts/trajectory-reference.py
// (ecCodes + plain Python, written apart from the engine): every point within 1e-5° and 0.5 m,
// the same instants, stages and warnings (test/fixtures/trajectory/golden.json, made by
// scripts/trajectory-golden.py). Then ensembles on the same data.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { startTestService } from '../helpers/service.js'
import { validatorFor } from '../../src/contract/validate.js'
import { type FlightOutcome, TrajectoryResponse } from '../../src/contract/trajectory.js'
import { END_NAMES, geojson } from '../../src/trajectory/formats.js'
import { greatCircleKm } from '../../src/trajectory/models.js'
import { repoUrl } from '../helpers/paths.js'
import { sameFlight, type FlightCase } from '../helpers/golden.js'

const cases = JSON.parse(readFileSync(repoUrl('test/fixtures/trajectory/golden.json'), 'utf8')) as FlightCase[]
const isResponse = validatorFor(TrajectoryResponse)

/** The outcome the reference's flight implies: leaving the data is its warning, else how the profile ends. */
function outcomeOf (c: FlightCase): FlightOutcome {
  if (c.expected.warnings.left_source_coverage !== undefined) return 'left_source_coverage'
  return c.request.profile === 'float_profile' ? 'float_ended' : 'landed'
}

t.test('flights equal the reference, point by point', async (t) => {
  const service = await startTestService(t)
  const { key } = await service.newAccount()
  for (const c of cases) {
    t.test(c.name, async (t) => {
      const res = await fetch(`${service.url}/v1/atmosphere/trajectory`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(c.request)
      })
      const body = await res.json() as TrajectoryResponse
      t.equal(res.status, 200, JSON.stringify(body).slice(0, 300))
      t.ok(isResponse(body), 'a TrajectoryResponse')
      sameFlight(t, body, c.expected)
      t.equal(body.outcome, outcomeOf(c), 'says how it ended')
      const names = (geojson(body) as { features: Array<{ properties: { name: string } }> }).features
        .map((f) => f.properties.name)
      t.equal(names.at(-1), END_NAMES[body.outcome], 'the last point is named for how it ended')
      if (body.outcome !== 'landed') t.notOk(names.includes('landing'), 'no landing where it did not land')
    })
  }
})

t.test('the GET form answers the same flight', async (t) => {
  const service = await startTestService(t)
  const { key } = await service.newAccount()
  const c = cases[0]
  const query = new URLSearchParams(Object.entries(c.request).map(([k, v]): [string, string] => [k, String(v)]))
  const [viaGet, viaPost] = await Promise.all([
    fetch(`${service.url}/v1/atmosphere/trajectory?${query.toString()}`, { headers: { 'x-api-key': key } }),
    fetch(`${service.url}/v1/atmosphere/trajectory`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(c.request)
    })
  ])
  t.equal(viaGet.status, 200)
  const a = await viaGet.json() as TrajectoryResponse
  const b = await viaPost.json() as TrajectoryResponse
  t.same(a.prediction, b.prediction)
  t.same(a.request, b.request)
})

t.test('the answer echoes the request with its defaults, Tawhiri-style', async (t) => {
  const service = await startTestService(t)
  const { key } = await service.newAccount()
  const res = await fetch(`${service.url}/v1/atmosphere/trajectory`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ ...cases[0].request, launch_longitude: 21.0122 - 360,
      launch_datetime: '2020-08-04T14:00:00+02:00' })
  })
  const body = await res.json() as TrajectoryResponse
  t.equal(res.status, 200)
  t.same(body.request, {
    profile: 'standard_profile', launch_latitude: 52.2297, launch_longitude: 21.0122 - 360 + 360,
    launch_datetime: '2020-08-04T12:00:00Z', launch_altitude: body.request.launch_altitude,
    ascent_rate: 5, burst_altitude: 30000, descent_rate: 5, descent_density: 'nasa',
    dataset: '2020-08-04T12:00:00Z', version: 1
  })
  t.ok(Math.abs(body.request.launch_altitude - cases[0].expected.launch_altitude) < 1e-6, 'the model terrain')
  t.ok(Date.parse(body.metadata.complete_datetime) >= Date.parse(body.metadata.start_datetime), 'metadata')
  t.same(body.provenance.units.map((u) => u.forecast_hour), [0, 6], 'the units the flight read')
  t.ok(body.provenance.units.every((u) => /^[0-9a-f]{64}$/.test(u.source_sha256 ?? '')), 'each with its sha256')
  t.match(body.provenance, { solver: /rk4/, descent_model: /nasa/, spatial_interpolation: String })
})

t.test('a pinned dataset flies on that run only', async (t) => {
  const service = await startTestService(t)
  const { key } = await service.newAccount()
  const res = await fetch(`${service.url}/v1/atmosphere/trajectory`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ ...cases[0].request, dataset: '2020-08-04T12:00:00Z' })
  })
  const body = await res.json() as TrajectoryResponse
  t.equal(res.status, 200)
  t.equal(body.request.dataset, '2020-08-04T12:00:00Z')
  t.ok(body.provenance.units.every((u) => u.model_run_at === '2020-08-04T12:00:00Z'))
})

t.test('ensembles', async (t) => {
  const service = await startTestService(t)
  const { key } = await service.newAccount()
  const ensemble = { members: 40, ascent_rate_sd: 0.5, burst_altitude_sd: 2000, descent_rate_sd: 0.5, seed: 11 }
  const ask = async (extra: Record<string, unknown>): Promise<TrajectoryResponse> => {
    const res = await fetch(`${service.url}/v1/atmosphere/trajectory`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ ...cases[0].request, ...extra })
    })
    t.equal(res.status, 200)
    return await res.json() as TrajectoryResponse
  }
  const single = await ask({})
  const first = await ask({ ensemble })
  const again = await ask({ ensemble })
  const other = await ask({ ensemble: { ...ensemble, seed: 12 } })
  const tracks = await ask({ ensemble: { ...ensemble, members: 5 }, member_trajectories: true })

  t.test('member 0 is the single flight', async (t) => {
    t.same(first.prediction, single.prediction)
    const m0 = first.ensemble?.members[0]
    t.match(m0, { ascent_rate: 5, burst_altitude: 30000, descent_rate: 5, outcome: 'landed' })
    t.same(m0?.landing, single.prediction[1].trajectory.at(-1))
    t.same(m0?.burst, single.prediction[1].trajectory[0])
  })
  t.test('the same seed gives the same members; another seed others', async (t) => {
    t.same(again.ensemble, first.ensemble)
    t.notSame(other.ensemble?.members.slice(1), first.ensemble?.members.slice(1))
    const members = first.ensemble?.members ?? []
    t.equal(members.length, 40)
    t.ok(members.every((m) => m.ascent_rate > 0 && m.descent_rate > 0 &&
      m.burst_altitude > first.request.launch_altitude),
      'every value valid')
    t.ok(new Set(members.map((m) => m.burst_altitude)).size > 30, 'perturbed')
  })
  t.test('the landing statistics come from the members', async (t) => {
    const landed = (first.ensemble?.members ?? []).flatMap((m) => m.landing === null ? [] : [m.landing])
    const spread = first.ensemble?.landing
    t.ok(spread !== null && spread !== undefined)
    if (spread === null || spread === undefined) return
    t.equal(spread.members_landed, landed.length)
    // the mean by unit vectors is the plain mean to well within a metre over a few km
    const meanLat = landed.reduce((s, p) => s + p.latitude, 0) / landed.length
    const meanLon = landed.reduce((s, p) => s + p.longitude, 0) / landed.length
    t.ok(greatCircleKm(meanLat, meanLon, spread.mean_latitude, spread.mean_longitude) < 0.01, 'mean position')
    const d = landed.map((p) => greatCircleKm(spread.mean_latitude, spread.mean_longitude, p.latitude, p.longitude))
      .sort((a, b) => a - b)
    t.equal(spread.max_distance_km, d[d.length - 1])
    t.ok(spread.p50_distance_km >= d[Math.floor((d.length - 1) / 2)] &&
      spread.p50_distance_km <= d[Math.ceil((d.length - 1) / 2)])
    t.ok(spread.p95_distance_km <= spread.max_distance_km && spread.p95_distance_km >= spread.p50_distance_km)
  })
  t.test('every member\'s trajectory on request; member 0\'s alone by default', async (t) => {
    t.equal(first.ensemble?.member_predictions, undefined)
    const all = tracks.ensemble?.member_predictions ?? []
    t.equal(all.length, 5)
    t.same(all[0], single.prediction)
    all.forEach((stages, m) => t.same(stages[1].trajectory.at(-1), tracks.ensemble?.members[m].landing))
  })
})
