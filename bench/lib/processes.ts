// What the operator-style benchmarks (bench/chaos.ts, bench/deploy-check.ts) start as separate
// processes: a free port, a wait until something answers, a persistent throwaway Redis that can
// be killed and restarted, and an aloft instance (the built `aloft serve`) that can be killed.
import { spawn, type ChildProcess } from 'node:child_process'
import { readFile, readdir } from 'node:fs/promises'
import { connect, createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { track } from './children.js'

/** The repository root, from dist/bench/lib/*.js or bench/lib/*.ts alike. */
export const REPO = fileURLToPath(
  new URL(import.meta.url.includes('/dist/') ? '../../../' : '../../', import.meta.url))

export function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.on('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

/**
 * Until `check` says yes. What it waits for either comes or never does (a process that cannot start,
 * a fault that is not mended): the default bound only turns "never" into a message, so it is long
 * enough for a machine shared with others (an instance's start took 20 s at a load of 9), and shorter
 * than a test file's 120 s.
 */
export async function waitFor (what: string, check: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const until = Date.now() + timeoutMs
  for (;;) {
    if (await check().catch(() => false)) return
    if (Date.now() > until) throw new Error(`${what} did not come up within ${timeoutMs} ms`)
    await sleep(50)
  }
}

/** A persistent throwaway Redis (append-only file, fsync always) that can be killed and restarted. */
export class ThrowawayRedis {
  child: ChildProcess | null = null
  constructor (readonly port: number, readonly dir: string) {}
  get url (): string { return `redis://127.0.0.1:${this.port}` }
  async start (): Promise<void> {
    this.child = track(spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '',
      '--appendonly', 'yes', '--appendfsync', 'always', '--dir', this.dir, '--logfile', join(this.dir, 'redis.log')],
    { stdio: 'ignore' }))
    await waitFor('redis-server', async () => await pingRedis(this.port))
  }

  async kill (): Promise<void> {
    const child = this.child
    if (child === null) return
    this.child = null
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
  }
}

export function pingRedis (port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ port, host: '127.0.0.1' })
    let buf = ''
    const done = (ok: boolean): void => { s.destroy(); resolve(ok) }
    s.setTimeout(500, () => done(false))
    s.on('error', () => done(false))
    s.on('connect', () => s.write('PING\r\n'))
    s.on('data', (d) => { buf += String(d); if (buf.includes('\r\n')) done(buf.startsWith('+PONG')) })
  })
}

/**
 * One `aloft serve` on its own port (a host of several processes with ALOFT_PROCESSES), started
 * (until /healthz answers), made ready, stopped and killed at will, as an operator's service manager
 * does.
 */
export class AloftInstance {
  child: ChildProcess | null = null
  /** Started and answering: from its first /healthz until it is killed. */
  alive = false
  constructor (readonly port: number, private readonly env: NodeJS.ProcessEnv,
    private readonly log: (line: string) => void = () => {}) {}

  get url (): string { return `http://127.0.0.1:${this.port}` }

  async start (): Promise<void> {
    const child = track(spawn(process.execPath, [join(REPO, 'dist/src/cli/main.js'), 'serve'],
      { env: { ...this.env, PORT: String(this.port) }, stdio: ['ignore', 'pipe', 'pipe'] }))
    this.child = child
    const relay = (d: Buffer): void => this.log(`instance ${this.port}: ${d.toString().trim().slice(0, 400)}`)
    child.stdout?.on('data', relay)
    child.stderr?.on('data', relay)
    await waitFor(`instance on ${this.port}`, async () => {
      if (child.exitCode !== null) throw new Error(`instance on ${this.port} exited ${child.exitCode}`)
      return (await fetch(`${this.url}/healthz`)).ok
    })
    this.alive = true
  }

  /** Until /readyz answers 200 (the worker threads run) with every process of a host serving. */
  async ready (): Promise<void> {
    await waitFor(`instance on ${this.port} ready`, async () => {
      const res = await fetch(`${this.url}/readyz`)
      const body = await res.json() as { processes?: { serving: number, configured: number } }
      return res.ok && (body.processes === undefined || body.processes.serving === body.processes.configured)
    })
  }

  /** The processes answering its port: the one it started, or a host's serving processes. */
  async processes (): Promise<number[]> {
    const pid = this.child?.pid
    if (pid === undefined) return []
    const children = await processesOf(pid)
    return children.length > 0 ? children : [pid]
  }

  /**
   * Signals it and waits until every process of it has exited: SIGTERM to the process started (a
   * host's primary passes it on and drains them all), SIGKILL to each of them, as a service manager
   * kills a unit's whole group.
   */
  async kill (signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child
    this.alive = false
    this.child = null
    if (child === null || child.exitCode !== null) return
    const all = [...await processesOf(child.pid!), child.pid!]
    const exited = new Promise((resolve) => child.once('exit', resolve))
    if (signal === 'SIGKILL') for (const pid of all) signalProcess(pid, 'SIGKILL')
    else child.kill(signal)
    await exited
    await waitFor(`every process of the instance on ${this.port} gone`, async () =>
      (await Promise.all(all.map(gone))).every(Boolean), 60_000)
  }
}

/** Signals a process that may have exited already (then there is nothing to do). */
function signalProcess (pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err
  }
}

/** Whether a process has ended (gone, or a zombie nobody has reaped yet). */
export async function gone (pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null)
  return stat === null || stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')
}

/** The processes a host's primary forked (its children, read from /proc; Linux). */
export async function processesOf (pid: number): Promise<number[]> {
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[])
  const lists = await Promise.all(tasks.map(async (t) =>
    await readFile(`/proc/${pid}/task/${t}/children`, 'utf8').catch(() => '')))
  return lists.flatMap((l) => l.split(' ').filter((s) => s !== '').map(Number))
}
