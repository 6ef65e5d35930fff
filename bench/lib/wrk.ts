// wrk (Debian package `wrk`) as the closed-loop generator when it is installed: C, epoll, far
// less overhead per request than any Node client. A Lua script sets the request and prints
// wrk's own summary as one JSON line. Falls back to bench/loadgen (closed loop) when absent.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { track, stop } from './children.js'
import { loadgen } from './loadgen-child.js'

export const WRK = ['/usr/bin/wrk', '/usr/local/bin/wrk'].find((p) => existsSync(p)) ?? null

export interface ClosedRun {
  tool: 'wrk' | 'loadgen'
  rps: number
  requests: number
  /** Answers not 2xx/3xx, plus socket errors and timeouts. */
  errors: number
  p50Ms: number
  p99Ms: number
  maxMs: number
}

export interface ClosedTarget {
  url: string
  method: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
  /** Bodies sent in turn (one per request), instead of `body`. */
  bodies?: string[]
  /** A file of bodies, one per line, sent in order (for mixes too large to inline in the script). */
  bodyFile?: string
}

const lua = (s: string): string => JSON.stringify(s) // a JSON string is a valid Lua string here (ASCII)

/** The string.format pattern of `done` below: wrk's summary as one JSON line. */
const SUMMARY_FORMAT = '{"requests":%d,"duration_us":%d,"status":%d,"connect":%d,"read":%d,"write":%d,' +
  '"timeout":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\\n'

function script (t: ClosedTarget): string {
  const lines = [`wrk.method = ${lua(t.method)}`]
  if (t.body !== undefined) lines.push(`wrk.body = ${lua(t.body)}`)
  if (t.bodies !== undefined) {
    lines.push(`bodies = { ${t.bodies.map(lua).join(', ')} }`)
    // formatted once per thread in init: formatting each request in Lua would make wrk the bottleneck
    lines.push('local prepared = {}\nlocal turn = 0')
    lines.push('init = function(args)\n' +
      '  for k, b in ipairs(bodies) do prepared[k] = wrk.format(nil, nil, nil, b) end\nend')
    lines.push('request = function()\n  turn = turn % #prepared + 1\n  return prepared[turn]\nend')
  }
  if (t.bodyFile !== undefined) {
    lines.push('local prepared = {}\nlocal turn = 0')
    lines.push(`init = function(args)\n  for b in io.lines(${lua(t.bodyFile)}) do\n` +
      '    prepared[#prepared + 1] = wrk.format(nil, nil, nil, b)\n  end\nend')
    lines.push('request = function()\n  turn = turn % #prepared + 1\n  return prepared[turn]\nend')
  }
  for (const [k, v] of Object.entries(t.headers ?? {})) lines.push(`wrk.headers[${lua(k)}] = ${lua(v)}`)
  lines.push(`done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('${SUMMARY_FORMAT}',
    summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end`)
  return lines.join('\n') + '\n'
}

async function wrk (t: ClosedTarget, connections: number, seconds: number): Promise<ClosedRun> {
  const dir = await mkdtemp(join(tmpdir(), 'aloft-wrk-'))
  try {
    await writeFile(join(dir, 'run.lua'), script(t))
    const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', join(dir, 'run.lua'), t.url]
    const child = track(spawn(WRK!, args, { stdio: ['ignore', 'pipe', 'pipe'] }))
    let out = ''
    let err = ''
    child.stdout!.on('data', (d: Buffer) => { out += d.toString() })
    child.stderr!.on('data', (d: Buffer) => { err += d.toString() })
    const timer = setTimeout(() => { void stop(child) }, (seconds + 20) * 1000)
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)))
    clearTimeout(timer)
    const line = out.split('\n').find((l) => l.startsWith('{"requests"'))
    if (code !== 0 || line === undefined) {
      throw new Error(`wrk failed (${code}): ${err.trim()} ${out.trim().slice(-500)}`)
    }
    const r = JSON.parse(line) as Record<string, number>
    return {
      tool: 'wrk',
      rps: r.requests / (r.duration_us / 1e6),
      requests: r.requests,
      errors: r.status + r.connect + r.read + r.write + r.timeout,
      p50Ms: r.p50_us / 1000,
      p99Ms: r.p99_us / 1000,
      maxMs: r.max_us / 1000
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

function fileLines (path: string): string[] {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l !== '')
}

/** Maximum throughput against one target: wrk when installed, else bench/loadgen closed loop. */
export async function closedLoop (
  t: ClosedTarget,
  options: { connections: number, seconds: number, warmupSeconds: number, tool?: 'wrk' | 'loadgen' }
): Promise<ClosedRun> {
  const tool = options.tool ?? (WRK !== null ? 'wrk' : 'loadgen')
  if (tool === 'wrk') {
    if (options.warmupSeconds > 0) await wrk(t, options.connections, options.warmupSeconds)
    return await wrk(t, options.connections, options.seconds)
  }
  const r = await loadgen({
    mode: 'closed',
    connections: options.connections,
    seconds: options.seconds,
    warmupSeconds: options.warmupSeconds,
    requests: (t.bodyFile !== undefined ? fileLines(t.bodyFile) : t.bodies ?? [t.body]).map((body) => ({
      kind: 'target', url: t.url, method: t.method, headers: t.headers, body
    }))
  })
  const ok = Object.entries(r.outcomes)
    .filter(([k]) => /^\S+ [23]\d\d$/.test(k))
    .reduce((n, [, v]) => n + v, 0)
  return {
    tool: 'loadgen',
    rps: r.rps,
    requests: r.completed,
    errors: r.completed + r.unfinished - ok,
    p50Ms: r.latencyMs.p50,
    p99Ms: r.latencyMs.p99,
    maxMs: r.latencyMs.max
  }
}
