// The chaos run's timeline: a baseline, then each fault injected, mended and given time to settle;
// after the last, the load kept up until every instance has recovered (10 s at most).
import { setTimeout as sleep } from 'node:timers/promises'
import type { Fault } from './faults.js'
import type { Instance } from './cluster.js'
import type { Traffic } from './traffic.js'

/** When a fault's phase ended (ms from the start of the run). */
export interface Window { name: string, end: number }

export async function runPhases (traffic: Traffic, instances: Instance[], faults: Fault[], short: boolean,
  started: number, log: (msg: string) => void): Promise<Window[]> {
  const settle = short ? 1500 : 6000
  traffic.phase = 'baseline'
  await sleep(short ? 1000 : 5000)
  const windows: Window[] = []
  for (const f of faults) {
    traffic.phase = f.name
    log(`fault: ${f.name}`)
    const restore = await f.inject()
    await restore()
    windows.push({ name: f.name, end: Date.now() - started })
    await sleep(settle)
  }
  // The last fault has no next phase to observe its recovery in: keep the load going until every
  // instance has answered a cached and a cold request after it (10 s at most: recovery is judged
  // against that bound), so a slow machine is not read as no recovery.
  const last = windows[windows.length - 1]
  const recovered = (): boolean => instances.every((_, i) => ['cached', 'cold'].every((kind) =>
    traffic.outcomes.some((o) => o.at >= last.end && o.instance === i && o.kind === kind && o.status === 200)))
  for (const until = Date.now() + 10_000; !recovered() && Date.now() < until;) await sleep(100)
  return windows
}
