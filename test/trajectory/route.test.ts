// The trajectory routes' refusals, costs and the CLI, on the bundled real GFS sample.
import t from 'tap'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestService, type TestService } from '../helpers/service.js'
import { run } from '../../src/cli/trajectory.js'

const WARSAW = {
  launch_latitude: 52.2297, launch_longitude: 21.0122, launch_datetime: '2020-08-04T12:00:00Z',
  ascent_rate: 5, burst_altitude: 30000, descent_rate: 5
}

interface Problem { status: number, code: string, detail: string, errors?: Array<{ loc: unknown[], type: string }> }

async function post (svc: TestService, key: string, body: unknown): Promise<{ status: number, body: Problem }> {
  const res = await fetch(`${svc.url}/v1/atmosphere/trajectory`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body)
  })
  return { status: res.status, body: await res.json() as Problem }
}

async function get (svc: TestService, key: string, query: string): Promise<{ status: number, body: Problem }> {
  const res = await fetch(`${svc.url}/v1/atmosphere/trajectory?${query}`, { headers: { 'x-api-key': key } })
  return { status: res.status, body: await res.json() as Problem }
}

async function attempts (svc: TestService, key: string): Promise<number> {
  const res = await fetch(`${svc.url}/v1/atmosphere/usage`, { headers: { 'x-api-key': key } })
  return (await res.json() as { upstream_attempts: number }).upstream_attempts
}

t.test('bad flights are clear 4xx problems naming the field, and charge nothing', async (t) => {
  const svc = await startTestService(t)
  const { key } = await svc.newAccount()
  const refused = async (body: unknown, loc: unknown[], status = 400): Promise<void> => {
    const r = await post(svc, key, body)
    t.equal(r.status, status, JSON.stringify(body))
    t.ok(r.body.errors?.some((e) => JSON.stringify(e.loc) === JSON.stringify(loc)),
      `${JSON.stringify(loc)} named: ${JSON.stringify(r.body.errors)}`)
  }
  await refused({ ...WARSAW, burst_altitude: undefined }, ['body', 'burst_altitude'])
  await refused({ ...WARSAW, profile: 'float_profile' }, ['body', 'float_altitude'])
  await refused({ ...WARSAW, profile: 'float_profile' }, ['body', 'stop_datetime'])
  await refused({ ...WARSAW, profile: 'float_profile', float_altitude: 9000, stop_datetime: '2020-08-04T11:00:00Z' },
    ['body', 'stop_datetime'])
  await refused({ ...WARSAW, profile: 'float_profile', float_altitude: 9000, stop_datetime: '2020-08-04T13:00:00Z',
    ensemble: { members: 3 } }, ['body', 'ensemble'])
  await refused({ ...WARSAW, ensemble: { members: 1001 } }, ['body', 'ensemble', 'members'])
  await refused({ ...WARSAW, ensemble: { members: 1 } }, ['body', 'ensemble', 'members'])
  await refused({ ...WARSAW, ascent_rate: 0 }, ['body', 'ascent_rate'])
  await refused({ ...WARSAW, descent_rate: -5 }, ['body', 'descent_rate'])
  await refused({ ...WARSAW, launch_latitude: 91 }, ['body', 'launch_latitude'])
  await refused({ ...WARSAW, launch_datetime: '2020-08-04T12:00:00' }, ['body', 'launch_datetime'])
  await refused({ ...WARSAW, colour: 'red' }, ['body', 'colour'])
  const nan = await get(svc, key, new URLSearchParams({ ...Object.fromEntries(Object.entries(WARSAW)
    .map(([k, v]) => [k, String(v)])), launch_longitude: 'NaN' }).toString())
  t.equal(nan.status, 400, 'a non-finite number in the query')
  t.same(nan.body.errors?.[0].loc, ['query', 'launch_longitude'])
  const inf = await get(svc, key, 'launch_latitude=52&launch_longitude=21&launch_datetime=2020-08-04T12:00:00Z' +
    '&ascent_rate=Infinity&burst_altitude=30000&descent_rate=5')
  t.equal(inf.status, 400)
  t.same(inf.body.errors?.[0].loc, ['query', 'ascent_rate'])
  const big = await get(svc, key, 'launch_latitude=52&launch_longitude=21&launch_datetime=2020-08-04T12:00:00Z' +
    '&ascent_rate=5&burst_altitude=30000&descent_rate=5&ensemble.members=5000&member_trajectories=maybe')
  t.equal(big.status, 400)
  t.same(big.body.errors?.map((e) => e.loc).sort(),
    [['query', 'ensemble', 'members'], ['query', 'member_trajectories']])
  t.equal(await attempts(svc, key), 0, 'nothing fetched for any of these')
  // a burst not above the launch is known once the launch altitude is (the model terrain, read from the data)
  await refused({ ...WARSAW, burst_altitude: 50 }, ['body', 'burst_altitude'])
  await refused({ ...WARSAW, launch_altitude: 31000 }, ['body', 'burst_altitude'])
  await refused({ ...WARSAW, profile: 'float_profile', float_altitude: 90, stop_datetime: '2020-08-04T13:00:00Z' },
    ['body', 'float_altitude'])
})

t.test('a launch outside the source, or an unknown dataset, is a 404 outside_source_coverage', async (t) => {
  const svc = await startTestService(t)
  const { key } = await svc.newAccount()
  const place = await post(svc, key, { ...WARSAW, launch_latitude: 10 })
  t.equal(place.status, 404)
  t.equal(place.body.code, 'outside_source_coverage')
  t.match(place.body.detail, /launch/)
  const time = await post(svc, key, { ...WARSAW, launch_datetime: '2021-01-01T00:00:00Z' })
  t.equal(time.status, 404)
  const dataset = await post(svc, key, { ...WARSAW, dataset: '2020-08-03T00:00:00Z' })
  t.equal(dataset.status, 404)
  t.match(dataset.body.detail, /^dataset 2020-08-03T00:00:00Z: .*2020-08-04T12:00:00Z/)
})

t.test('the allowance running out mid-flight is a 429; what the flight fetched stays cached', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_DAILY_ALLOWANCE: '1' } })
  const { key } = await svc.newAccount()
  // the launch at 12Z reads f000 alone; the first step needs f006 too
  const r = await post(svc, key, WARSAW)
  t.equal(r.status, 429)
  t.equal(r.body.code, 'daily_allowance_exhausted')
  t.equal(await attempts(svc, key), 1)
  const res = await fetch(`${svc.url}/v1/atmosphere/profile`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ latitude: 52.23, longitude: 21.01, time: '2020-08-04T12:00:00Z', altitudes_m: [300],
      altitude_reference: 'agl' })
  })
  t.equal(res.status, 200, 'f000 answers a profile with no attempt left: it stayed cached')
  t.equal(await attempts(svc, key), 1)
})

t.test('rate: a flight is priced by its steps, one token per started 10 000 (all members together)', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_RATE_PER_SECOND: '0.001', ALOFT_RATE_BURST: '4' } })
  const { key } = await svc.newAccount()
  const remaining = async (body: unknown): Promise<[number, string | null, Problem]> => {
    const res = await fetch(`${svc.url}/v1/atmosphere/trajectory`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body)
    })
    return [res.status, res.headers.get('ratelimit-remaining'), await res.json() as Problem]
  }
  const [shortStatus, afterShort] = await remaining({ ...WARSAW, burst_altitude: 200, ensemble: { members: 100 } })
  t.equal(shortStatus, 200)
  t.equal(afterShort, '3', 'a hundred short flights (a few hundred steps) take one token of four')
  // 200 flights to 30 km: each bounded by ~100 steps up and ~125 down, 45 000 in all: five tokens, at
  // most a burst (four) taken, and three remain
  const [longStatus, , problem] = await remaining({ ...WARSAW, ensemble: { members: 200 } })
  t.equal(longStatus, 429)
  t.equal(problem.code, 'rate_limited')
  t.match(problem.detail, /A flight of up to 4\d{4} steps of 60 s cost 4 request tokens \(one per started 10000 steps/)
})

t.test('a flight beyond the step bound is refused before it is flown', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_TRAJECTORY_MAX_STEPS: '20000' } })
  const { key } = await svc.newAccount()
  const slow = await post(svc, key, { ...WARSAW, ascent_rate: 0.001 })
  t.equal(slow.status, 400)
  t.equal(slow.body.errors?.[0].type, 'flight_too_long')
  t.same(slow.body.errors?.[0].loc, ['body'])
  t.match(slow.body.detail, /could take up to \d+ steps of 60 s; at most 20000/)
  const many = await post(svc, key, { ...WARSAW, ensemble: { members: 200 } })
  t.equal(many.status, 400, 'two hundred flights to 30 km exceed it together')
  t.match(many.body.detail, /fewer ensemble members/)
  t.equal(await attempts(svc, key), 1, 'only the launch\'s unit was fetched (its terrain bounds the flight)')
  const everyPath = await post(svc, key, { ...WARSAW, burst_altitude: 1000, ensemble: { members: 1000 },
    member_trajectories: true })
  t.equal(everyPath.status, 200, 'within both bounds')
})

t.test('without a data path the routes answer 503', async (t) => {
  const svc = await startTestService(t, { dataPath: false })
  const { key } = await svc.newAccount()
  const r = await post(svc, key, WARSAW)
  t.equal(r.status, 503)
})

t.test('the CLI prints the burst and landing and writes GeoJSON and KML', async (t) => {
  const svc = await startTestService(t)
  const { key } = await svc.newAccount()
  const dir = await mkdtemp(join(tmpdir(), 'aloft-cli-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  let out = ''
  let err = ''
  const io = { out: (s: string) => { out += s }, err: (s: string) => { err += s } }
  const code = await run(['--lat', '52.2297', '--lon', '21.0122', '--time', '2020-08-04T12:00:00Z', '--url', svc.url,
    '--geojson', join(dir, 'f.geojson'), '--kml', join(dir, 'f.kml')], io, { ALOFT_API_KEY: key })
  t.equal(code, 0, err)
  t.match(out, /^launch +2020-08-04T12:00:00Z +52\.22970, 21\.01220/m)
  t.match(out, /^burst +2020-08-04T13:39:40\.965Z +52\.81155, 21\.33928 +30000\.0 m/m)
  t.match(out, /^landing +2020-08-04T14:25:15\.484Z +53\.12327, 21\.59745 +108\.6 m/m)
  const geo = JSON.parse(await readFile(join(dir, 'f.geojson'), 'utf8')) as {
    features: Array<{ properties: { name: string }, geometry: { type: string, coordinates: number[][] } }>
  }
  t.same(geo.features.map((f) => f.properties.name), ['flight', 'launch', 'burst', 'landing'])
  t.equal(geo.features[0].geometry.coordinates.length, 101 + 47 - 1, 'the path, the burst point once')
  t.match(await readFile(join(dir, 'f.kml'), 'utf8'), /<LineString><altitudeMode>absolute<\/altitudeMode><coordinates>21\.0122,52\.2297,/)

  out = ''
  t.equal(await run(['--lat', '52.2297', '--lon', '21.0122', '--time', '2020-08-05T01:30:00Z', '--url', svc.url,
    '--kml', join(dir, 'left.kml')], io, { ALOFT_API_KEY: key }), 0, err)
  t.match(out, /^left the data here 2020-08-05T03:00:00Z +52\.59228, 21\.62674 +27095\.2 m/m,
    'a flight that leaves the data says so where it stops')
  t.notMatch(out, /landing/, 'and calls nothing a landing')
  const leftKml = await readFile(join(dir, 'left.kml'), 'utf8')
  t.match(leftKml, /<name>left the data here<\/name>/)
  t.notMatch(leftKml, /landing/)

  err = ''
  t.equal(await run(['--lat', '52'], io, { ALOFT_API_KEY: key }), 2, 'usage errors exit 2')
  t.match(err, /--lon is required/)
  err = ''
  t.equal(await run(['--lat', '10', '--lon', '21', '--time', '2020-08-04T12:00:00Z', '--url', svc.url], io,
    { ALOFT_API_KEY: key }), 1, 'a refusal exits 1')
  t.match(err, /404 Outside source coverage/)
  out = ''
  t.equal(await run(['--help'], io, {}), 0)
  t.match(out, /usage: aloft trajectory/)
})
