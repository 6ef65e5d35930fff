// The deployment check's checks before the faults (bench/deploy-check.ts): strangers' buckets through
// nginx, one cold unit fetched and charged once, and a unit one process fetched serving every process
// to a caller whose allowance that fetch spent.
import type { UpstreamServer } from '../../../src/standin/server.js'
import type { AloftInstance } from '../processes.js'
import { client, postOnOwnConnection, type Ask } from './http.js'

export const ADMIN_TOKEN = 'deploy-admin-token-0123456789'

export interface BucketReport { a: number[], b: number[], spoofed: number[] }
export interface ColdReport { answers: number[], upstreamRequests: number, charged: number }
/** One caller's allowance spent by a fetch through A: its answers for that place through every process. */
export interface SharedReport {
  answers: number[]
  direct: number[]
  remaining: number
  upstreamRequests: number
  charged: number
}

export async function newKey (url: string, name: string): Promise<{ key: string, accountId: string }> {
  const res = await fetch(`${url}/v1/admin/accounts`, { method: 'POST', body: JSON.stringify({ name }),
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' } })
  const body = await res.json() as { account: { id: string }, key: { key: string } }
  return { key: body.key.key, accountId: body.account.id }
}

/** Two strangers, each its burst of 3 and a fourth; then one claiming to be the other. */
export async function bucketCheck (pem: string, base: string): Promise<BucketReport> {
  const [a, b] = [client(pem, '127.0.10.1'), client(pem, '127.0.10.2')]
  const four = async (ask: Ask, headers?: Record<string, string>): Promise<number[]> => {
    const out: number[] = []
    for (let k = 0; k < 4; k++) out.push((await ask(`${base}/api/datasetcheck`, { headers })).status)
    return out
  }
  const statuses = { a: await four(a), b: await four(b) }
  // a third spends its burst, then claims another address: what a client writes in the header
  // itself stays to the left of the address nginx appends, and changes nothing
  const c = client(pem, '127.0.10.3')
  for (let k = 0; k < 3; k++) await c(`${base}/api/datasetcheck`)
  const spoofed = [(await c(`${base}/api/datasetcheck`, { headers: { 'x-forwarded-for': '127.0.10.99' } })).status]
  return { ...statuses, spoofed }
}

/** Six asks at once for one cold place, through nginx to both instances; the stand-in slowed so they overlap. */
export async function coldCheck (pem: string, base: string, upstream: UpstreamServer,
  who: { key: string, accountId: string }, direct: string): Promise<ColdReport> {
  const slow = upstream.fail({ match: /filter_gfs_0p25/, mode: { slowMs: 400 } })
  const before = upstream.count(/filter_gfs_0p25/)
  const ask = client(pem, '127.0.10.4')
  const answers = await Promise.all(Array.from({ length: 6 }, async () =>
    (await ask(`${base}/k/${who.key}/api/ruaumoko/?latitude=50.6&longitude=16.6`)).status))
  slow()
  const usage = await (await fetch(`${direct}/v1/atmosphere/usage`, { headers: { 'x-api-key': who.key } }))
    .json() as { upstream_attempts: number }
  return { answers, upstreamRequests: upstream.count(/filter_gfs_0p25/) - before, charged: usage.upstream_attempts }
}

/**
 * A caller spends its day's allowance on cold places through B, the last attempt on a place asked
 * of A; then asks for that place through nginx (both instances, both processes of A) and of B and A
 * directly: every answer 200, nothing fetched or charged again.
 */
export async function sharedCheck (pem: string, base: string, upstream: UpstreamServer, who: { key: string },
  a: AloftInstance, b: AloftInstance): Promise<SharedReport> {
  const usage = async (): Promise<{ remaining: number, upstream_attempts: number }> => await (await fetch(
    `${b.url}/v1/atmosphere/usage`, { headers: { 'x-api-key': who.key } })).json() as
    { remaining: number, upstream_attempts: number }
  // places in distinct 1° tiles of the sample's west, away from every other check's
  const place = (k: number): string => JSON.stringify({ latitude: 48.5 + (k % 8), longitude: 13.5 + Math.floor(k / 8),
    time: '2020-08-04T18:00:00Z', altitudes_m: [3000], altitude_reference: 'agl' })
  const profile = async (url: string, body: string): Promise<number> => (await fetch(`${url}/v1/atmosphere/profile`, {
    method: 'POST', body, headers: { 'x-api-key': who.key, 'content-type': 'application/json' } })).status
  let k = 0
  while ((await usage()).remaining > 1) {
    if (k >= 24) throw new Error('the shared check ran out of cold places')
    await profile(b.url, place(k++))
  }
  const last = place(k)
  if (await profile(a.url, last) !== 200) throw new Error('the shared check\'s last fetch through A failed')
  const spent = await usage()
  const before = upstream.count(/filter_gfs_0p25/)
  const ask = client(pem, '127.0.10.6')
  const answers: number[] = []
  for (let n = 0; n < 8; n++) {
    answers.push((await ask(`${base}/v1/atmosphere/profile`, { method: 'POST', body: last,
      headers: { 'x-api-key': who.key, 'content-type': 'application/json' } })).status)
  }
  // and directly: B, then each process of A on a connection it accepted
  const direct = [await profile(b.url, last)]
  const pids = await a.processes()
  const asked = new Set<number>()
  for (let n = 0; asked.size < pids.length; n++) {
    if (n > 200) throw new Error('the shared check\'s connections did not reach every process of A')
    const answer = await postOnOwnConnection(a.port, '/v1/atmosphere/profile', last, who.key, pids)
    if (asked.has(answer.pid)) continue
    asked.add(answer.pid)
    direct.push(answer.status)
  }
  const after = await usage()
  return { answers, direct, remaining: spent.remaining, upstreamRequests: upstream.count(/filter_gfs_0p25/) - before,
    charged: after.upstream_attempts - spent.upstream_attempts }
}
