// POST /v1/atmosphere/samples as a client sees it: the `nearest` method answers exactly what the
// profile route answers, sub-region tiles serve every stencil, units are fetched once, cost is
// known before any fetch, and every bad input is a clear 4xx naming the field.
import t from 'tap'
import { startTestService, type TestService } from '../helpers/service.js'
import { startSampleUpstream } from '../helpers/upstream.js'
import { LIMITS } from '../../src/contract/limits.js'

interface Answer { count: number, units: Array<Record<string, unknown>>, columns: Record<string, unknown[]> }

async function samples (svc: TestService, key: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${svc.url}/v1/atmosphere/samples`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body)
  })
  type Problem = { code?: string, detail?: string, errors?: Array<{ loc: unknown[] }> }
  return { res, body: await res.json() as Answer & Problem }
}

const AROUND_WARSAW = {
  latitude: [52.0, 52.13, 51.87, 52.49, 51.6, 52.26],
  longitude: [21.0, 20.9, 21.37, 20.62, 21.12, 21.75],
  altitude_m: [10, 700, 1500, 3000, 9000, 16000]
}

t.test('nearest: every number equals the profile route\'s for the same point, time and height', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_RATE_PER_SECOND: '10000', ALOFT_RATE_BURST: '10000' } })
  const { key } = await svc.newAccount()
  const times = ['2020-08-04T12:00:00Z', '2020-08-04T16:40:00Z', '2020-08-15T13:00:00Z', '2020-07-22T06:00:00Z']
  for (const time of times) {
    for (const reference of ['agl', 'msl'] as const) {
      const ground = reference === 'msl' ? 150 : null
      const { body } = await samples(svc, key, { ...AROUND_WARSAW, time, altitude_reference: reference,
        interpolation: 'nearest', ground_elevation_m_msl: ground })
      for (let p = 0; p < AROUND_WARSAW.latitude.length; p++) {
        const res = await fetch(`${svc.url}/v1/atmosphere/profile`, {
          method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ latitude: AROUND_WARSAW.latitude[p], longitude: AROUND_WARSAW.longitude[p], time,
            altitudes_m: [AROUND_WARSAW.altitude_m[p]], altitude_reference: reference, ground_elevation_m_msl: ground })
        })
        const profile = await res.json() as { levels: Array<Record<string, number>>, ground_elevation_m_msl: number }
        if (res.status === 409) {
          t.equal(body.columns.status[p], 'outside_vertical_range', `${time} ${reference} point ${p}: both outside`)
          continue
        }
        t.equal(res.status, 200)
        t.equal(body.columns.status[p], 'ok')
        const level = profile.levels[0]
        for (const f of ['wind_u_ms', 'wind_v_ms', 'wind_speed_ms', 'wind_direction_deg', 'temperature_k',
          'pressure_pa', 'specific_humidity_kg_kg', 'relative_humidity_pct', 'density_kg_m3', 'altitude_msl_m']) {
          t.equal(body.columns[f][p], level[f], `${time} ${reference} point ${p} ${f}`)
        }
        t.equal(body.columns.ground_elevation_m_msl[p], profile.ground_elevation_m_msl)
      }
    }
  }
})

t.test('sub-region tiles serve every stencil: the filter source answers what the whole-file mirror does', async (t) => {
  const { server } = await startSampleUpstream(t)
  const mirror = await startTestService(t)
  const filter = await startTestService(t, { env: { ALOFT_SOURCE: `filter:${server.filterUrl}`,
    ALOFT_TILE_DEGREES: '1', ALOFT_SAMPLES_MAX_UNITS: '64' } })
  // points straddling the tile edges at 52° N and 21° E (1° tiles: rows from 51.75 and 52.0 needed)
  const request = {
    latitude: [51.9, 51.99, 52.1, 51.88, 52.0, 51.76],
    longitude: [20.9, 20.99, 21.1, 21.0, 20.8, 20.87],
    altitude_m: [100, 2000, 5000, 800, 12000, 300],
    time: '2020-08-04T15:00:00Z',
    altitude_reference: 'agl'
  }
  const a = await samples(mirror, (await mirror.newAccount()).key, request)
  const b = await samples(filter, (await filter.newAccount()).key, request)
  t.equal(b.res.status, 200, JSON.stringify(b.body).slice(0, 300))
  // the stand-in packs each tile anew: decoded values agree to the packing's precision, not bit for bit
  for (const [name, column] of Object.entries(a.body.columns)) {
    column.forEach((x, p) => {
      const y = b.body.columns[name][p]
      if (typeof x === 'number' && typeof y === 'number') {
        t.ok(Math.abs(x - y) <= 1e-5 * Math.max(1, Math.abs(x)), `${name}[${p}]: ${y} ≈ ${x}`)
      } else {
        t.equal(y, x, `${name}[${p}]`)
      }
    })
  }
  const pieces = (b.body.units as Array<{ sources: unknown[] }>).map((u) => u.sources.length)
  t.same(pieces, [4, 4], 'four tiles per unit, for both units of the time bracket')
  t.same(b.body.units.map((u) => u.source_sha256), [null, null], 'several pieces: no single sha256')
})

t.test('each unit is fetched once under concurrency, and charged once', async (t) => {
  const svc = await startTestService(t)
  const { key } = await svc.newAccount()
  const body = { ...AROUND_WARSAW, time: ['2020-08-04T13:00:00Z', '2020-08-04T19:00:00Z', '2020-08-15T12:00:00Z',
    '2020-08-04T13:00:00Z', '2020-08-04T21:00:00Z', '2020-08-15T17:00:00Z'], altitude_reference: 'agl' }
  const answers = await Promise.all([1, 2, 3, 4].map(async () => await samples(svc, key, body)))
  for (const a of answers) t.equal(a.res.status, 200)
  t.equal(answers[0].body.units.length, 5, '12Z/18Z/00Z of 2020-08-04 and 12Z/18Z of 2020-08-15')
  const usage = await (await fetch(`${svc.url}/v1/atmosphere/usage`, { headers: { 'x-api-key': key } })).json() as
    { upstream_attempts: number }
  t.equal(usage.upstream_attempts, 5, 'one attempt per unit for four concurrent requests')
})

t.test('cost before work: too many units is a 400 naming both numbers; over the allowance a 429, nothing charged',
  async (t) => {
    const svc = await startTestService(t, { env: { ALOFT_SAMPLES_MAX_UNITS: '3', ALOFT_DAILY_ALLOWANCE: '2' } })
    const { key } = await svc.newAccount()
    const three = { ...AROUND_WARSAW, time: ['2020-08-04T13:00:00Z', '2020-08-04T19:00:00Z', '2020-08-15T12:00:00Z',
      '2020-08-04T13:00:00Z', '2020-08-04T13:00:00Z', '2020-08-04T13:00:00Z'], altitude_reference: 'agl' }
    const tooMany = await samples(svc, key, three)
    t.equal(tooMany.res.status, 400)
    t.match(tooMany.body.detail, /need 4 distinct source units; at most 3/)
    // one unit now cached; two needed and not cached, one attempt left
    const one = await samples(svc, key, { ...three, time: '2020-08-15T12:00:00Z' })
    t.equal(one.res.status, 200)
    const over = await samples(svc, key, { ...three, time: ['2020-08-04T12:00:00Z', '2020-08-04T18:00:00Z',
      '2020-08-15T12:00:00Z', '2020-08-15T12:00:00Z', '2020-08-15T12:00:00Z', '2020-08-15T12:00:00Z'] })
    t.equal(over.res.status, 429)
    t.equal(over.body.code, 'daily_allowance_exhausted')
    t.match(over.body.detail, /2 source unit\(s\) not yet cached .* 1 of its 2/)
    const usage = await (await fetch(`${svc.url}/v1/atmosphere/usage`, { headers: { 'x-api-key': key } })).json() as
      { upstream_attempts: number }
    t.equal(usage.upstream_attempts, 1, 'the refused request charged nothing')
  })

t.test('rate limit: one token per started 10 000 points', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_RATE_BURST: '10', ALOFT_RATE_PER_SECOND: '0.001' } })
  const { key } = await svc.newAccount()
  const n = 2 * LIMITS.samplesPointsPerToken + 1
  const body = { latitude: new Array(n).fill(52), longitude: new Array(n).fill(21), altitude_m: new Array(n).fill(100),
    time: '2020-08-04T12:00:00Z', altitude_reference: 'agl' }
  const first = await samples(svc, key, body)
  t.equal(first.res.status, 200)
  t.equal(first.res.headers.get('ratelimit-remaining'), '7', 'three tokens taken of ten')
  const small = await samples(svc, key, { ...body, latitude: [52], longitude: [21], altitude_m: [100] })
  t.equal(small.res.headers.get('ratelimit-remaining'), '6', 'a small request takes one')
  t.equal((await samples(svc, key, body)).res.headers.get('ratelimit-remaining'), '3')
  const one = { ...body, latitude: [52], longitude: [21], altitude_m: [100] }
  await samples(svc, key, one)
  t.equal((await samples(svc, key, one)).res.headers.get('ratelimit-remaining'), '1')
  // admission takes one token, the points need two more: refused after the body
  const refused = await samples(svc, key, body)
  t.equal(refused.res.status, 429)
  t.equal(refused.body.code, 'rate_limited')
  t.match(refused.body.detail, /20001 points cost 3 request tokens/)
})

t.test('bad input: a clear 4xx naming the field', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_SAMPLES_MAX_POINTS: '5' } })
  const { key } = await svc.newAccount()
  const good = { latitude: [52, 52.1], longitude: [21, 21.1], altitude_m: [10, 20], time: '2020-08-04T12:00:00Z',
    altitude_reference: 'agl' }
  const cases: Array<[string, unknown, number, unknown[]]> = [
    ['latitude out of range', { ...good, latitude: [52, 91] }, 400, ['body', 'latitude', 1]],
    ['lengths differ', { ...good, altitude_m: [10] }, 400, ['body', 'altitude_m']],
    ['time per point, wrong length', { ...good, time: ['2020-08-04T12:00:00Z'] }, 400, ['body', 'time']],
    ['time without zone', { ...good, time: '2020-08-04T12:00:00' }, 400, ['body', 'time']],
    ['one bad time of many', { ...good, time: ['2020-08-04T12:00:00Z', '2020-08-04 12:00'] }, 400, ['body', 'time', 1]],
    ['unknown field', { ...good, fields: ['wind_u_ms', 'colour'] }, 400, ['body', 'fields', 1]],
    ['too many points', { ...good, latitude: [1, 2, 3, 4, 5, 6], longitude: [1, 2, 3, 4, 5, 6],
      altitude_m: [1, 2, 3, 4, 5, 6] }, 400, ['body', 'latitude']],
    ['non-finite number', '{"latitude":[52],"longitude":[1e999],"altitude_m":[1],"time":"2020-08-04T12:00:00Z",' +
      '"altitude_reference":"agl"}', 400, ['body', 'longitude', 0]],
    ['no points', { ...good, latitude: [], longitude: [], altitude_m: [] }, 400, ['body', 'latitude']]
  ]
  for (const [name, body, status, loc] of cases) {
    const { res, body: problem } = await samples(svc, key, body)
    t.equal(res.status, status, name)
    t.equal(res.headers.get('content-type'), 'application/problem+json', name)
    t.ok(problem.errors?.some((e) => JSON.stringify(e.loc) === JSON.stringify(loc)), `${name}: ${JSON.stringify(loc)}`)
  }
  const media = await samples(svc, key, 'x', { 'content-type': 'text/csv' })
  t.equal(media.res.status, 415)
  const usage = await (await fetch(`${svc.url}/v1/atmosphere/usage`, { headers: { 'x-api-key': key } })).json() as
    { upstream_attempts: number }
  t.equal(usage.upstream_attempts, 0, 'nothing charged for any of them')
  const nokey = await samples(svc, '', good)
  t.equal(nokey.res.status, 401)
})

t.test('a body over ALOFT_SAMPLES_MAX_BODY_MB is a 413', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_SAMPLES_MAX_BODY_MB: '1' } })
  const { key } = await svc.newAccount()
  const n = 60_000
  const { res, body } = await samples(svc, key, { latitude: new Array(n).fill(52.123456789),
    longitude: new Array(n).fill(21.123456789), altitude_m: new Array(n).fill(1000), time: '2020-08-04T12:00:00Z',
    altitude_reference: 'agl' })
  t.equal(res.status, 413)
  t.equal(body.code, 'payload_too_large')
})

t.test('a point that fails never fails the request', async (t) => {
  const svc = await startTestService(t)
  const { key } = await svc.newAccount()
  const { res, body } = await samples(svc, key, {
    latitude: [52, 70, 52, 52], longitude: [21, 21, 21, 21], altitude_m: [1000, 1000, 99999, 1000],
    time: ['2020-08-04T12:00:00Z', '2020-08-04T12:00:00Z', '2020-08-04T12:00:00Z', '2021-01-01T00:00:00Z'],
    altitude_reference: 'agl', fields: ['temperature_k']
  })
  t.equal(res.status, 200)
  t.same(body.columns.status, ['ok', 'outside_source_coverage', 'outside_vertical_range', 'outside_source_coverage'])
  t.same(body.columns.temperature_k.map((v) => v === null), [false, true, true, true])
  t.same(body.columns.unit_before, [0, null, 0, null], 'a point outside the coverage names no unit')
  t.notOk('wind_u_ms' in body.columns, 'only the fields asked for')
})

t.test('units lists only the (run, step)s a point inside the coverage names', async (t) => {
  const svc = await startTestService(t)
  const { key } = await svc.newAccount()
  const { body } = await samples(svc, key, {
    latitude: [10, 52], longitude: [21, 21], altitude_m: [1000, 1000],
    time: ['2020-08-15T12:00:00Z', '2020-08-04T12:00:00Z'], altitude_reference: 'agl', fields: ['temperature_k']
  })
  t.same(body.columns.status, ['outside_source_coverage', 'ok'])
  t.same(body.units.map((u) => [u.model_run_at, u.forecast_hour, (u.sources as unknown[]).length]),
    [['2020-08-04T12:00:00Z', 0, 1]], 'no entry for 2020-08-15, which nothing read')
  t.same([body.columns.unit_before, body.columns.unit_after, body.columns.time_weight], [[null, 0], [null, 0],
    [null, 0]])
})

t.test('a unit the upstream turns out not to hold: its points are outside_source_coverage, naming no unit',
  async (t) => {
    const { server } = await startSampleUpstream(t)
    const svc = await startTestService(t, { env: { ALOFT_SOURCE: `filter:${server.filterUrl}` } })
    const { key } = await svc.newAccount()
    server.fail({ match: /file=gfs\.t12z\.pgrb2\.0p25\.f006/, mode: 'not_present' })
    const { res, body } = await samples(svc, key, { latitude: [52, 52], longitude: [21, 21], altitude_m: [3000, 3000],
      time: ['2020-08-04T12:00:00Z', '2020-08-04T18:00:00Z'], altitude_reference: 'agl' })
    t.equal(res.status, 200)
    t.same(body.columns.status, ['ok', 'outside_source_coverage'])
    t.same(body.units.map((u) => [u.forecast_hour, (u.sources as unknown[]).length]), [[0, 1]],
      'f006, of which nothing was read, is not listed')
    t.same([body.columns.unit_before, body.columns.unit_after], [[0, null], [0, null]], 'its point names no unit')
  })

t.test('an upstream that hangs past the fetch deadline: 503 source_busy for the whole request', async (t) => {
  const { server } = await startSampleUpstream(t)
  const svc = await startTestService(t, { env: { ALOFT_SOURCE: `filter:${server.filterUrl}`,
    ALOFT_FETCH_DEADLINE_MS: '600' } })
  const { key } = await svc.newAccount()
  server.fail({ match: /filter_gfs/, mode: { slowMs: 3000 } })
  const { res, body } = await samples(svc, key, { latitude: [52], longitude: [21], altitude_m: [3000],
    time: '2020-08-04T12:00:00Z', altitude_reference: 'agl' })
  t.equal(res.status, 503)
  t.equal(body.code, 'source_busy')
  t.ok(Number(res.headers.get('retry-after')) >= 1, 'with Retry-After')
})

t.test('an instance without a data path answers 503', async (t) => {
  const svc = await startTestService(t, { dataPath: false })
  const { key } = await svc.newAccount()
  const { res, body } = await samples(svc, key, { latitude: [52], longitude: [21], altitude_m: [3000],
    time: '2020-08-04T12:00:00Z', altitude_reference: 'agl' })
  t.equal(res.status, 503)
  t.equal(body.code, 'service_unavailable')
})
