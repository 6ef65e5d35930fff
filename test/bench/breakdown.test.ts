// bench/breakdown: each sample goes to the innermost frame that belongs to a room.
import t from 'tap'
import { breakdown, type CpuProfile } from '../../bench/lib/breakdown.js'

const frame = (id: number, functionName: string, url: string, children: number[] = []): CpuProfile['nodes'][number] =>
  ({ id, callFrame: { functionName, url }, children })

// (root) → parserOnIncoming (node:_http_server) → handler (src/http/app.ts) → serialize (generated)
//   → stringify (builtin); handler → hashSecret (src/accounts/secrets.ts); (garbage collector); (idle)
const profile: CpuProfile = {
  nodes: [
    frame(1, '(root)', '', [2, 7, 8]),
    frame(2, 'parserOnIncoming', 'node:_http_server', [3]),
    frame(3, 'handler', 'file:///app/src/http/app.js', [4, 6]),
    frame(4, 'serialize', '', [5]),
    frame(5, 'stringify', ''),
    frame(6, 'hashSecret', 'file:///app/src/accounts/secrets.js'),
    frame(7, '(garbage collector)', ''),
    frame(8, '(idle)', '')
  ],
  // one sample on each of 2, 3, 5, 6, 7, 8; a sample lasts until the next one
  samples: [2, 3, 5, 6, 7, 8, 8],
  timeDeltas: [0, 10, 20, 30, 40, 50, 60],
  startTime: 0,
  endTime: 210
}

t.test('samples are summed per room and divided by the requests', async (t) => {
  const rows = new Map(breakdown(profile, 10).map((r) => [r.room, r.usPerRequest]))
  t.equal(rows.get('HTTP parse'), 1, 'parserOnIncoming itself: 10 µs over 10 requests')
  t.equal(rows.get('app'), 2, 'the handler\'s own time')
  t.equal(rows.get('serialisation'), 3, 'a builtin under the generated serialiser counts as serialisation')
  t.equal(rows.get('auth'), 4, 'key hashing')
  t.equal(rows.get('GC'), 5)
  t.equal(rows.get('other'), 0, 'idle time is left out, not counted as other')
  const shares = breakdown(profile, 10).reduce((a, r) => a + r.share, 0)
  t.ok(Math.abs(shares - 1) < 1e-12, 'the shares add up to one')
})
