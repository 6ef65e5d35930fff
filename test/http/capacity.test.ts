// The instance's capacity (src/http/capacity.ts, docs/DESIGN.md §10) as a table of slots: the
// turn order among waiting callers, the public callers' share, one caller's share, and waiters
// that leave or run out of time. Responses stand in as what the capacity reads of them: a close
// event and the destroyed flag.
import t from 'tap'
import { EventEmitter } from 'node:events'
import type { ServerResponse } from 'node:http'
import { Capacity } from '../../src/http/capacity.js'
import { ClientGoneError } from '../../src/http/client-gone.js'

class Answer extends EventEmitter {
  destroyed = false
  close (): void {
    this.destroyed = true
    this.emit('close')
  }
}
const res = (): Answer & ServerResponse => new Answer() as Answer & ServerResponse
const later = Date.now() + 60_000
const tick = async (): Promise<void> => await new Promise((resolve) => setImmediate(resolve))

t.test('waiting callers are served in turn, not first come first served', async (t) => {
  const capacity = new Capacity({ maxInFlight: 1, perCaller: 10 })
  const held = res()
  t.ok(capacity.takeInstance(held))
  const served: Array<{ caller: string, res: Answer }> = []
  const waiters = ['a', 'a', 'a', 'b', 'c', 'a'].map(async (caller) => {
    const r = res()
    await capacity.enter(caller, false, r, later)
    served.push({ caller, res: r })
  })
  t.equal(capacity.state.waiting, 6)
  held.close()
  for (let k = 0; k < waiters.length; k++) {
    await tick()
    t.equal(served.length, k + 1, 'one at a time: the instance has one slot')
    served[k].res.close() // its answer is sent: the next in turn has the slot
  }
  await Promise.all(waiters)
  t.same(served.map((s) => s.caller), ['a', 'b', 'c', 'a', 'a', 'a'], 'a, then the others in turn, then a\'s rest')
})

t.test('public callers together hold at most their share; key holders still find room', async (t) => {
  const capacity = new Capacity({ maxInFlight: 4, perCaller: 10, publicShare: 0.5 })
  t.equal(capacity.publicMax, 2)
  t.ok(capacity.tryEnter('public:a', true, res()))
  t.ok(capacity.tryEnter('public:b', true, res()))
  t.notOk(capacity.tryEnter('public:c', true, res()), 'a third public caller waits')
  t.ok(capacity.tryEnter('acct_x', false, res()), 'a key holder enters')
  t.ok(capacity.takeInstance(res()), 'and a native route')
  t.notOk(capacity.takeInstance(res()), 'the instance is full')
  t.same(capacity.state, { working: 4, public: 2, waiting: 0 })
})

t.test('one caller holds at most its share, on native routes and Tawhiri paths alike', async (t) => {
  const capacity = new Capacity({ maxInFlight: 10, perCaller: 2 })
  const first = res()
  t.ok(capacity.holdCaller('acct_x', first))
  t.ok(capacity.tryEnter('acct_x', false, res()))
  t.notOk(capacity.holdCaller('acct_x', res()), 'a native request beyond the share is refused')
  const waiting = capacity.enter('acct_x', false, res(), later)
  t.ok(capacity.tryEnter('acct_y', false, res()), 'another caller is not held up')
  first.close()
  await waiting
  t.equal(capacity.heldBy('acct_x'), 2, 'the waiter took the slot that closed')
})

t.test('a client already gone takes nothing, native or waiting', async (t) => {
  const capacity = new Capacity({ maxInFlight: 4, perCaller: 4 })
  const left = res()
  left.destroyed = true
  t.throws(() => capacity.takeInstance(left), ClientGoneError)
  t.throws(() => capacity.holdCaller('acct_x', left), ClientGoneError, 'a key checked after its client left')
  t.notOk(capacity.tryEnter('acct_x', false, left))
  await t.rejects(capacity.enter('acct_x', false, left, later), ClientGoneError)
  t.same(capacity.state, { working: 0, public: 0, waiting: 0 })
  t.equal(capacity.heldBy('acct_x'), 0)
})

t.test('a waiter whose client leaves is dropped, taking nothing', async (t) => {
  const capacity = new Capacity({ maxInFlight: 1, perCaller: 10 })
  const held = res()
  capacity.takeInstance(held)
  const gone = res()
  const dropped = capacity.enter('acct_a', false, gone, later)
  const next = res()
  const served = capacity.enter('acct_b', false, next, later)
  gone.close()
  await t.rejects(dropped, ClientGoneError)
  t.equal(capacity.state.waiting, 1)
  held.close()
  await served
  t.same(capacity.state, { working: 1, public: 0, waiting: 0 }, 'the next waiter has the slot')
  t.equal(capacity.heldBy('acct_a'), 0)
})

t.test('a waiter out of time hears what it waited on', async (t) => {
  const capacity = new Capacity({ maxInFlight: 3, perCaller: 1, publicShare: 0.34 })
  t.ok(capacity.tryEnter('public:a', true, res()))
  await t.rejects(capacity.enter('public:a', true, res(), Date.now() + 20), { name: 'NoSlotError', blocked: 'caller' })
  await t.rejects(capacity.enter('public:b', true, res(), Date.now() + 20), { name: 'NoSlotError', blocked: 'public' })
  capacity.takeInstance(res())
  capacity.takeInstance(res())
  await t.rejects(capacity.enter('acct_x', false, res(), Date.now() + 20), { name: 'NoSlotError', blocked: 'instance' })
  t.equal(capacity.state.waiting, 0)
})
