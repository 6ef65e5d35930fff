// bench/clients: what the clients cost a caller, beside the bare HTTP they wrap. Sequential hot
// profiles from one caller (what a script in a loop does): plain fetch and @aloft/client in this
// process, plain urllib and aloft.Client in Debian's python3 (clients/python/src on PYTHONPATH),
// alternated round by round; then 10 000-point samples as JSON columns, as an Arrow table and as a
// pandas frame. Client CPU a call is the caller's own process time; the server's is beside it.
//   npm run build && node dist/bench/clients.js [--calls 400] [--rounds 5] [--points 10000]
import { execFile, execFileSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { createClient } from '../clients/typescript/src/index.js'
import { int, machine, ms, numberArg, ROOT, SAMPLE, serverCpuUs, startServer, table, writeResult } from './lib/index.js'
import { percentile } from './lib/stats.js'

const median = (xs: number[]): number => percentile([...xs].sort((a, b) => a - b), 50)

const exec = promisify(execFile)
const CALLS = numberArg('--calls', 400)
const ROUNDS = numberArg('--rounds', 5)
const POINTS = numberArg('--points', 10_000)
const PYTHON = '/usr/bin/python3'
const PROFILE = {
  latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z', altitudes_m: [300, 1000, 3000, 10000],
  altitude_reference: 'agl' as const
}
const hasPython = ((): boolean => {
  try { execFileSync(PYTHON, ['-c', 'import pandas'], { stdio: 'ignore' }); return true } catch { return false }
})()

const server = await startServer({ ALOFT_SOURCE: `mirror:${SAMPLE}`, ALOFT_WORKERS: '1' })
const { aloftUrl: url, key } = server.info
const client = createClient({ baseUrl: url, apiKey: key })

/** One caller's run: wall seconds and its own CPU seconds for `calls` calls. */
interface Run { wall: number, cpu: number }

async function inNode (call: () => Promise<unknown>, calls: number): Promise<Run> {
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  for (let i = 0; i < calls; i++) await call()
  const cpu = process.cpuUsage(cpu0)
  return { wall: (performance.now() - t0) / 1000, cpu: (cpu.user + cpu.system) / 1e6 }
}

const rawFetch = async (): Promise<unknown> => {
  const res = await fetch(`${url}/v1/atmosphere/profile`, { method: 'POST', body: JSON.stringify(PROFILE),
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json', Accept: 'application/json' } })
  if (!res.ok) throw new Error(`HTTP ${res.status}`)
  return await res.json()
}

/** The same loop in python3; `code` is the body of one call (`body`, `url`, `key` and `aloft` in scope). */
async function inPython (code: string, calls: number): Promise<Run> {
  const script = `
import json, os, time, urllib.request
import aloft
url, key = os.environ["URL"], os.environ["KEY"]
body = json.loads(os.environ["BODY"])
client = aloft.Client(url, key)
def call():
${code.split('\n').map((l) => `    ${l}`).join('\n')}
call()
c0, t0 = time.process_time(), time.perf_counter()
for _ in range(int(os.environ["CALLS"])):
    call()
print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}))
`
  const { stdout } = await exec(PYTHON, ['-c', script], { env: { PATH: process.env.PATH ?? '', URL: url, KEY: key,
    BODY: JSON.stringify(PROFILE), CALLS: String(calls), PYTHONPATH: `${ROOT}clients/python/src` } })
  return JSON.parse(stdout) as Run
}

const PY_RAW = `req = urllib.request.Request(url + "/v1/atmosphere/profile", data=json.dumps(body).encode(),
    method="POST", headers={"X-API-Key": key, "Content-Type": "application/json", "Accept": "application/json"})
with urllib.request.urlopen(req) as r:
    json.loads(r.read())`
const PY_CLIENT = 'client.profile(**body)'

const callers: Array<{ name: string, run: () => Promise<Run> }> = [
  { name: 'Node fetch', run: () => inNode(rawFetch, CALLS) },
  { name: 'Node @aloft/client', run: () => inNode(() => client.profile(PROFILE), CALLS) },
  ...(hasPython
    ? [{ name: 'python3 urllib', run: () => inPython(PY_RAW, CALLS) },
        { name: 'python3 aloft.Client', run: () => inPython(PY_CLIENT, CALLS) }]
    : [])
]

await inNode(rawFetch, 50) // warm: the unit decoded, the connections open
const seen = new Map<string, { rate: number[], cpu: number[], server: number[] }>()
for (let round = 0; round < ROUNDS; round++) {
  for (const caller of round % 2 === 0 ? callers : [...callers].reverse()) {
    const s0 = await serverCpuUs(server)
    const run = await caller.run()
    const serverUs = (await serverCpuUs(server) - s0) / CALLS
    const row = seen.get(caller.name) ?? { rate: [], cpu: [], server: [] }
    row.rate.push(CALLS / run.wall)
    row.cpu.push(run.cpu / CALLS * 1e6)
    row.server.push(serverUs)
    seen.set(caller.name, row)
  }
}

const m = machine()
console.log(`clients on ${m.cpu}, ${m.cores} cores, Node ${m.node}; ${CALLS} sequential hot profiles a run, ` +
  `${ROUNDS} rounds alternated (medians)${hasPython ? '' : '; no python3 with pandas: Python rows left out'}\n`)
console.log(table(['caller', 'calls/s', 'caller CPU µs a call', 'server CPU µs a call'],
  [...seen].map(([name, r]) => [name, int(median(r.rate)), int(median(r.cpu)), int(median(r.server))])))

// samples: the same points through each way of reading them
const n = POINTS
const samples = {
  latitude: Array.from({ length: n }, (_, i) => 48.5 + 7 * ((i * 0.618) % 1)),
  longitude: Array.from({ length: n }, (_, i) => 13.5 + 11 * ((i * 0.414) % 1)),
  altitude_m: Array.from({ length: n }, (_, i) => 300 + (i % 100) * 100),
  time: '2020-08-04T13:00:00Z', altitude_reference: 'agl' as const
}
// a file, not the environment: 10 000 points are more than an environment may hold
const bodyFile = join(await mkdtemp(join(tmpdir(), 'aloft-bench-clients-')), 'samples.json')
await writeFile(bodyFile, JSON.stringify(samples))
const ways: Array<{ name: string, run: () => Promise<Run> }> = [
  { name: 'Node samples (JSON columns)', run: () => inNode(() => client.samples(samples), 1) },
  { name: 'Node samplesArrow (Table)', run: () => inNode(() => client.samplesArrow(samples), 1) },
  ...(hasPython
    ? [{ name: 'python3 samples_frame (JSON)', run: async () => {
        const { stdout } = await exec(PYTHON, ['-c', `
import json, os, time, aloft
with open(os.environ["BODY_FILE"]) as f:
    body = json.load(f)
client = aloft.Client(os.environ["URL"], os.environ["KEY"])
client.samples_frame(**body)
c0, t0 = time.process_time(), time.perf_counter()
frame = client.samples_frame(**body)
assert len(frame) == ${n}
print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}))`], {
          env: { PATH: process.env.PATH ?? '', URL: url, KEY: key, BODY_FILE: bodyFile,
            PYTHONPATH: `${ROOT}clients/python/src` }, maxBuffer: 1 << 26 })
        return JSON.parse(stdout) as Run
      } }]
    : [])
]
await ways[0].run()
const sampleRows: string[][] = []
const sampleSeen = new Map<string, Run[]>()
for (let round = 0; round < ROUNDS; round++) {
  for (const way of ways) sampleSeen.set(way.name, [...(sampleSeen.get(way.name) ?? []), await way.run()])
}
for (const [name, runs] of sampleSeen) {
  sampleRows.push([name, ms(median(runs.map((r) => r.wall * 1000)), 0), ms(median(runs.map((r) => r.cpu * 1000)), 0)])
}
console.log(`\n${n} samples in one call (medians of ${ROUNDS})\n`)
console.log(table(['way', 'wall ms', 'caller CPU ms'], sampleRows))
writeResult('clients', { machine: m, calls: CALLS, rounds: ROUNDS, profiles: Object.fromEntries(seen),
  samples: Object.fromEntries(sampleSeen) })
await server.stop()
await rm(dirname(bodyFile), { recursive: true, force: true })
