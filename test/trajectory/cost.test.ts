// A flight's cost bound (src/trajectory/cost.ts): never below the steps the solver takes, so the
// price and the per-request bound can be set before flying.
import t from 'tap'
import { flightSteps, flightsCost } from '../../src/trajectory/cost.js'
import { fly } from '../../src/trajectory/solver.js'
import type { AirBatch } from '../../src/trajectory/air-batch.js'
import type { Stage } from '../../src/trajectory/stages.js'

/** Still air over flat ground at `ground` m, with the NASA atmosphere's density left to the solver. */
const stillAir = (ground: number) => (batch: AirBatch): void => {
  for (let b = 0; b < batch.n; b++) {
    batch.u[b] = 0
    batch.v[b] = 0
    batch.ground[b] = ground
    batch.density[b] = 1.225
    batch.status[b] = 0
    batch.clamped[b] = 0
  }
}

t.test('an ascent of 30 km at 5 m/s is 100 steps, plus one per stage end', async (t) => {
  t.equal(flightSteps(0, 0, [{ kind: 'ascent', rate: 5, altitude: 30_000 }]), 101)
})

t.test('a float lasts until its stop time', async (t) => {
  const stages: Stage[] = [{ kind: 'ascent', rate: 5, altitude: 3000 }, { kind: 'float', stop: 3 * 3600 }]
  t.equal(flightSteps(0, 0, stages), 10 + 170 + 2)
})

t.test('the bound is never below the steps flown', async (t) => {
  for (const [ascent, burst, descent, ground] of [[5, 30_000, 5, 0], [1, 5000, 3, 800], [8, 12_000, 12, -400]]) {
    const stages: Stage[] = [{ kind: 'ascent', rate: ascent, altitude: burst },
      { kind: 'descent', seaLevelRate: descent, modelDensity: false }]
    const [flight] = await fly([{ t: 0, latitude: 52, longitude: 21, altitude: ground, stages, record: true }],
      stillAir(ground))
    const flown = flight.stages.reduce((sum, s) => sum + s.points.length / 4, 0) - flight.stages.length
    const bound = flightSteps(0, ground, stages)
    t.ok(flown <= bound, `${ascent} m/s to ${burst} m, ${descent} m/s down to ${ground} m: ${flown} ≤ ${bound}`)
  }
})

t.test('members not recorded cost their steps but only their stage ends as points', async (t) => {
  t.same(flightsCost([{ steps: 150, recorded: true, stages: 2 }, { steps: 140, recorded: false, stages: 2 }]),
    { steps: 290, points: 151 + 4 })
})
