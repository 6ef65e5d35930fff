// The time rules of bulk samples on a made-up catalog: exact valid times, brackets of the newest
// run that has one, the nearest fallback and its tie, and nothing within the offset.
import t from 'tap'
import { TimeIndex } from '../../src/samples/time-plan.js'

const H = 3_600_000
const RUN_00 = Date.UTC(2020, 7, 4, 0)
const RUN_06 = Date.UTC(2020, 7, 4, 6)
// 00Z: f000 f003 f006 f009 f012; 06Z: f000 f006 (a gap of 6 h); a duplicate entry of 06Z f000
const entries = [
  ...[0, 3, 6, 9, 12].map((step) => ({ run: RUN_00, step })),
  { run: RUN_06, step: 0 }, { run: RUN_06, step: 6 }, { run: RUN_06, step: 0 }
]
const index = new TimeIndex(entries, 3 * H)
const at = (h: number, m = 0): number => RUN_00 + h * H + m * 60_000
const name = (c: ReturnType<TimeIndex['linear']>): string | null => c === null ? null
  : `${(c.before.run - RUN_00) / H}+${c.before.step}..${(c.after.run - RUN_00) / H}+${c.after.step} w=${c.weight}`

t.test('an instant equal to a valid time is that unit alone, from the newest run having it', async (t) => {
  t.equal(name(index.linear(at(6))), '6+0..6+0 w=0')
  t.equal(name(index.linear(at(3))), '0+3..0+3 w=0')
})

t.test('between valid times: the newest run with consecutive steps around it', async (t) => {
  t.equal(name(index.linear(at(7, 30))), '6+0..6+6 w=0.25', 'the 06Z run brackets 06–12 (6 h ≤ 2 × 3 h)')
  t.equal(name(index.linear(at(4, 30))), '0+3..0+6 w=0.5', 'before 06Z only the 00Z run can')
})

t.test('no bracket: the nearest rule, a tie going to the later time; nothing within the offset: null', async (t) => {
  const sparse = new TimeIndex([{ run: RUN_00, step: 0 }, { run: RUN_00, step: 12 }], 3 * H)
  t.equal(name(sparse.linear(at(2))), '0+0..0+0 w=0', '00Z f000 and f012 are 12 h apart: no bracket')
  t.equal(name(sparse.linear(at(6))), null, '6 h from both')
  const tie = new TimeIndex([{ run: RUN_00, step: 0 }, { run: RUN_00, step: 4 }], 1 * H)
  t.equal(name(tie.nearest(at(2))), null, 'outside 1 h of both')
  const tie2 = new TimeIndex([{ run: RUN_00, step: 0 }, { run: RUN_00, step: 2 }], 1 * H)
  t.equal(name(tie2.nearest(at(1))), '0+2..0+2 w=0', 'a tie goes to the later valid time')
})

t.test('duplicate entries give one object per (run, step)', async (t) => {
  const a = index.linear(at(6))
  const b = index.linear(at(7))
  t.equal(a?.before, b?.before, 'the same entry whichever rule found it')
})
