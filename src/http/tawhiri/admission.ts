// Who calls a Tawhiri path, and its turn (docs/DESIGN.md §9, §10). A key, from the X-API-Key header
// or the path (`/k/<key>/…`): its account, as on every keyed route. In public mode
// (ALOFT_PUBLIC_TAWHIRI) no key: the client (client.ts: its address, /64 for IPv6, through trusted
// proxies), whose id names its own rate bucket, its own daily share and its in-flight share. A
// request that finds its bucket empty or no slot free waits its turn holding no slot (turns.ts for
// the rate, the app's Capacity for the slot), at most ALOFT_TAWHIRI_BURST_WAIT_MS; each caller may
// have at most its burst waiting and the instance ALOFT_TAWHIRI_MAX_WAITING, beyond which the
// refusal is immediate. A request whose client leaves while it waits is dropped, nothing taken.
import { createHash } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { PUBLIC_RATE_PREFIX, type RateDecision } from '../../accounts/index.js'
import type { PublicMode } from '../../config/index.js'
import type { RouteSpec } from '../../contract/index.js'
import { admit, keyGiven, rateHeaders, rateLimited, withStore } from '../auth.js'
import { type Capacity, NoSlotError, slotRefusal } from '../capacity.js'
import { ClientGoneError } from '../client-gone.js'
import type { AloftRequest, AppDeps } from '../context.js'
import { HttpProblem } from '../problem.js'
import { addressGroup, ClientAddresses } from './client.js'
import { Turns } from './turns.js'

/** A caller being admitted: its id (an account's, or a public client's) and its rate. */
interface Caller { id: string, isPublic: boolean, perSecond: number, burst: number }

export class TawhiriAdmission {
  readonly #deps: AppDeps
  readonly #capacity: Capacity
  readonly #turns = new Turns()
  readonly #clients: ClientAddresses
  /** Requests waiting their turn (for a token or a slot), per caller and in all. */
  readonly #waiting = new Map<string, number>()
  #waitingTotal = 0

  constructor (deps: AppDeps, capacity: Capacity, clients: ClientAddresses) {
    this.#deps = deps
    this.#capacity = capacity
    this.#clients = clients
  }

  /** Requests waiting their turn now. */
  get waiting (): number {
    return this.#waitingTotal
  }

  /** The calling account of a Tawhiri path (a public client's id for a public caller), its token and slot taken. */
  async admit (route: RouteSpec, req: AloftRequest, res: ServerResponse): Promise<string> {
    const { config, metrics } = this.#deps
    const deadline = Date.now() + config.tawhiriBurstWaitMs
    const open = config.publicTawhiri
    let joined: string | undefined
    const wait = (c: Caller): void => {
      if (joined !== undefined) return
      this.#join(c)
      joined = c.id
    }
    let caller: Caller
    try {
      caller = keyGiven(req) === '' && open !== undefined
        ? await this.#admitPublic(req, res, deadline, open, wait)
        : await this.#admitKeyed(route, req, res, deadline, wait)
      if (!this.#capacity.tryEnter(caller.id, caller.isPublic, res)) {
        wait(caller)
        await this.#capacity.enter(caller.id, caller.isPublic, res, deadline)
      }
    } catch (err) {
      if (joined !== undefined) metrics.burstWaits.labels(err instanceof ClientGoneError ? 'gone' : 'refused').inc()
      throw err instanceof NoSlotError ? slotRefusal(err, this.#capacity, config) : err
    } finally {
      if (joined !== undefined) this.#leave(joined)
    }
    if (joined !== undefined) {
      // a waiter's turn may come while its client's close is still unread (the loop busy with others'
      // flights): one turn of the event loop reads it before anything is computed for nobody
      await new Promise((resolve) => setImmediate(resolve))
      if (res.destroyed) {
        metrics.burstWaits.labels('gone').inc()
        throw new ClientGoneError('the client left as its turn came')
      }
      metrics.burstWaits.labels('served').inc()
    }
    return caller.id
  }

  async #admitKeyed (route: RouteSpec, req: AloftRequest, res: ServerResponse, deadline: number,
    wait: (c: Caller) => void): Promise<Caller> {
    const { config, store } = this.#deps
    const caller = (id: string): Caller =>
      ({ id, isPublic: false, perSecond: config.ratePerSecond, burst: config.rateBurst })
    const id = await admit(req, res, this.#deps, route.unauthorizedTitle, async (accountId, refused) => {
      wait(caller(accountId))
      return await this.#turns.wait(accountId, 1000 / config.ratePerSecond, deadline,
        async () => await withStore(() => store.takeRequest(accountId, this.#deps.now?.())), res, refused)
    })
    return caller(id)
  }

  /** A public caller: its client's id (a digest: no address is stored) and a token of its bucket. */
  async #admitPublic (req: AloftRequest, res: ServerResponse, deadline: number, open: PublicMode,
    wait: (c: Caller) => void): Promise<Caller> {
    const { store, metrics } = this.#deps
    const id = PUBLIC_RATE_PREFIX +
      createHash('sha256').update(addressGroup(this.#clients.of(req))).digest('base64url').slice(0, 22)
    const caller: Caller = { id, isPublic: true, perSecond: open.ratePerSecond, burst: open.rateBurst }
    req.accountId = id
    const take = async (): Promise<RateDecision> => await withStore(() => store.takeRequest(id, this.#deps.now?.()))
    let rate = await take()
    if (!rate.allowed) {
      wait(caller)
      rate = await this.#turns.wait(id, 1000 / open.ratePerSecond, deadline, take, res, rate)
    }
    if (!rate.allowed) {
      metrics.publicRequests.labels('rate_limited').inc()
      throw rateLimited(rate, `Callers without an API key may make ${open.ratePerSecond} requests per second each ` +
        `(bursts of ${open.rateBurst}). Wait, or send an API key (the X-API-Key header, or /k/<your key>/ before ` +
        'the path) for your own rate.')
    }
    metrics.publicRequests.labels('admitted').inc()
    rateHeaders(res, rate)
    return caller
  }

  /** Counts a waiter in; an immediate 429 when its caller, or the instance, has its most waiting. */
  #join (c: Caller): void {
    const mine = this.#waiting.get(c.id) ?? 0
    const most = this.#deps.config.tawhiriMaxWaiting
    if (mine >= c.burst || this.#waitingTotal >= most) {
      throw new HttpProblem('rate_limited', {
        detail: mine >= c.burst
          ? `This ${c.isPublic ? 'client' : 'account'} has ${mine} requests waiting their turn already, the most it ` +
            `may (its burst of ${c.burst}); wait for their answers before sending more.`
          : `This instance has ${most} requests waiting their turn, the most it may (ALOFT_TAWHIRI_MAX_WAITING); ` +
            'try again shortly.',
        headers: { 'Retry-After': Math.max(1, Math.ceil(mine / c.perSecond)) }
      })
    }
    this.#waiting.set(c.id, mine + 1)
    this.#waitingTotal++
  }

  #leave (id: string): void {
    const left = (this.#waiting.get(id) ?? 1) - 1
    if (left > 0) this.#waiting.set(id, left)
    else this.#waiting.delete(id)
    this.#waitingTotal--
  }
}
