// Whatever goes wrong while an error is being rendered, the request still gets a 500 problem and
// the process goes on serving.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { createApp } from '../../src/http/app.js'
import { loadConfig } from '../../src/config/index.js'
import { createLogger } from '../../src/logger.js'
import { createMetrics } from '../../src/metrics.js'
import { MemoryStore } from '../../src/accounts/index.js'
import { SourceError } from '../../src/source/index.js'
import type { ProfileService } from '../../src/profile/service.js'

t.test('a problem that cannot be rendered becomes a logged 500 problem', async (t) => {
  const logs: string[] = []
  const logger = createLogger('info', new Writable({ write (chunk, _e, cb) { logs.push(String(chunk)); cb() } }))
  const store = new MemoryStore({ dailyAllowance: 10, ratePerSecond: 100, rateBurst: 100 })
  const account = await store.createAccount('a')
  const { secret } = await store.createKey(account.id, 'k')
  // a source_busy without its Retry-After: the renderer refuses it (every 503 must carry one)
  const profiles = { answer: async () => { throw new SourceError('source_busy', { detail: 'no retry hint' }) } }
  const app = createApp({
    config: loadConfig({ ALOFT_LOG_LEVEL: 'info' }), store, logger, metrics: createMetrics({ defaultMetrics: false }),
    profiles: profiles as unknown as ProfileService
  })
  const server = createServer(app.handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => server.close())
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const res = await fetch(`${url}/v1/atmosphere/profile`, {
    method: 'POST',
    headers: { 'x-api-key': secret, 'content-type': 'application/json' },
    body: JSON.stringify({
      latitude: 52, longitude: 21, time: '2020-08-04T18:00:00Z', altitudes_m: [1000], altitude_reference: 'agl'
    })
  })
  t.equal(res.status, 500)
  t.match(res.headers.get('content-type'), /^application\/problem\+json/)
  const body = await res.json() as { code: string, request_id: string }
  t.equal(body.code, 'internal_error')
  t.equal(body.request_id, res.headers.get('x-request-id'))
  t.ok(logs.some((l) => l.includes('a problem could not be rendered')), 'logged')
  const again = await fetch(`${url}/healthz`)
  t.equal(again.status, 200, 'still serving')
})
