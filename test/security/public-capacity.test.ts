// The public service's capacity (docs/DESIGN.md §10), tried as strangers would on loopback
// addresses: a flood of keyless requests from one or two addresses no longer takes the instance
// from key holders, other strangers or the balancer's probes (finding 1: waiting holds no slot,
// each caller waits at most its burst, public callers hold at most their share); and every refusal
// on a Tawhiri path, at capacity or at the connection cap, is one a page on another origin can
// read (finding 7).
import t from 'tap'
import { DEFAULT_LIMITS, MemoryStore } from '../../src/accounts/index.js'
import { READY_WAIT_MS } from '../../src/http/readiness.js'
import { startTestService, untilReady } from '../helpers/service.js'
import { rawAnswer, stranger, type Stranger } from '../helpers/stranger.js'

const ORIGIN = { origin: 'http://predictor.example' }
const FLIGHT = '/tawhiri?launch_latitude=52.2297&launch_longitude=21.0122&launch_datetime=2020-08-04T12:00:00Z&' +
  'ascent_rate=5&burst_altitude=30000&descent_rate=5'
const PROFILE = JSON.stringify({ latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z',
  altitudes_m: [1000], altitude_reference: 'agl' })

/** Asks `path` again and again on every connection of `who` until `stop` says so; the statuses seen. */
async function flood (who: Stranger, connections: number, path: string, stop: () => boolean): Promise<number[]> {
  const seen: number[] = []
  await Promise.all(Array.from({ length: connections }, async () => {
    while (!stop()) seen.push(await who.get(path).then((a) => a.status, () => 0))
  }))
  return seen
}

/** Every `everyMs`, `ask` until `stop`; the statuses it got. */
async function probe (ask: () => Promise<number>, everyMs: number, stop: () => boolean): Promise<number[]> {
  const seen: number[] = []
  while (!stop()) {
    seen.push(await ask().catch(() => 0))
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
  return seen
}

const count = (statuses: number[], status: number): number => statuses.filter((s) => s === status).length

t.test('finding 1: two keyless addresses flooding /api/datasetcheck take nothing from anyone else', async (t) => {
  // the finding's 128 connections × 2 against 256 slots, at an eighth of the scale; no connection cap
  const svc = await startTestService(t, { env: { ALOFT_PUBLIC_TAWHIRI: 'on', ALOFT_MAX_IN_FLIGHT: '32',
    ALOFT_MAX_CONNECTIONS_PER_ADDRESS: '0', ALOFT_LOG_LEVEL: 'warn' } })
  // ready before the flood (its worker thread can take seconds to start on a busy machine): the flood
  // must take readiness from no one, not give it
  t.equal((await untilReady(svc.url)).status, 200, 'ready before the flood')
  const { key } = await svc.newAccount('key holder')
  const attackers = [stranger(svc.url, '127.0.1.1', 32), stranger(svc.url, '127.0.1.2', 32)]
  const other = stranger(svc.url, '127.0.1.3', 1)
  t.teardown(() => { for (const s of [...attackers, other]) s.close() })
  const until = Date.now() + 1500
  const stop = (): boolean => Date.now() > until
  const notReady: string[] = []
  const [floods, profiles, strangers, ready] = await Promise.all([
    Promise.all(attackers.map(async (a) => await flood(a, 32, '/api/datasetcheck', stop))),
    probe(async () => {
      const res = await fetch(`${svc.url}/v1/atmosphere/profile`, { method: 'POST', body: PROFILE,
        headers: { 'x-api-key': key, 'content-type': 'application/json' } })
      await res.arrayBuffer()
      return res.status
    }, 100, stop),
    probe(async () => (await other.get('/api/datasetcheck')).status, 100, stop),
    probe(async () => {
      const res = await fetch(`${svc.url}/readyz`)
      const body = await res.text()
      if (res.status !== 200) notReady.push(body)
      return res.status
    }, 100, stop)
  ])
  for (const a of attackers) a.close() // their waiting requests are dropped, nothing computed for them
  t.ok(floods.every((f) => count(f, 200) > 0), `the flood is served at its rate (${floods.map((f) =>
    `${count(f, 200)} × 200`).join(', ')})`)
  t.equal(count(profiles, 200), profiles.length, `the key holder's profiles: ${profiles.join(' ')}`)
  t.equal(count(strangers, 200), strangers.length, `another stranger's requests: ${strangers.join(' ')}`)
  const why = notReady.length > 0 ? ` (${notReady[0]})` : ''
  t.equal(count(ready, 200), ready.length, `/readyz: ${ready.join(' ')}${why}`)
})

t.test('finding 1: a key holder flooding /k/<key>/… waits its turn without holding a slot', async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_MAX_IN_FLIGHT: '24', ALOFT_MAX_IN_FLIGHT_PER_ACCOUNT: '4',
    ALOFT_MAX_CONNECTIONS_PER_ADDRESS: '0', ALOFT_RATE_PER_SECOND: '20', ALOFT_RATE_BURST: '20',
    ALOFT_LOG_LEVEL: 'warn' } })
  const flooder = await svc.newAccount('flooder')
  const { key } = await svc.newAccount('another')
  const from = stranger(svc.url, '127.0.1.4', 48)
  t.teardown(() => from.close())
  const until = Date.now() + 1500
  const stop = (): boolean => Date.now() > until
  const [seen, others] = await Promise.all([
    flood(from, 48, `/k/${flooder.key}/api/datasetcheck`, stop),
    probe(async () => {
      const res = await fetch(`${svc.url}/v1/account`, { headers: { 'x-api-key': key } })
      await res.arrayBuffer()
      return res.status
    }, 100, stop)
  ])
  from.close()
  t.ok(count(seen, 429) > 0, `beyond its burst waiting, refused at once (${count(seen, 429)} × 429, ` +
    `${count(seen, 200)} × 200)`)
  t.equal(count(seen, 503), 0, 'never the instance\'s 503: its waiting requests hold no slot')
  t.equal(count(others, 200), others.length, `another key holder: ${others.join(' ')}`)
})

t.test('/readyz, answered at capacity, shares its checks: a flood of it is no flood of checks', async (t) => {
  // the real memory store, counting the pings readiness makes of it; once armed, a ping waits until
  // every probe has reached the server, so they all arrive while one check runs, however slow the machine
  class GatedStore extends MemoryStore {
    pings = 0
    gate: Promise<void> | undefined
    override async ping (): Promise<void> { this.pings++; await this.gate }
  }
  const store = new GatedStore(DEFAULT_LIMITS)
  const svc = await startTestService(t, { store, env: { ALOFT_MAX_IN_FLIGHT: '8',
    ALOFT_MAX_CONNECTIONS_PER_ADDRESS: '0', ALOFT_LOG_LEVEL: 'warn' } })
  t.equal((await untilReady(svc.url)).status, 200, 'ready before the probes')
  const PROBES = 300
  let arrived = 0
  let open = (): void => {}
  store.gate = new Promise((resolve) => { open = resolve })
  const started = performance.now()
  svc.server.on('request', (req: { url?: string }) => { if (req.url === '/readyz' && ++arrived === PROBES) open() })
  const pingsBefore = store.pings
  const prober = stranger(svc.url, '127.0.1.5', PROBES)
  t.teardown(() => prober.close())
  const answers = await Promise.all(Array.from({ length: PROBES }, async () => await prober.get('/readyz')))
  const gatedMs = performance.now() - started
  t.equal(answers.filter((a) => a.status === 200).length, PROBES, `${PROBES} at once, all answered ready (8 slots)${
    answers.find((a) => a.status !== 200)?.body.replace(/^/, ': ') ?? ''}`)
  // one check for all of them; a check is shared for READY_WAIT_MS at most, so one more for each such
  // span the probes took to arrive on a slow machine
  const allowed = 1 + Math.floor(gatedMs / READY_WAIT_MS)
  t.ok(store.pings - pingsBefore <= allowed, `${store.pings - pingsBefore} checks of the store for ${PROBES} probes ` +
    `(at most ${allowed}: they arrived within ${gatedMs.toFixed(0)} ms)`)
})

t.test('finding 7: refusals on the Tawhiri paths are readable by a page on another origin', async (t) => {
  t.test('at capacity: a Tawhiri 503 with CORS and Retry-After', async (t) => {
    const svc = await startTestService(t, { env: { ALOFT_MAX_IN_FLIGHT: '2', ALOFT_TAWHIRI_BURST_WAIT_MS: '300',
      ALOFT_PUBLIC_TAWHIRI: 'on' } })
    const { key } = await svc.newAccount()
    // two slow uploads hold both slots of the instance
    const slow = stranger(svc.url, '127.0.7.1')
    t.teardown(() => slow.close())
    for (let k = 0; k < 2; k++) {
      const s = await slow.socket()
      s.write('POST /v1/atmosphere/samples HTTP/1.1\r\nHost: aloft\r\n' + `X-API-Key: ${key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"lat')
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
    const page = stranger(svc.url, '127.0.7.2')
    t.teardown(() => page.close())
    for (const path of [FLIGHT, '/api/datasetcheck']) {
      const answer = await page.get(path, ORIGIN)
      t.equal(answer.status, 503, path)
      t.equal(answer.headers['access-control-allow-origin'], '*', 'a page may read it')
      t.equal(answer.headers['retry-after'], '1')
      t.match(JSON.parse(answer.body), { error: { type: 'ServiceUnavailableException',
        description: /handling 2 requests already/ } })
    }
  })

  t.test('the connection cap: the request of the connection one too many hears Tawhiri\'s 503', async (t) => {
    const svc = await startTestService(t, { env: { ALOFT_MAX_CONNECTIONS_PER_ADDRESS: '2',
      ALOFT_PUBLIC_TAWHIRI: 'on' } })
    const page = stranger(svc.url, '127.0.7.3')
    t.teardown(() => page.close())
    await page.socket()
    await page.socket()
    const third = await page.socket()
    third.write(`GET ${FLIGHT} HTTP/1.1\r\nHost: aloft\r\nOrigin: http://predictor.example\r\n\r\n`)
    const answer = await rawAnswer(third)
    t.match(answer, /^HTTP\/1\.1 503 /)
    t.match(answer, /\r\nAccess-Control-Allow-Origin: \*\r\n/i)
    t.match(answer, /\r\nRetry-After: 1\r\n/i)
    t.match(answer, /\r\nConnection: close\r\n/i)
    t.match(answer, /"type":"ServiceUnavailableException","description":"This address has 2 connections open/)
  })

  t.test('a caller with its burst waiting is refused at once, readably', async (t) => {
    // a token a second: the two waiting are answered a second and two seconds on, the one beyond before them
    const svc = await startTestService(t, { env: { ALOFT_PUBLIC_TAWHIRI: 'on', ALOFT_PUBLIC_RATE_PER_SECOND: '1',
      ALOFT_PUBLIC_RATE_BURST: '2', ALOFT_TAWHIRI_BURST_WAIT_MS: '10000' } })
    const page = stranger(svc.url, '127.0.7.4', 8)
    t.teardown(() => page.close())
    let order = 0
    const answers = await Promise.all(Array.from({ length: 5 }, async () => {
      const answer = await page.get('/api/datasetcheck', ORIGIN)
      return { ...answer, order: order++ }
    }))
    const refused = answers.filter((a) => a.status === 429)
    t.equal(answers.filter((a) => a.status === 200).length, 4, 'its burst at once, then its burst waiting')
    t.equal(refused.length, 1)
    // the order of events, not a time: refused before either waiter was let through
    t.ok(refused[0].order < 3, `the one beyond is refused at once (answer ${refused[0].order + 1} of 5)`)
    t.equal(refused[0].headers['access-control-allow-origin'], '*')
    t.match(refused[0].headers['retry-after'], /^\d+$/)
    t.match(JSON.parse(refused[0].body), { error: { type: 'RateLimitException',
      description: /2 requests waiting their turn already/ } })
  })
})
