// A trajectory's price follows its work (the security probe's finding 4): a flight of months at
// 0.001 m/s is refused before it is flown, and the largest flights allowed, three at once, leave
// the event loop answering. Mounted against the built server in a process of its own.
import t from 'tap'
import { startServerProcess } from '../helpers/server-process.js'
import { yardstick, yardsticks } from '../helpers/yardstick.js'

const server = await startServerProcess(t, { env: { ALOFT_RATE_BURST: '1000', ALOFT_RATE_PER_SECOND: '1000' } })
const { key } = await server.newAccount()

const launch = { launch_latitude: 52.2, launch_longitude: 21, launch_datetime: '2020-08-04T12:00:00Z' }

async function post (body: unknown): Promise<{ status: number, body: any, ms: number, bytes: number }> {
  const started = performance.now()
  const res = await fetch(`${server.url}/v1/atmosphere/trajectory`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000)
  })
  const text = await res.text()
  return { status: res.status, body: JSON.parse(text), ms: performance.now() - started, bytes: text.length }
}

/** The slowest /healthz answer while `work` runs, probing every 20 ms. */
async function slowestHealth<T> (work: Promise<T>): Promise<[T, number]> {
  let done = false
  let slowest = 0
  const probing = (async () => {
    while (!done) {
      slowest = Math.max(slowest, await server.health(10_000))
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })()
  const result = await work
  done = true
  await probing
  return [result, slowest]
}

t.test('a 1 000-member flight at 0.001 m/s with every path is refused at once', async (t) => {
  // at once: no more than a few short flights cost here and now (flying this one would take minutes)
  const short = { ...launch, ascent_rate: 5, burst_altitude: 1000, descent_rate: 5 }
  const flight = await yardstick(async () => await post(short), 3)
  const health = await yardstick(async () => await server.health(60_000))
  const [res, slowest] = await slowestHealth(post({ ...launch, ascent_rate: 0.001, burst_altitude: 30000,
    descent_rate: 5, ensemble: { members: 1000 }, member_trajectories: true }))
  t.equal(res.status, 400)
  t.equal(res.body.errors[0].type, 'flight_too_long')
  t.ok(res.ms < yardsticks(5, flight), `answered in ${res.ms.toFixed(0)} ms (a short flight: ${flight.toFixed(0)} ms)`)
  t.ok(slowest < yardsticks(10, health), `/healthz answered within ${slowest.toFixed(0)} ms (alone: ${
    health.toFixed(0)} ms)`)
})

t.test('three of the largest flights allowed at once leave /healthz answering', async (t) => {
  const big = { ...launch, ascent_rate: 5, burst_altitude: 30000, descent_rate: 5,
    ensemble: { members: 1000, ascent_rate_sd: 0.5, burst_altitude_sd: 2000, descent_rate_sd: 0.5 },
    member_trajectories: true }
  await post({ ...launch, ascent_rate: 5, burst_altitude: 30000, descent_rate: 5 }) // the units, cached
  // one of them alone, here and now: a /healthz held up by whole flights would wait about three of these
  const one = (await post(big)).ms
  const before = await server.rss()
  const [answers, slowest] = await slowestHealth(Promise.all([post(big), post(big), post(big)]))
  for (const res of answers) {
    t.equal(res.status, 200)
    t.equal(res.body.ensemble.member_predictions.length, 1000)
  }
  t.ok(slowest < one, `/healthz answered within ${slowest.toFixed(0)} ms while ${answers[0].bytes} bytes were ` +
    `made three times (one of them alone: ${one.toFixed(0)} ms)`)
  t.ok(server.alive())
  const grown = (await server.rss()) - before
  t.ok(grown < 1024 * 1024 * 1024, `RSS grew ${(grown / 1048576).toFixed(0)} MB`)
})
