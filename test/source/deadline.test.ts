// One deadline bounds everything a request waits for upstream data, and an account is charged
// only for attempts whose first request actually left for the upstream.
import t from 'tap'
import { SourceError } from '../../src/source/index.js'
import { startSampleUpstream } from '../helpers/upstream.js'
import { at, harness, rejection } from './helpers.js'

const P = { latitude: 52.2, longitude: 21.0, quality: 'best_available' as const }
const TIMES = ['2020-07-21T12:00:00Z', '2020-07-22T06:00:00Z', '2020-07-28T12:00:00Z', '2020-08-15T12:00:00Z']

t.test('a hung upstream is a 503 source_busy at the deadline, not after the request timeouts', async (t) => {
  const { server } = await startSampleUpstream(t)
  const h = await harness(t, {
    setting: { kind: 'mirror', location: server.bucketUrl }, requestTimeoutMs: 30_000, fetchDeadlineMs: 700
  })
  const r = await h.source.resolve({ ...P, time: at('2020-07-28T12:00:00Z'), accountId: h.account })
  const HANG_MS = 20_000
  const hang = server.fail({ match: /^\/gfs\.20200728/, mode: { slowMs: HANG_MS } })
  t.teardown(hang)
  const started = Date.now()
  const e = await rejection<SourceError>(h.source.fetch(r, { accountId: h.account }))
  const took = Date.now() - started
  t.equal(e.code, 'source_busy')
  t.ok(e.retryAfterSeconds! >= 1)
  // at its deadline (700 ms): not before it, and long before the hung answer or the request's timeout
  t.ok(took >= 600 && took < HANG_MS / 2, `answered after ${took} ms`)
})

t.test('attempts that never left the limiter are not charged', async (t) => {
  const { server } = await startSampleUpstream(t)
  const h = await harness(t, {
    setting: { kind: 'mirror', location: server.bucketUrl },
    upstreamConcurrency: 1,
    requestTimeoutMs: 30_000,
    fetchDeadlineMs: 800
  })
  const resolutions = await Promise.all(TIMES.map(async (time) =>
    await h.source.resolve({ ...P, time: at(time), accountId: h.account })))
  // the listings are done: now every unit's upstream hangs
  const hang = server.fail({ match: /^\/gfs\.(2020072|20200815)/, mode: { slowMs: 3000 } })
  t.teardown(hang)
  const before = server.requests.length
  const outcomes = await Promise.allSettled(resolutions.map(async (r) => await h.source.fetch(r,
    { accountId: h.account })))
  t.ok(outcomes.every((o) => o.status === 'rejected' && (o.reason as SourceError).code === 'source_busy'), 'all 503')
  const reached = new Set(server.requests.slice(before).map((q) => q.url.replace(/\.idx$/, '')))
  const charged = (await h.store.allowance(h.account)).upstream_attempts
  t.ok(reached.size >= 1 && reached.size < TIMES.length, `${reached.size} unit(s) reached the upstream`)
  t.equal(charged, reached.size, 'charged exactly for the units whose requests left')
})

t.test('a joiner gives up at its own deadline; the fetch goes on and serves the next request', async (t) => {
  const { server } = await startSampleUpstream(t)
  const slow = server.fail({ match: 'gfs.20200721', mode: { slowMs: 600 }, times: 2 })
  t.teardown(slow)
  const h = await harness(t, { setting: { kind: 'mirror', location: server.bucketUrl }, fetchDeadlineMs: 5000 })
  const r = await h.source.resolve({ ...P, time: at('2020-07-21T12:00:00Z'), accountId: h.account })
  const first = h.source.fetch(r, { accountId: h.account })
  const impatient = await rejection<SourceError>(h.source.fetch(r,
    { accountId: h.account, deadline: Date.now() + 200 }))
  t.equal(impatient.code, 'source_busy')
  t.equal((await first).unitKey, 'gfs/2020072112/f000', 'the first request still gets the unit')
  t.equal((await h.source.fetch(r, { accountId: h.account })).fromCache, true)
  t.equal((await h.store.allowance(h.account)).upstream_attempts, 1)
})

t.test('problem details never name the upstream', async (t) => {
  const { server } = await startSampleUpstream(t)
  const h = await harness(t, { setting: { kind: 'mirror', location: server.bucketUrl }, fetch: { retries: 0 } })
  const host = new URL(server.bucketUrl).host
  const cut = server.fail({ match: 'gfs.20200804/12/atmos/gfs.t12z.pgrb2.0p25.f000', mode: 'truncated' })
  t.teardown(cut)
  const unusable = await rejection<SourceError>(h.source.fetch(
    await h.source.resolve({ ...P, time: at('2020-08-04T12:00:00Z'), accountId: h.account }), { accountId: h.account }))
  t.equal(unusable.code, 'unusable_source_column')
  t.notMatch(unusable.detail, host)
  t.notMatch(unusable.detail, /https?:|\/gfs\./)
  const teapot = server.fail({ match: 'gfs.20200815/12/atmos/gfs.t12z.pgrb2.0p25.f006', mode: 503 })
  t.teardown(teapot)
  const busy = await rejection<SourceError>(h.source.fetch(
    await h.source.resolve({ ...P, time: at('2020-08-15T18:00:00Z'), accountId: h.account }), { accountId: h.account }))
  t.equal(busy.code, 'source_busy')
  t.notMatch(busy.detail, host)
})
