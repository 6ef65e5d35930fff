// Where a request's CPU goes: a V8 CPU profile (the --cpu-prof format) of the server over a load
// window, each sample given to the innermost frame that belongs to a room, summed per room and
// divided by the requests answered in the window. Pure: profile in, table rows out.

export interface CpuProfile {
  nodes: Array<{ id: number, callFrame: { functionName: string, url: string }, children?: number[] }>
  samples: number[]
  timeDeltas: number[]
  startTime: number
  endTime: number
}

/** The rooms of a request, in the order the table lists them. */
export const ROOMS = [
  'HTTP parse', 'body read', 'auth', 'admission', 'validation', 'resolve', 'interpolation', 'serialisation',
  'write', 'router', 'app', 'metrics', 'logs', 'promises', 'GC', 'other'
] as const
export type Room = typeof ROOMS[number]

/** The contract's validation: Ajv's setup, its date-time format, uniqueItems keyword and error items. */
const VALIDATION_FILES = /\/src\/contract\/(validate|date-time|unique-items|error-items)\./

/** Reading a JSON body's bytes and parsing them. */
const BODY_READ_FILES = /\/src\/http\/body\/(read|parse)\./

/** First match wins, tried on each frame from the sampled one outwards. */
const RULES: Array<[Room, (name: string, url: string) => boolean]> = [
  ['GC', (n) => n === '(garbage collector)'],
  ['body read', (_, u) => BODY_READ_FILES.test(u)],
  ['auth', (_, u) => u.includes('/src/accounts/secrets.')],
  ['admission', (_, u) => u.includes('/src/accounts/') || u.includes('/src/http/auth.') || u.includes('/ioredis/')],
  ['validation', (n, u) => u.includes('/ajv/') || VALIDATION_FILES.test(u) || (u === '' && /^validate\d*$/.test(n))],
  ['resolve', (_, u) => u.includes('/src/source/')],
  ['interpolation', (_, u) => u.includes('/src/atmosphere/') || u.includes('/src/profile/') ||
    u.includes('/src/field/') || u.includes('/src/grib/')],
  // the serialisers are generated from the schemas (new Function): no file, the name `serialize`
  ['serialisation', (n, u) => u.includes('/src/contract/serialize.') || (u === '' && n === 'serialize')],
  ['metrics', (_, u) => u.includes('/prom-client/') || u.includes('/src/metrics.')],
  ['logs', (_, u) => u.includes('/pino') || u.includes('/sonic-boom/') || u.includes('/src/logger.')],
  ['router', (_, u) => u.includes('/polka/') || u.includes('/regexparam/') || u.includes('/trouter/') ||
    u.includes('/@polka/')],
  ['app', (_, u) => u.includes('/src/')],
  ['write', (_, u) => u === 'node:_http_outgoing' || u === 'node:net' || u.startsWith('node:internal/stream') ||
    u === 'node:internal/streams/writable'],
  ['HTTP parse', (n, u) => u === 'node:_http_common' || u === 'node:_http_server' || u === 'node:_http_incoming' ||
    n === 'parserOnHeadersComplete' || n === 'parserOnIncoming'],
  ['promises', (n, u) => u === 'node:internal/process/task_queues' || n === 'processTicksAndRejections' ||
    n === 'runMicrotasks']
]

const IGNORED = new Set(['(idle)', '(root)'])

export interface BreakdownRow { room: Room, usPerRequest: number, share: number }

/** A classifier for one profile: node id → its room (null for idle and root). */
export function roomOf (profile: CpuProfile): (id: number) => Room | null {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const rooms = new Map<number, Room | null>()
  const classify = (id: number): Room | null => {
    const known = rooms.get(id)
    if (known !== undefined) return known
    const { functionName, url } = byId.get(id)!.callFrame
    let room: Room | null
    if (IGNORED.has(functionName)) room = null
    else {
      const rule = RULES.find(([, test]) => test(functionName, url))
      const up = parent.get(id)
      room = rule !== undefined ? rule[0] : up !== undefined ? classify(up) ?? 'other' : 'other'
      if (room === null) room = 'other'
    }
    rooms.set(id, room)
    return room
  }
  return classify
}

/** µs of CPU per answered request, room by room (idle time left out). */
export function breakdown (profile: CpuProfile, requests: number): BreakdownRow[] {
  const classify = roomOf(profile)
  const us = new Map<Room, number>(ROOMS.map((r) => [r, 0]))
  for (let k = 0; k < profile.samples.length; k++) {
    const room = classify(profile.samples[k])
    // a sample's time is the delta to the next one (the last has none)
    const dt = profile.timeDeltas[k + 1] ?? 0
    if (room !== null) us.set(room, us.get(room)! + dt)
  }
  const total = [...us.values()].reduce((a, b) => a + b, 0)
  return ROOMS.map((room) => ({
    room, usPerRequest: us.get(room)! / Math.max(1, requests), share: total === 0 ? 0 : us.get(room)! / total
  }))
}
