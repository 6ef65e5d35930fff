// The faults the chaos run injects in turn under its load: Redis killed, restarted and down, an
// instance (or one process of one) killed, the upstream failing in four ways, slow clients and
// hostile bodies. Each injects itself and returns how to mend it.
import { connect, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FailMode, UpstreamServer } from '../../../src/standin/server.js'
import { processesOf, type ThrowawayRedis } from '../processes.js'
import { ACCOUNTS, post, startInstance, type ChaosBodies, type Instance } from './cluster.js'
import type { Traffic } from './traffic.js'

/** `alone`: run only when `only` names it (a scenario of its own, e.g. with default timeouts). */
export type Fault = { name: string, alone?: true, inject: () => Promise<() => Promise<void>> }

/** What the faults act on. */
export interface Target {
  short: boolean
  /** HTTP processes of each instance. */
  processes: number
  redis: ThrowawayRedis
  upstream: UpstreamServer
  instances: Instance[]
  traffic: Traffic
  keys: string[]
  bodies: ChaosBodies
  log: (msg: string) => void
  /** Connection errors a fault may cause by its nature, by phase (requests in flight on a killed process). */
  cutAllowed: Record<string, number>
}

/** How long after a process is killed its clients may still send on a connection to it, unaware. */
const CLOSE_SEEN_MS = 200

/**
 * A fault of a host serving with several processes: one of an instance's processes is killed
 * (-9); its primary replaces it while the other processes and the port keep answering.
 */
function processKilled (inst: Instance, log: (msg: string) => void,
  counts: () => { inFlight: number, sent: number }, allow: (phase: string, cut: number) => void): Fault {
  const name = 'one process of an instance killed (-9)'
  return {
    name,
    inject: async () => {
      const [victim] = await processesOf(inst.child!.pid!)
      log(`killing process ${victim} of instance ${inst.port}`)
      // only what was in flight on the instance may fail, and what the client sent in the next moments
      // on a kept-alive connection to the dead process before it saw that connection close
      const before = counts()
      process.kill(victim, 'SIGKILL')
      await sleep(CLOSE_SEEN_MS)
      allow(name, before.inFlight + counts().sent - before.sent)
      await sleep(1000 - CLOSE_SEEN_MS)
      return async () => {}
    }
  }
}

/** Every fault, in the order they are injected. */
export function allFaults (t: Target): Fault[] {
  const { short, redis, upstream, instances, traffic } = t
  const hold = short ? 1000 : 8000
  // the stand-in's grib filter failing this way for `hold`, then mended
  const upstreamFault = (name: string, mode: FailMode): Fault => ({
    name,
    inject: async () => {
      const undo = upstream.fail({ match: /filter_gfs/, mode })
      await sleep(hold)
      return async () => { undo() }
    }
  })
  return [
    {
      name: 'redis killed (-9) and restarted',
      inject: async () => { await redis.kill(); await redis.start(); return async () => {} }
    },
    redisKilledUnderColdFetches(t),
    {
      name: `redis down for ${short ? 2 : 10} s`,
      inject: async () => {
        await redis.kill()
        await sleep(short ? 2000 : 10_000)
        return async () => { await redis.start() }
      }
    },
    {
      name: 'one instance killed (-9), back after 2 s',
      inject: async () => {
        await instances[1].kill()
        await sleep(2000)
        return async () => { await startInstance(instances[1]) }
      }
    },
    ...(t.processes > 1
      ? [processKilled(instances[0], t.log, () => ({ inFlight: traffic.inFlight[0], sent: traffic.sentTo[0] }),
          (phase, n) => { t.cutAllowed[phase] = n })]
      : []),
    upstreamFault('upstream answers 503', 503),
    upstreamFault('upstream hangs', { slowMs: 60_000 }),
    upstreamFault('upstream resets connections', 'reset'),
    upstreamFault('upstream slow bodies (1 s)', { slowMs: 1000 }),
    slowClients(instances, t.keys, hold),
    hostileBodies(traffic, t.keys)
  ]
}

/** The faults to run: those `only` names (by prefix), else all but those that run alone. */
export function chosenFaults (all: Fault[], only: string[] | undefined): Fault[] {
  return only === undefined
    ? all.filter((f) => f.alone !== true)
    : all.filter((f) => only.some((prefix) => f.name.startsWith(prefix)))
}

function redisKilledUnderColdFetches ({ redis, upstream, traffic, keys, bodies }: Target): Fault {
  return {
    // fetches end while Redis is away (long enough for ioredis to give up their frees): their
    // slots must not stay held until their expiration, the upstream timeout and a second
    name: 'redis killed (-9) under slow cold fetches, restarted 4 s later',
    alone: true,
    inject: async () => {
      const mend = upstream.fail({ match: /filter_gfs/, mode: { slowMs: 1000 } })
      // more cold fetches than the limiter has slots (4), so every slot is held at the kill
      for (let k = 0; k < 8; k++) {
        void traffic.send('cold', '/v1/atmosphere/profile', post(keys[k % ACCOUNTS], '', bodies.cold(k % ACCOUNTS)),
          k % ACCOUNTS)
      }
      await sleep(400)
      await redis.kill()
      await sleep(4000)
      mend()
      await redis.start()
      return async () => {}
    }
  }
}

function slowClients (instances: Instance[], keys: string[], hold: number): Fault {
  return {
    name: 'slow-header and slow-body clients',
    inject: async () => {
      const sockets: Socket[] = []
      for (const inst of instances) {
        for (let k = 0; k < 40; k++) {
          const s = connect({ port: inst.port, host: '127.0.0.1' })
          s.on('error', () => {})
          s.write(k % 2 === 0
            ? 'POST /v1/atmosphere/profile HTTP/1.1\r\nHost: aloft\r\nX-Api'
            : `POST /v1/keys HTTP/1.1\r\nHost: aloft\r\nX-API-Key: ${keys[0]}\r\nContent-Type: ` +
              `application/json\r\nContent-Length: 500\r\n\r\n{"na`)
          sockets.push(s)
        }
      }
      await sleep(hold)
      return async () => { for (const s of sockets) s.destroy() }
    }
  }
}

function hostileBodies (traffic: Traffic, keys: string[]): Fault {
  return {
    name: 'hostile bodies',
    inject: async () => {
      const bodies = ['['.repeat(8000) + ']'.repeat(8000), JSON.stringify({ latitude: 'x'.repeat(60_000) }),
        '{"a":' + '{"a":'.repeat(50) + '1' + '}'.repeat(51)]
      for (let k = 0; k < 30; k++) await traffic.send('hostile', '/v1/atmosphere/profile',
        post(keys[0], '', bodies[k % bodies.length]))
      return async () => {}
    }
  }
}
