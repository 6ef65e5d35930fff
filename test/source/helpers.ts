// Shared by the source tests: a Source over the local stand-in with small timeouts, a real
// account store, and a silent logger that keeps what it was told.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Registry } from 'prom-client'
import type { Test } from 'tap'
import { MemoryStore, type AccountStore } from '../../src/accounts/index.js'
import { createSource, type Source, type SourceOptions } from '../../src/source/index.js'

export const HOUR = 3_600_000

export function logger (): {
  warn: (m: string) => void
  info: (m: string) => void
  error: (m: string) => void
  lines: string[]
} {
  const lines: string[] = []
  return {
    lines,
    warn: (m) => lines.push(`warn ${m}`),
    info: (m) => lines.push(`info ${m}`),
    error: (m) => lines.push(`error ${m}`)
  }
}

export async function tempDir (t: Test, name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `aloft-${name}-`))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

export interface Harness {
  source: Source
  store: AccountStore
  account: string
  registry: Registry
  cacheDir: string
  log: ReturnType<typeof logger>
}

/** A source with fast failure settings; `allowance` per account per day (default 1000). */
export async function harness (
  t: Test,
  options: Partial<SourceOptions> & Pick<SourceOptions, 'setting'>,
  allowance = 1000
): Promise<Harness> {
  const store = options.store ?? new MemoryStore({ dailyAllowance: allowance, ratePerSecond: 100, rateBurst: 100 })
  const account = (await store.createAccount('source-test')).id
  const registry = options.registry ?? new Registry()
  const cacheDir = options.cacheDir ?? await tempDir(t, 'cache')
  const log = logger()
  const source = createSource({
    store,
    registry,
    cacheDir,
    logger: log,
    requestTimeoutMs: 2000,
    upstreamPerMinute: 60_000,
    upstreamConcurrency: 8,
    ...options,
    fetch: { retries: 2, backoffMs: 20, busyRetryAfterSeconds: 7, ...options.fetch }
  })
  t.teardown(() => source.close())
  return { source, store, account, registry, cacheDir, log }
}

export function at (iso: string): Date {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) throw new Error(`bad time ${iso}`)
  return d
}

export async function metricValue (
  registry: Registry,
  name: string,
  labels: Record<string, string> = {}
): Promise<number> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name)
  if (m === undefined) return 0
  return (m.values as Array<{ value: number, labels: Record<string, string | number> }>)
    .filter((v) => Object.entries(labels).every(([k, x]) => String(v.labels[k]) === x))
    .reduce((n, v) => n + v.value, 0)
}

/** The error a promise rejects with (fails the test if it resolves). */
export async function rejection<E = Error> (p: Promise<unknown>): Promise<E> {
  try {
    await p
  } catch (err) {
    return err as E
  }
  throw new Error('expected a rejection, got a result')
}
