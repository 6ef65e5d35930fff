// What the chaos run reports: per phase, its requests and what they met, and the time to recover;
// per account, the upstream attempts charged against the requests the stand-in received; what
// fails the run; and the report as a table.
import type { UpstreamServer } from '../../../src/standin/server.js'
import { ACCOUNTS } from './cluster.js'
import type { Window } from './phases.js'
import type { Outcome } from './traffic.js'

export interface PhaseReport {
  phase: string
  requests: number
  ok: number
  /** Problem codes answered, with counts. */
  problems: Record<string, number>
  status500: number
  invalidProblems: number
  /** Connection failures to an instance that was down (the client failed over), and others. */
  refusedWhileDown: number
  connectionErrors: number
  /** Seconds from the fault's end until cached and cold profiles succeed again on every instance. */
  recoverySeconds: number | null
}

export interface ChaosReport {
  short: boolean
  seconds: number
  phases: PhaseReport[]
  /** Per account: attempts charged, requests the stand-in received, cold requests a fault cut (reconcileCharges). */
  reconcile: Array<{ account: number, charged: number, upstreamRequests: number, cut: number }>
  ok: boolean
  failures: string[]
}

/**
 * The stand-in's filter requests per account (the column of the tile) against the charges. Every
 * request that reached the upstream was charged, and every charge is a request that reached it —
 * but for an attempt a fault cut between its charge and the stand-in reading it: an instance killed
 * after the charge, the store's answer to a charge lost with Redis, a request that left at the very
 * end of its deadline and was abandoned before the stand-in read it (on a busy machine). The client
 * then saw its cold request cut, or refused 503 service_unavailable or source_busy. So each
 * account's charges lie between what the stand-in received and that plus its cold requests so
 * ended; outside that, the run failed.
 */
export async function reconcileCharges (upstream: UpstreamServer, url: string, keys: string[], outcomes: Outcome[],
  failures: string[]): Promise<ChaosReport['reconcile']> {
  const upstreamByAccount = new Array<number>(ACCOUNTS).fill(0)
  for (const r of upstream.requests) {
    const q = new URL(r.url, 'http://x').searchParams
    if (!r.url.startsWith('/cgi-bin/filter_gfs_0p25.pl')) continue
    const col = Math.round((Number(q.get('leftlon')) - 13) / 0.25)
    upstreamByAccount[((col % ACCOUNTS) + ACCOUNTS) % ACCOUNTS]++
  }
  const reconcile: ChaosReport['reconcile'] = []
  for (let a = 0; a < ACCOUNTS; a++) {
    const res = await fetch(`${url}/v1/atmosphere/usage`, { headers: { 'x-api-key': keys[a] } })
    const usage = await res.json() as { upstream_attempts: number }
    const cut = outcomes.filter((o) => o.kind === 'cold' && o.account === a &&
      (o.status === 0 || o.code === 'service_unavailable' || o.code === 'source_busy')).length
    reconcile.push({ account: a, charged: usage.upstream_attempts, upstreamRequests: upstreamByAccount[a], cut })
    if (usage.upstream_attempts < upstreamByAccount[a] || usage.upstream_attempts > upstreamByAccount[a] + cut) {
      failures.push(`account ${a}: charged ${usage.upstream_attempts} upstream attempts, the stand-in received ` +
        `${upstreamByAccount[a]} (${cut} cold request(s) cut by a fault between a charge and its request)`)
    }
  }
  return reconcile
}

export function phaseReports (names: string[], outcomes: Outcome[], windows: Window[], instances: number):
PhaseReport[] {
  return names.map((name) => {
    const xs = outcomes.filter((o) => o.phase === name)
    const problems: Record<string, number> = {}
    for (const o of xs) if (o.code !== undefined) problems[o.code] = (problems[o.code] ?? 0) + 1
    const window = windows.find((w) => w.name === name)
    let recoverySeconds: number | null = null
    if (window !== undefined) {
      const after = outcomes.filter((o) => o.at >= window.end && (o.kind === 'cached' || o.kind === 'cold'))
      const firstOk = Array.from({ length: instances }, (_, i) => ['cached', 'cold'].map((kind) =>
        after.find((o) => o.instance === i && o.kind === kind && o.status === 200)?.at ?? null)).flat()
      recoverySeconds = firstOk.some((x) => x === null) ? null : Math.max(0,
        ...firstOk.map((x) => (x as number) - window.end)) / 1000
    }
    return {
      phase: name,
      requests: xs.length,
      ok: xs.filter((o) => o.status === 200 || o.status === 201).length,
      problems,
      status500: xs.filter((o) => o.status >= 500 && o.status !== 502 && o.status !== 503).length,
      invalidProblems: xs.filter((o) => !o.validProblem).length,
      refusedWhileDown: xs.filter((o) => o.status === 0 && o.error === 'down').length,
      connectionErrors: xs.filter((o) => o.status === 0 && o.error !== 'down').length,
      recoverySeconds
    }
  })
}

/** What fails the run in its phases: 5xx, invalid problems, connection errors, no recovery, a failed baseline. */
export function phaseFailures (phases: PhaseReport[], outcomes: Outcome[], cutAllowed: Record<string, number>):
string[] {
  const failures: string[] = []
  for (const p of phases) {
    if (p.status500 > 0) failures.push(`${p.phase}: ${p.status500} answer(s) 5xx other than 502/503`)
    if (p.invalidProblems > 0) {
      failures.push(`${p.phase}: ${p.invalidProblems} non-200 answer(s) not a valid problem document`)
    }
    if (p.connectionErrors > (cutAllowed[p.phase] ?? 0)) {
      failures.push(`${p.phase}: ${p.connectionErrors} connection error(s) to a running instance` +
        (cutAllowed[p.phase] !== undefined ? ` (at most ${cutAllowed[p.phase]} were in flight on it)` : ''))
    }
    if (p.phase !== 'baseline' && p.recoverySeconds === null) failures.push(`${p.phase}: no recovery observed`)
  }
  if (phases[0].ok !== phases[0].requests - outcomes.filter((o) => o.phase === 'baseline' &&
    o.kind === 'invalid').length) {
    failures.push('baseline: not every valid request succeeded')
  }
  return failures
}

/** Each 5xx answer's phase, instance, kind and detail, counted (the verbose run's log). */
export function logServerErrors (outcomes: Outcome[], log: (msg: string) => void): void {
  const seen = new Map<string, number>()
  for (const o of outcomes.filter((x) => x.status >= 500)) {
    const k = `${o.phase} | instance ${o.instance} | ${o.kind} ${o.status} ${o.detail}`
    seen.set(k, (seen.get(k) ?? 0) + 1)
  }
  for (const [k, n] of seen) log(`${n}× ${k}`)
}

export function formatChaos (report: ChaosReport): string {
  const rows = report.phases.map((p) => [
    p.phase, String(p.requests), String(p.ok),
    Object.entries(p.problems).map(([c, n]) => `${c} ${n}`).join(', ') || '—',
    String(p.status500), String(p.invalidProblems), String(p.refusedWhileDown), String(p.connectionErrors),
    p.recoverySeconds === null ? (p.phase === 'baseline' ? '—' : 'none') : p.recoverySeconds.toFixed(1)
  ])
  const header = ['phase', 'requests', 'ok', 'problems (code count)', '5xx (not 502/503)', 'bad problems',
    'refused (down)',
    'conn. errors', 'recovery s']
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)))
  const line = (r: string[]): string => r.map((x, c) => x.padEnd(widths[c])).join('  ').trimEnd()
  return [line(header), ...rows.map(line), '',
    'reconcile: ' + report.reconcile
      .map((r) => `account ${r.account} charged ${r.charged} / upstream ${r.upstreamRequests} (${r.cut} cut)`)
      .join('; '),
    report.ok ? 'result: OK' : `result: FAILED\n  ${report.failures.join('\n  ')}`].join('\n')
}
