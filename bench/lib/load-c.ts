// bench/children/loadgen.c, the open loop's C client, driven from Node: compiled on first use, given
// the run's requests as bytes in a file, its rows read back as the same LoadResult as the Node
// clients'.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LoadResult, LoadSpec } from './load-spec.js'
import { resultOf, type Measured } from './load-summary.js'
import { DIST_BENCH, ROOT } from './paths.js'
import { MAKE_AHEAD_MAX, type Prepared } from './load-requests.js'
import { formatRequest } from './raw-client.js'

/** One answered (or failed) request of a C run. */
interface CRow { index: number, due: number, latency: number, status: number }

/**
 * bench/children/loadgen.c's binary, compiled from the repository's source when missing or older than
 * it (a C compiler, `cc`, is needed); its path.
 */
function cLoadgen (): string {
  const source = join(ROOT, 'bench', 'children', 'loadgen.c')
  const binary = join(DIST_BENCH, 'children', 'loadgen-c')
  if (!existsSync(binary) || statSync(binary).mtimeMs < statSync(source).mtimeMs) {
    // built beside it and renamed into place: a second process compiling at the same time never runs half a file
    const building = `${binary}.${process.pid}`
    execFileSync('cc', ['-O2', '-Wall', '-o', building, source], { stdio: ['ignore', 'ignore', 'pipe'] })
    renameSync(building, binary)
  }
  return binary
}

/** Whether the C client can run here (it compiles, or is compiled). */
export function hasCLoadgen (): boolean {
  try {
    cLoadgen()
    return true
  } catch {
    return false
  }
}

const C_ERRORS: Record<number, string> = { [-1]: 'error:timeout', [-2]: 'error:connection', [-3]: 'error:unfinished' }

/** Runs the C open loop over these request bytes, in this order; its rows and lag. */
async function runC (host: string, port: number, spec: LoadSpec, requests: Buffer[]):
Promise<{ rows: CRow[], lagMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'aloft-loadgen-'))
  try {
    const file = join(dir, 'requests.bin')
    const count = Buffer.alloc(4)
    count.writeUInt32LE(requests.length)
    const parts: Buffer[] = [count]
    for (const r of requests) {
      const length = Buffer.alloc(4)
      length.writeUInt32LE(r.length)
      parts.push(length, r)
    }
    writeFileSync(file, Buffer.concat(parts))
    const endMs = ((spec.warmupSeconds ?? 0) + spec.seconds) * 1000
    const args = [host === 'localhost' ? '127.0.0.1' : host, String(port), String(spec.connections), String(spec.rate),
      String(endMs), String((spec.drainSeconds ?? 10) * 1000), String(spec.timeoutMs ?? 10_000), file]
    const child = spawn(cLoadgen(), args, { stdio: ['ignore', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (d: Buffer) => out.push(d))
    child.stderr.on('data', (d: Buffer) => err.push(d))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    if (code !== 0) {
      throw new Error(`bench/children/loadgen.c exited ${String(code)}: ${Buffer.concat(err).toString()}`)
    }
    const rows: CRow[] = []
    let lagMs = NaN
    for (const line of Buffer.concat(out).toString().split('\n')) {
      if (line.startsWith('# lag_ms ')) lagMs = Number(line.slice(9))
      else if (line !== '') {
        const [index, due, latency, status] = line.split(' ').map(Number)
        rows.push({ index, due, latency, status })
      }
    }
    return { rows, lagMs }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A C run's rows as Measured (the same reading as the Node clients': unanswered ones are not latencies). */
function summarizeRun (spec: LoadSpec, kindNames: string[], rows: Array<CRow & { k: number }>, lagMs: number):
LoadResult {
  const warmupMs = (spec.warmupSeconds ?? 0) * 1000
  const measureMs = spec.seconds * 1000
  const m: Measured = { spec, kindNames, starts: [], latencies: [], kinds: [], failed: [], outcomes: {}, sent: 0,
    elapsedMs: measureMs, schedulerLagMs: lagMs, unfinished: 0 }
  for (const r of rows) {
    if (r.status === -3) { m.unfinished++; continue }
    if (r.due < warmupMs || r.due >= warmupMs + measureMs) continue
    m.sent++
    const outcome = r.status >= 0 ? String(r.status) : C_ERRORS[r.status] ?? `error:${r.status}`
    m.starts.push(r.due - warmupMs)
    m.latencies.push(r.latency)
    m.kinds.push(r.k)
    m.failed.push(r.status < 0 || r.status >= 500 ? 1 : 0)
    const key = `${kindNames[r.k]} ${outcome}`
    m.outcomes[key] = (m.outcomes[key] ?? 0) + 1
  }
  if (m.unfinished > 0) m.outcomes['all error:unfinished'] = m.unfinished
  return resultOf(m)
}

/** An open loop run by the C client: every request's bytes made before it starts, in the drawn order. */
export async function runOpenC (spec: LoadSpec, prepared: Prepared[], pick: () => number, maxRequests: number):
Promise<LoadResult> {
  if (spec.mode !== 'open') throw new Error('the C client runs open loops only')
  const freshKinds = prepared.filter((p) => p.fresh !== null).length
  if (maxRequests * freshKinds > MAKE_AHEAD_MAX) {
    throw new Error(`the C client makes every request ahead: at most ${MAKE_AHEAD_MAX} fresh ones`)
  }
  const rawBytes = prepared.map((p) => p.fresh === null
    ? formatRequest(p.method, p.host, p.port, p.path, p.headers, p.body)
    : null)
  const sequence = Array.from({ length: maxRequests }, pick)
  const bytes = sequence.map((k) => rawBytes[k] ?? formatRequest(prepared[k].method, prepared[k].host,
    prepared[k].port, prepared[k].path, prepared[k].headers, Buffer.from(prepared[k].fresh!())))
  const ran = await runC(prepared[0].host, prepared[0].port, spec, bytes)
  return summarizeRun(spec, prepared.map((p) => p.kind), ran.rows.map((r) => ({ ...r, k: sequence[r.index] })),
    ran.lagMs)
}
