// The chaos run's steady load, as clients behind a load balancer send it: lanes of requests at a
// fixed rate each, every request sent to a live instance in turn (a refused connection fails over),
// every outcome recorded in the phase whose fault it met.
import { setTimeout as sleep } from 'node:timers/promises'
import { validatorFor } from '../../../src/contract/validate.js'
import { Problem } from '../../../src/contract/schemas.js'
import { PROBLEM_CODE_NAMES } from '../../../src/contract/codes.js'
import { ACCOUNTS, ADMIN_TOKEN, post, type ChaosBodies, type Instance } from './cluster.js'

const isProblem = validatorFor(Problem)

export interface Outcome {
  at: number
  phase: string
  kind: string
  /** The account the request was made for (its key), when it had one. */
  account?: number
  instance: number
  /** HTTP status, or 0 for a connection failure. */
  status: number
  code?: string
  detail?: string
  validProblem: boolean
  ms: number
  error?: string
}

export class Traffic {
  /** The phase under way: the baseline, a fault's name, `after`. */
  phase = 'setup'
  readonly outcomes: Outcome[] = []
  /** Requests sent to each instance and not yet answered (a process killed may cut as many). */
  readonly inFlight: number[]
  /** Requests sent to each instance so far. */
  readonly sentTo: number[]
  private rr = 0
  private running = true
  private readonly lanes: Array<Promise<void>> = []

  constructor (private readonly instances: Instance[], private readonly started: number) {
    this.inFlight = instances.map(() => 0)
    this.sentTo = instances.map(() => 0)
  }

  live (): Instance[] {
    return this.instances.filter((i) => !i.down)
  }

  /** One request as a client behind a load balancer sends it: a refused connection fails over. */
  async send (kind: string, path: string, init: RequestInit, account?: number): Promise<void> {
    const instances = this.instances
    for (let attempt = 0; attempt < 2; attempt++) {
      const up = this.live()
      const index = up.length === 0 ? this.rr++ % instances.length : instances.indexOf(up[this.rr++ % up.length])
      const inst = instances[index]
      const t0 = Date.now()
      // an outcome belongs to the phase in which its answer arrived (the fault it met)
      const base = (): Pick<Outcome, 'at' | 'phase' | 'kind' | 'account' | 'instance'> => ({ at: t0 - this.started,
        phase: this.phase, kind, account, instance: index })
      this.inFlight[index]++
      this.sentTo[index]++
      try {
        const res = await fetch(`${inst.url}${path}`, { ...init, signal: AbortSignal.timeout(30_000) })
        const answer = await answerOf(res)
        this.outcomes.push({ ...base(), ...answer, ms: Date.now() - t0 })
        return
      } catch (err) {
        // a connection refused or cut by an instance that was killed: expected, and sent elsewhere
        const dead = !inst.alive
        this.outcomes.push({
          ...base(),
          status: 0,
          validProblem: true,
          ms: Date.now() - t0,
          error: dead ? 'down' : String((err as Error).cause ?? err)
        })
        if (!dead) return
        inst.down = true
      } finally {
        this.inFlight[index]--
      }
    }
  }

  /** Per second, `perSecond` requests of this kind, each account in turn, until `stop`. */
  lane (kind: string, perSecond: number, make: (a: number) => { path: string, init: RequestInit }): void {
    this.lanes.push((async () => {
      let n = 0
      const t0 = Date.now()
      const pending = new Set<Promise<void>>()
      while (this.running) {
        const a = n % ACCOUNTS
        const { path, init } = make(a)
        const p = this.send(kind, path, init, a).finally(() => pending.delete(p))
        pending.add(p)
        n++
        const due = t0 + (n * 1000) / perSecond
        await sleep(Math.max(0, due - Date.now()))
      }
      await Promise.all(pending)
    })())
  }

  /** The steady mix: cached and cold profiles, key reads, operator writes, invalid bodies. */
  startMix (keys: string[], bodies: ChaosBodies): void {
    this.lane('cached', 20, (a) => ({ path: '/v1/atmosphere/profile', init: post(keys[a], '', bodies.anyCached(a)) }))
    this.lane('cold', 4, (a) => ({ path: '/v1/atmosphere/profile', init: post(keys[a], '', bodies.cold(a)) }))
    this.lane('keys', 4, (a) => ({ path: '/v1/keys', init: { headers: { 'x-api-key': keys[a] } } }))
    this.lane('admin', 1, () => ({
      path: '/v1/admin/accounts',
      init: { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: '{"name":"churn"}' }
    }))
    this.lane('invalid', 2,
      (a) => ({ path: '/v1/atmosphere/profile', init: post(keys[a], '', '{"latitude": 91, "longitude": 0}') }))
  }

  /** Stops every lane; resolves when their requests have ended. */
  async stop (): Promise<void> {
    this.running = false
    await Promise.all(this.lanes)
  }
}

/** An answer's status, and for one not 200/201 its problem code, detail and whether it is a valid problem. */
async function answerOf (res: Response): Promise<Pick<Outcome, 'status' | 'code' | 'detail' | 'validProblem'>> {
  const text = await res.text()
  let code: string | undefined
  let detail: string | undefined
  let validProblem = true
  if (res.status !== 200 && res.status !== 201) {
    try {
      const body = JSON.parse(text) as { code?: string, detail?: string }
      code = body.code
      detail = body.detail
      validProblem = /^application\/problem\+json/.test(res.headers.get('content-type') ?? '') &&
        isProblem(body) && (PROBLEM_CODE_NAMES as string[]).includes(String(body.code))
    } catch {
      validProblem = false
    }
  }
  return { status: res.status, code, detail, validProblem }
}
