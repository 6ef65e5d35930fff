// bench/chaos: aloft as an operator runs it — two instances on one persistent Redis and one cache
// directory, the local NOAA stand-in as the grib filter — under a steady mixed load (cached and
// cold profiles, key reads, operator writes, invalid bodies), while faults are injected in turn:
// Redis killed and restarted, Redis down for a while, an instance killed, upstream 5xx, hangs,
// resets and slow bodies, slow-header and slow-body clients, hostile bodies. Then it reconciles:
// per account, upstream attempts charged = requests the stand-in received for that account's
// units; no 500; every non-200 a valid problem document; the recovery time after each fault.
//   npx tsc -p tsconfig.json && node dist/bench/chaos.js [--short] [--default-timeouts] [--processes 2]
// (--processes: each instance a host of that many processes, and one of them killed as a fault)
// Prints a table and writes bench/results/chaos.json. `runChaos({ short: true })` (under a
// minute) is run by the test suite (test/chaos.test.ts). Its parts are in bench/lib/chaos/.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { startUpstream, type UpstreamServer } from '../src/standin/server.js'
import { freePort, ThrowawayRedis } from './lib/processes.js'
import {
  ChaosBodies, createAccounts, Instance, instanceEnv, SAMPLE, startInstance, warmUp, type ChaosOptions
} from './lib/chaos/cluster.js'
import { allFaults, chosenFaults } from './lib/chaos/faults.js'
import { runPhases } from './lib/chaos/phases.js'
import {
  formatChaos, logServerErrors, phaseFailures, phaseReports, reconcileCharges, type ChaosReport
} from './lib/chaos/report.js'
import { Traffic } from './lib/chaos/traffic.js'

export type { ChaosOptions } from './lib/chaos/cluster.js'
export { formatChaos, type ChaosReport, type PhaseReport } from './lib/chaos/report.js'

export async function runChaos (options: ChaosOptions = {}): Promise<ChaosReport> {
  const short = options.short === true
  const log = (msg: string): void => { if (options.verbose === true) process.stderr.write(`[chaos] ${msg}\n`) }
  const dir = await mkdtemp(join(tmpdir(), 'aloft-chaos-'))
  const redis = new ThrowawayRedis(await freePort(), dir)
  const upstream: UpstreamServer = await startUpstream({ root: SAMPLE })
  const instances: Instance[] = []
  const started = Date.now()
  const traffic = new Traffic(instances, started)
  try {
    await redis.start()
    const env = instanceEnv(options, redis.url, upstream.filterUrl, dir)
    for (let k = 0; k < 2; k++) instances.push(new Instance(await freePort(), env, log))
    await Promise.all(instances.map(startInstance))
    // the warm-up's first cold fetch must not race the worker threads' start on a loaded machine
    for (const inst of instances) await inst.ready()
    const keys = await createAccounts(instances[0].url)
    const bodies = new ChaosBodies()
    await warmUp(instances, keys, bodies.cached)

    // steady load: per second, `rate` requests of each kind, each account in turn
    traffic.startMix(keys, bodies)
    const cutAllowed: Record<string, number> = {}
    const faults = chosenFaults(allFaults({ short, processes: options.processes ?? 1, redis, upstream, instances,
      traffic, keys, bodies, log, cutAllowed }), options.only)
    const windows = await runPhases(traffic, instances, faults, short, started, log)
    traffic.phase = 'after'
    await traffic.stop()
    // let fetches still under way finish before counting charges against the stand-in
    await sleep(short ? 2800 : 9000)

    const failures: string[] = []
    const reconcile = await reconcileCharges(upstream, traffic.live()[0].url, keys, traffic.outcomes, failures)
    const phases = phaseReports(['baseline', ...faults.map((f) => f.name)], traffic.outcomes, windows,
      instances.length)
    failures.push(...phaseFailures(phases, traffic.outcomes, cutAllowed))
    if (options.verbose === true) logServerErrors(traffic.outcomes, log)
    return { short, seconds: (Date.now() - started) / 1000, phases, reconcile, ok: failures.length === 0, failures }
  } finally {
    for (const inst of instances) inst.child?.kill('SIGKILL')
    await redis.kill()
    await upstream.close()
    if (process.env.CHAOS_KEEP !== undefined) process.stderr.write(`[chaos] kept ${dir}\n`)
    else await rm(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const short = process.argv.includes('--short')
  const at = process.argv.indexOf('--processes')
  const processes = at > 0 ? Number(process.argv[at + 1]) : 1
  // --default-timeouts: the Redis restart scenario with aloft's own upstream timeouts (30 s, 20 s)
  const report = process.argv.includes('--default-timeouts')
    ? await runChaos({ short, verbose: true, defaultTimeouts: true, only: ['redis killed (-9) under'] })
    : await runChaos({ short, verbose: true, processes })
  console.log(`chaos: two instances of ${processes} process(es) each, one persistent Redis, ` +
    'the NOAA stand-in as grib filter; ' +
    `${report.seconds.toFixed(0)} s`)
  console.log(formatChaos(report))
  const { writeResult } = await import('./lib/report.js')
  console.log(`\n→ ${writeResult('chaos', report)}`)
  process.exitCode = report.ok ? 0 : 1
}
