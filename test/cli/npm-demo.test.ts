// `npm run demo` stops when the process that started it is stopped: a signal to npm's PID or to the
// demo's own, or npm killed outright, leaves neither the demo serving nor its port taken (a demo left
// behind makes the next one exit 3). Real npm, real signals; the demo found as npm's descendant.
import t, { type Test } from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { ROOT } from '../helpers/paths.js'

// five demos, each started through npm; where a stop is broken every wait runs out its bound
t.setTimeout(240_000)

interface NpmDemo { npm: ChildProcess, demo: number, port: number }
interface Proc { pid: number, argv: string[] }

/** `PORT=0 npm run demo` in the clone, once it has printed its "Ctrl-C" line. */
async function npmRunDemo (t: Test): Promise<NpmDemo> {
  // PATH and HOME only: not tap's NODE_OPTIONS, which would make every node below report coverage
  const npm = spawn('npm', ['run', 'demo'], {
    cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', ALOFT_WORKERS: '1' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  npm.stdout.on('data', (d) => { stdout += d })
  for (let i = 0; i < 1800 && !stdout.includes('Ctrl-C') && npm.exitCode === null; i++) await sleep(50)
  const port = Number(/on http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout)?.[1])
  const below = await descendants(npm.pid!)
  // whatever a failed test leaves behind must not serve on
  t.teardown(() => {
    for (const pid of [npm.pid!, ...below.map((p) => p.pid)]) if (running(pid)) process.kill(pid, 'SIGKILL')
  })
  // node itself, not a shell whose command line names it
  const demo = below.find((p) => /(^|\/)node$/.test(p.argv[0]) && p.argv.at(-1) === 'demo')?.pid
  if (demo === undefined || !(port > 0)) throw new Error(`npm run demo did not start: ${stdout}`)
  return { npm, demo, port }
}

/** The processes below `pid`, from /proc. */
async function descendants (pid: number): Promise<Proc[]> {
  const parents = new Map<number, number>()
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')
    // the command's name may hold spaces and parentheses: the fields that follow come after the last ')'
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    if (stat !== '') parents.set(Number(entry), ppid)
  }
  const below: Proc[] = []
  for (const [child] of parents) {
    let up = parents.get(child)
    while (up !== undefined && up !== pid && up > 1) up = parents.get(up)
    if (up !== pid) continue
    const argv = (await readFile(`/proc/${child}/cmdline`, 'utf8').catch(() => '')).split('\0').slice(0, -1)
    below.push({ pid: child, argv })
  }
  return below
}

/** Whether `pid` is a live process (a zombie nobody has reaped yet has stopped). */
function running (pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return false
  }
  return stat[stat.lastIndexOf(')') + 2] !== 'Z'
}

/** Whether a server may listen on the port, as the next demo would. */
async function portFree (port: number): Promise<boolean> {
  const server = createServer()
  return await new Promise((resolve) => {
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

async function sleep (ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms))
}

/** Waits until the process has ended: a stop takes about a second, the bound is for a shared machine. */
async function ended (pid: number): Promise<boolean> {
  for (let i = 0; i < 1200 && running(pid); i++) await sleep(50)
  return !running(pid)
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  t.test(`${signal} to npm's PID stops the demo and frees its port`, async (t) => {
    const { npm, demo, port } = await npmRunDemo(t)
    npm.kill(signal)
    t.ok(await ended(demo), 'the demo\'s process is gone')
    t.ok(await portFree(port), 'its port is free')
    t.ok(await ended(npm.pid!), 'npm has ended')
  })

  t.test(`${signal} to the demo's own PID stops it, frees its port and ends npm`, async (t) => {
    const { npm, demo, port } = await npmRunDemo(t)
    process.kill(demo, signal)
    t.ok(await ended(demo), 'the demo\'s process is gone')
    t.ok(await portFree(port), 'its port is free')
    t.ok(await ended(npm.pid!), 'npm has ended')
  })
}

t.test('npm killed outright (SIGKILL): the demo notices its parent is gone and stops', async (t) => {
  const { npm, demo, port } = await npmRunDemo(t)
  npm.kill('SIGKILL')
  t.ok(await ended(demo), 'the demo\'s process is gone')
  t.ok(await portFree(port), 'its port is free')
})
