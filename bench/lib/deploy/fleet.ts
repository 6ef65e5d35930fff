// The deployment check's fleet under load (bench/deploy-check.ts): CLIENTS keep-alive clients asking
// cached flights (GET) and profiles (POST) through nginx without pause while a phase's faults come and
// go, each fault begun only once the fleet is whole again.
import { setTimeout as sleep } from 'node:timers/promises'
import { percentile } from '../stats.js'
import { type AloftInstance, waitFor } from '../processes.js'
import type { Nginx } from '../nginx.js'
import { client, type Answer } from './http.js'

export const FLIGHT = 'tawhiri?launch_latitude=52.2297&launch_longitude=21.0122&launch_datetime=2020-08-04T12:00:00Z&' +
  'ascent_rate=5&burst_altitude=30000&descent_rate=5'
export const PROFILE = JSON.stringify({ latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z',
  altitudes_m: [300, 3000], altitude_reference: 'agl' })
/** Clients of the load: each a keep-alive HTTPS connection pool at a loopback address of its own. */
const CLIENTS = 12

/** A phase under load: what the clients got through nginx while its faults came and went. */
export interface PhaseReport {
  seconds: number
  requests: number
  ok: number
  failed: number
  /** Requests nginx sent to a second instance ($upstream_addr names two). */
  retried: number
  /** Answers that ended while the faults were under way (from the first fault to the fleet whole again). */
  duringFaults: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  statuses: Record<string, number>
  events: string[]
  firstFailure?: string
}

/** A line of nginx's access log for a request `port` finally answered 200. */
export function answeredBy (port: number): RegExp {
  return new RegExp(`upstream=(?:\\S+, )*127\\.0\\.0\\.1:${port} status=(?:\\S+, )*200$`)
}

/** The fleet under load: phases of faults, each begun once the fleet is whole again. */
export class Fleet {
  /**
   * `pauseMs`: what each client waits between an answer and its next request (0: none, as fast as the
   * fleet answers; the test suite's short run paces its clients, keep-alive load all the same, at a
   * fraction of the CPU).
   */
  constructor (private readonly pem: string, private readonly base: string, private readonly key: string,
    private readonly nginx: Nginx, private readonly log: (msg: string) => void, private readonly pauseMs = 0) {}

  /** Runs `faults` under the load of CLIENTS clients; what the clients got, and the events, timed. */
  async phase (name: string, faults: (event: (what: string) => void) => Promise<void>): Promise<PhaseReport> {
    const before = (await this.nginx.accessLog()).length
    const answers: Answer[] = []
    const events: string[] = []
    const started = Date.now()
    const event = (what: string): void => {
      events.push(`${((Date.now() - started) / 1000).toFixed(1)} s: ${what}`)
      this.log(`${name}: ${events[events.length - 1]}`)
    }
    let running = true
    let faultsFrom = 0
    let faultsTo = 0
    const load = Promise.all(Array.from({ length: CLIENTS }, async (_, k) => {
      const ask = client(this.pem, `127.0.11.${k + 1}`)
      for (let n = 0; running; n++) {
        answers.push(n % 2 === 0
          ? await ask(`${this.base}/k/${this.key}/${FLIGHT}`)
          : await ask(`${this.base}/v1/atmosphere/profile`, { method: 'POST', body: PROFILE,
            headers: { 'x-api-key': this.key, 'content-type': 'application/json' } }))
        if (this.pauseMs > 0) await sleep(this.pauseMs)
      }
    }))
    try {
      await waitFor(`${name}: load under way`, async () => answers.length >= 2 * CLIENTS)
      faultsFrom = Date.now()
      await faults(event)
      faultsTo = Date.now()
      // the load goes on a moment with the fleet whole again
      const settled = answers.length
      await waitFor(`${name}: load after the faults`, async () => answers.length >= settled + 2 * CLIENTS)
    } finally {
      running = false
      await load
    }
    const lines = (await this.nginx.accessLog()).slice(before)
    const ms = answers.map((a) => a.ms).sort((x, y) => x - y)
    return {
      seconds: (Date.now() - started) / 1000,
      requests: answers.length,
      ok: answers.filter((a) => a.status === 200).length,
      failed: answers.filter((a) => a.status !== 200).length,
      // a request nginx sent to a second instance names both in $upstream_addr
      retried: lines.filter((l) => /upstream=\S+, /.test(l)).length,
      duringFaults: answers.filter((a) => a.at >= faultsFrom && a.at <= faultsTo).length,
      p50Ms: percentile(ms, 50),
      p99Ms: percentile(ms, 99),
      maxMs: ms[ms.length - 1] ?? 0,
      statuses: answers.reduce<Record<string, number>>((n, a) => ({ ...n, [a.status]: (n[a.status] ?? 0) + 1 }), {}),
      events,
      firstFailure: answers.find((a) => a.status !== 200)?.body.slice(0, 300)
    }
  }

  /**
   * Stops an instance (SIGTERM: it drains; SIGKILL: its whole group), starts it again and waits until
   * it is ready and back in nginx's rotation (a request of the load answered by it through nginx), so
   * the next fault never finds the other instance alone, or both marked failed.
   */
  async restart (instance: AloftInstance, signal: NodeJS.Signals, event: (what: string) => void): Promise<void> {
    event(`instance ${instance.port} sent ${signal}`)
    await instance.kill(signal)
    event(`instance ${instance.port} exited`)
    await instance.start()
    await instance.ready()
    event(`instance ${instance.port} started and ready`)
    await this.inRotation(instance)
    event(`instance ${instance.port} answering through nginx again`)
  }

  /** Until a process replaced the one killed, every process of the instance serving. */
  async replaced (instance: AloftInstance, victim: number, event: (what: string) => void): Promise<void> {
    await waitFor('a replacement process', async () => !(await instance.processes()).includes(victim), 60_000)
    await instance.ready()
    event(`instance ${instance.port} has every process serving again`)
  }

  /** Until nginx's access log shows an answer of `instance` after now. */
  async inRotation (instance: AloftInstance): Promise<void> {
    const from = (await this.nginx.accessLog()).length
    const mine = answeredBy(instance.port)
    await waitFor(`instance ${instance.port} in nginx's rotation`, async () =>
      (await this.nginx.accessLog()).slice(from).some((l) => mine.test(l)), 60_000)
  }
}
