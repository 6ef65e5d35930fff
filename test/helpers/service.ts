// Boots the real app in-process on a free port, with captured JSON logs, for HTTP tests.
import { Writable } from 'node:stream'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import type { TSchema } from '@sinclair/typebox'
import { loadConfig } from '../../src/config/index.js'
import { createLogger } from '../../src/logger.js'
import { createMetrics } from '../../src/metrics.js'
import { startService, type RunningService } from '../../src/service.js'
import { createStore, type AccountStore } from '../../src/accounts/index.js'
import { validatorFor } from '../../src/contract/validate.js'
import { repoPath } from './paths.js'

export const ADMIN_TOKEN = 'test-admin-token-0123456789'

/** The bundled real 2020 sample in the bucket layout (what `aloft demo` serves). */
export const SAMPLE_DIR = repoPath('data/sample')

export interface TestService extends RunningService {
  /** Every log line written so far, raw. */
  logs: string[]
  /** Creates an account through the admin route and returns its first key's secret. */
  newAccount: (name?: string) => Promise<{ accountId: string, key: string, keyId: string }>
}

export interface TestServiceOptions {
  env?: Record<string, string>
  store?: AccountStore
  /** Use Redis (REDIS_URL) under this prefix instead of the memory store. */
  redisPrefix?: string
  now?: () => number
  /** false: no data path (profile answers 503). */
  dataPath?: boolean
}

export async function startTestService (t: Test, options: TestServiceOptions = {}): Promise<TestService> {
  const cacheDir = await mkdtemp(join(tmpdir(), 'aloft-test-cache-'))
  t.teardown(() => rm(cacheDir, { recursive: true, force: true }))
  const config = loadConfig({
    ALOFT_SOURCE: `mirror:${SAMPLE_DIR}`,
    ALOFT_CACHE_DIR: cacheDir,
    ALOFT_WORKERS: '1',
    PORT: '0',
    HOST: '127.0.0.1',
    ALOFT_ADMIN_TOKEN: ADMIN_TOKEN,
    ALOFT_LOG_LEVEL: 'info',
    ALOFT_SHUTDOWN_GRACE_MS: '2000',
    ...options.env
  })
  const logs: string[] = []
  const sink = new Writable({
    write (chunk, _enc, cb) { logs.push(...String(chunk).split('\n').filter((l) => l !== '')); cb() }
  })
  const logger = createLogger(config.logLevel, sink)
  const store = options.store ?? createStore({
    redisUrl: options.redisPrefix !== undefined ? (process.env.REDIS_URL ?? 'redis://127.0.0.1:6379') : undefined,
    prefix: options.redisPrefix,
    limits: { dailyAllowance: config.dailyAllowance, ratePerSecond: config.ratePerSecond, rateBurst: config.rateBurst,
      maxKeys: config.maxKeysPerAccount, public: config.publicTawhiri }
  })
  const service = await startService(config, {
    logger,
    store,
    metrics: createMetrics({ defaultMetrics: false }),
    now: options.now,
    dataPath: options.dataPath
  })
  // the test owns its clients: idle connections need no drain (the drain has tests of its own)
  t.teardown(() => service.close('now'))
  const newAccount = async (name = 'test account'): Promise<{ accountId: string, key: string, keyId: string }> => {
    const res = await fetch(`${service.url}/v1/admin/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name })
    })
    if (res.status !== 201) throw new Error(`admin account creation answered ${res.status}: ${await res.text()}`)
    const body = await res.json() as { account: { id: string }, key: { key: string, id: string } }
    return { accountId: body.account.id, key: body.key.key, keyId: body.key.id }
  }
  return { ...service, logs, newAccount }
}

/**
 * The first 200 of /readyz, polled: a fresh instance is not ready until its worker threads run
 * (seconds on a loaded machine). Throws after `withinMs`.
 */
export async function untilReady (url: string, withinMs = 90_000): Promise<Response> {
  const deadline = Date.now() + withinMs
  for (;;) {
    const res = await fetch(`${url}/readyz`)
    if (res.status === 200 || Date.now() > deadline) return res
    await res.arrayBuffer()
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** Asserts that `value` validates against a contract schema, showing Ajv's errors otherwise. */
export function assertSchema (t: Test, schema: TSchema, value: unknown, message?: string): void {
  const fn = validatorFor(schema)
  const ok = fn(value)
  t.ok(ok, message ?? `body matches ${String(schema.$id)}`, ok ? {} : { errors: fn.errors, value })
}

export interface ProblemExpectation {
  status: number
  code: string
}

/** Checks the problem shape every error shares and returns the body. */
export async function expectProblem (
  t: Test,
  res: Response,
  expected: ProblemExpectation
): Promise<Record<string, any>> {
  const { Problem } = await import('../../src/contract/schemas.js')
  t.equal(res.status, expected.status, `status ${expected.status}`)
  t.match(res.headers.get('content-type'), /^application\/problem\+json/, 'problem media type')
  const body = await res.json() as Record<string, any>
  t.equal(body.code, expected.code, `code ${expected.code}`)
  t.equal(body.status, expected.status, 'status in the body')
  t.equal(body.type, `/problems/${expected.code}`, 'type names the problem page')
  t.equal(body.request_id, res.headers.get('x-request-id'), 'request_id equals X-Request-Id')
  assertSchema(t, Problem, body)
  return body
}
