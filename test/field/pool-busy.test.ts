// The worker pool's queue is bounded: past it a task is refused with PoolBusyError (a 503 for the
// caller), never queued without bound.
import t from 'tap'
import { createPool, PoolBusyError } from '../../src/field/index.js'

t.test('tasks past the queue limit are refused with PoolBusyError', async (t) => {
  const pool = createPool({ threads: 1, maxQueue: 2 })
  t.teardown(() => pool.close())
  const junk = new Uint8Array(new SharedArrayBuffer(64))
  const results = await Promise.allSettled(Array.from({ length: 12 }, async () => await pool.decode({ bytes: junk })))
  const refused = results.filter((r) => r.status === 'rejected')
  t.ok(refused.length > 0, `${refused.length} refused`)
  for (const r of refused) t.ok((r as PromiseRejectedResult).reason instanceof PoolBusyError)
  t.ok(results.some((r) => r.status === 'fulfilled'), 'the ones within the queue are answered')
})
