// Bulk samples in Apache Arrow: a table in, record batches out (at most 65 536 rows each, written
// as they are computed), the same numbers as the JSON answer; large requests computed on the
// worker pool give the same answer as the main thread.
import t from 'tap'
import {
  RecordBatchReader, Table, Timestamp, TimeUnit, makeVector, tableToIPC, vectorFromArray
} from 'apache-arrow'
import { startTestService, type TestService } from '../helpers/service.js'
import { ARROW_STREAM } from '../../src/contract/samples.js'

/** Enough points for two pool slices; the 65 536-row bound is shown on an Arrow-only request. */
const N = 6_000
const BIG = 70_000
const START = Date.parse('2020-08-04T12:00:00Z')
const lat = Float64Array.from({ length: N }, (_, k) => 48.1 + (k % 311) * 0.0253)
const lon = Float64Array.from({ length: N }, (_, k) => 13.1 + (k % 457) * 0.0261)
const alt = Float64Array.from({ length: N }, (_, k) => (k % 97) * 180)
const times = Float64Array.from({ length: N }, (_, k) => START + (k % 720) * 60_000)

function arrowRequest (timezone: string | null = 'UTC', n = N): Uint8Array {
  const at = (k: number): number => k % N
  return tableToIPC(new Table({
    latitude: makeVector(Float64Array.from({ length: n }, (_, k) => lat[at(k)])),
    longitude: makeVector(Float64Array.from({ length: n }, (_, k) => lon[at(k)])),
    altitude_m: makeVector(Float64Array.from({ length: n }, (_, k) => alt[at(k)])),
    time: vectorFromArray(Array.from({ length: n }, (_, k) => new Date(times[at(k)])),
      new Timestamp(TimeUnit.MILLISECOND, timezone))
  }), 'stream')
}

const jsonRequest = JSON.stringify({
  latitude: [...lat], longitude: [...lon], altitude_m: [...alt],
  time: [...times].map((ms) => new Date(ms).toISOString()), altitude_reference: 'agl'
})

async function post (svc: TestService, key: string, body: Uint8Array | string, contentType: string, accept: string,
  query = ''): Promise<Response> {
  return await fetch(`${svc.url}/v1/atmosphere/samples${query}`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': contentType, accept }, body
  })
}

const env = { ALOFT_RATE_BURST: '100', ALOFT_RATE_PER_SECOND: '100', ALOFT_WORKERS: '2' }

t.test('Arrow in and out: the JSON answer\'s numbers, in record batches of at most 65 536 rows', async (t) => {
  const svc = await startTestService(t, { env: { ...env, ALOFT_SAMPLES_WORKER_POINTS: '1000' } })
  const { key } = await svc.newAccount()
  const json = await post(svc, key, jsonRequest, 'application/json', 'application/json')
  t.equal(json.status, 200)
  const expected = await json.json() as { units: unknown[], columns: Record<string, Array<number | string | null>> }

  const res = await post(svc, key, arrowRequest(), ARROW_STREAM, ARROW_STREAM, '?altitude_reference=agl')
  t.equal(res.status, 200)
  t.equal(res.headers.get('content-type'), ARROW_STREAM)
  const bytes = new Uint8Array(await res.arrayBuffer())
  const batches = [...RecordBatchReader.from(bytes)]
  // on the pool each thread's slice is a batch (two threads: two batches); never more than 65 536 rows
  t.same(batches.map((b) => b.numRows), [N / 2, N / 2], 'one record batch per computed slice')
  const table = new Table(batches)
  t.same(JSON.parse(table.schema.metadata.get('aloft:units') ?? ''), expected.units, 'units in the schema metadata')
  t.ok(JSON.parse(table.schema.metadata.get('aloft:provenance') ?? '').spatial_interpolation, 'provenance too')
  for (const [name, column] of Object.entries(expected.columns)) {
    const got = table.getChild(name)
    t.ok(got !== null, `column ${name}`)
    const values = got!.toArray() as ArrayLike<number | string | null>
    let wrong = 0
    for (let p = 0; p < N; p++) {
      const g = name === 'status' ? got!.get(p) : got!.isValid(p) ? values[p] : null
      if (g !== column[p]) wrong++
    }
    t.equal(wrong, 0, `${name}: every row as in JSON`)
  }
  t.ok(expected.columns.status.includes('ok') && expected.columns.status.includes('outside_vertical_range'),
    'oks and refusals both covered')
})

t.test('the worker pool and the main thread give the same answer', async (t) => {
  const main = await startTestService(t, { env: { ...env, ALOFT_SAMPLES_WORKER_POINTS: '1000000' } })
  const res = await post(main, (await main.newAccount()).key, arrowRequest('UTC', BIG), ARROW_STREAM, ARROW_STREAM,
    '?altitude_reference=agl&fields=temperature_k')
  t.same([...RecordBatchReader.from(new Uint8Array(await res.arrayBuffer()))].map((b) => b.numRows),
    [65_536, BIG - 65_536], 'on the main thread, batches of 65 536 rows')
  const workers = await startTestService(t, { env: { ...env, ALOFT_SAMPLES_WORKER_POINTS: '1000' } })
  const a = await post(main, (await main.newAccount()).key, jsonRequest, 'application/json', 'application/json')
  const b = await post(workers, (await workers.newAccount()).key, jsonRequest, 'application/json', '*/*')
  t.equal(a.status, 200)
  t.same(((await b.json()) as { columns: unknown }).columns, ((await a.json()) as { columns: unknown }).columns)
  const metrics = await (await fetch(`${workers.url}/metrics`)).text()
  t.match(metrics, /aloft_samples_compute_seconds_count\{where="workers"\} 1/)
  t.match(metrics, new RegExp(`aloft_samples_points_total ${N}`))
})

t.test('Arrow requests: a timestamp without a timezone, a missing option or column is a 400 naming it', async (t) => {
  const svc = await startTestService(t, { env })
  const { key } = await svc.newAccount()
  const cases: Array<[string, Uint8Array, string, unknown[]]> = [
    ['no timezone', arrowRequest(null), '?altitude_reference=agl', ['body', 'time']],
    ['no altitude_reference', arrowRequest(), '', ['query', 'altitude_reference']],
    ['unknown field', arrowRequest(), '?altitude_reference=agl&fields=wind_u_ms,colour', ['query', 'fields']],
    ['no latitude', tableToIPC(new Table({ longitude: makeVector(Float64Array.of(1)) }), 'stream'),
      '?altitude_reference=msl', ['body', 'latitude']],
    ['not Arrow', new TextEncoder().encode('not arrow'), '?altitude_reference=msl', ['body']],
    ['latitude as text', tableToIPC(new Table({ latitude: vectorFromArray(['52']), longitude: makeVector(lon),
      altitude_m: makeVector(alt) }), 'stream'), '?altitude_reference=msl', ['body', 'latitude']]
  ]
  for (const [name, body, query, loc] of cases) {
    const res = await post(svc, key, body, ARROW_STREAM, ARROW_STREAM, query)
    const problem = await res.json() as { errors?: Array<{ loc: unknown[] }> }
    t.equal(res.status, 400, name)
    t.ok(problem.errors?.some((e) => JSON.stringify(e.loc) === JSON.stringify(loc)), `${name}: ${JSON.stringify(loc)}`)
  }
})
