// GET /readyz: every dependency an answer needs, checked together, each one's state in the body:
// the account store (Redis, when REDIS_URL is set), the data source (can it be listed?), the raw
// cache directory (can units be written?) and the worker pool (does it run tasks?). One of them
// unavailable makes the instance not ready (503 with the same body).
import { StoreUnavailableError, type AccountStore } from '../accounts/index.js'
import type { Health, HostProcesses } from '../contract/index.js'
import type { CheckState } from '../source/index.js'
import type { AppDeps } from './context.js'
import { withinMs } from '../timers.js'

/** How long a probe waits for a slow check (an upstream listing, a busy pool) before calling it unavailable. */
export const READY_WAIT_MS = 2000
/** What a load balancer is asked to wait before probing a not-ready instance again. */
export const NOT_READY_RETRY_AFTER_SECONDS = 5

/** The checks, in the order the body lists them. */
export const READINESS_CHECKS = ['account_store', 'source', 'cache_dir', 'worker_pool'] as const

const NO_DATA_PATH: CheckState = { ok: false, reason: 'this instance has no data path' }

async function storeState (store: AccountStore): Promise<CheckState> {
  try {
    await store.ping()
    return { ok: true, reason: null }
  } catch (err) {
    if (err instanceof StoreUnavailableError) return { ok: false, reason: 'the account store is unreachable' }
    throw err
  }
}

/** A check's state, or not ok with `reason` when it has not answered within `ms` (src/timers.ts). */
async function within (check: Promise<CheckState>, ms: number, reason: string): Promise<CheckState> {
  return await withinMs(check, ms, () => ({ ok: false, reason }))
}

/** A host short of processes still serves (this one answered): a warning, not unreadiness. */
function processesWarning (processes: HostProcesses | undefined): string[] {
  if (processes === undefined || processes.serving >= processes.configured) return []
  return [`${processes.serving} of ${processes.configured} processes serve: the primary is replacing the others ` +
    '(aloft_process_restarts_total counts them)']
}

export async function readiness (deps: AppDeps): Promise<{ ready: boolean, body: Health }> {
  const states: Record<(typeof READINESS_CHECKS)[number], Promise<CheckState>> = {
    account_store: storeState(deps.store),
    source: deps.source?.listable(READY_WAIT_MS) ?? Promise.resolve(NO_DATA_PATH),
    cache_dir: deps.source === undefined ? Promise.resolve(NO_DATA_PATH) : within(deps.source.cacheWritable(),
      READY_WAIT_MS, `the cache directory did not answer within ${READY_WAIT_MS} ms`),
    worker_pool: deps.field?.poolReady(READY_WAIT_MS) ?? Promise.resolve(NO_DATA_PATH)
  }
  const checks: Record<string, 'ok' | 'unavailable'> = {}
  const reasons: Record<string, string> = {}
  for (const name of READINESS_CHECKS) {
    const state = await states[name]
    checks[name] = state.ok ? 'ok' : 'unavailable'
    if (!state.ok) reasons[name] = state.reason ?? 'unavailable'
  }
  const ready = Object.keys(reasons).length === 0
  const processes = deps.host?.()
  const warnings = [...deps.store.warnings(), ...processesWarning(processes)]
  return {
    ready,
    body: {
      status: ready ? 'ok' : 'unavailable',
      checks,
      ...(ready ? {} : { reasons }),
      ...(processes !== undefined ? { processes } : {}),
      ...(warnings.length > 0 ? { warnings } : {})
    }
  }
}

/**
 * readiness(), shared: /readyz is answered at capacity too (a balancer must not pull a busy
 * instance), so a flood of it must not become a flood of store pings, cache writes and pool tasks.
 * Probes that arrive while a check runs wait for it and get its answer; the next one starts anew,
 * so a change is seen at once. A check that never ends (a hung filesystem) is shared for
 * READY_WAIT_MS at most.
 */
export function sharedReadiness (deps: AppDeps): () => Promise<{ ready: boolean, body: Health }> {
  let running: { answer: Promise<{ ready: boolean, body: Health }>, until: number } | undefined
  return async () => {
    if (running === undefined || Date.now() > running.until) {
      const current = { answer: readiness(deps), until: Date.now() + READY_WAIT_MS }
      running = current
      const done = (): void => { if (running === current) running = undefined }
      current.answer.then(done, done)
    }
    return await running.answer
  }
}
