// `aloft trajectory --members N` without σ: the ensemble is spread by the explorer's defaults
// (ENSEMBLE_SPREAD_DEFAULTS), said on stderr, never N copies of the nominal flight.
import t from 'tap'
import { startTestService } from '../helpers/service.js'
import { run } from '../../src/cli/trajectory.js'
import { ENSEMBLE_SPREAD_DEFAULTS } from '../../src/trajectory/index.js'
import type { TrajectoryResponse } from '../../src/contract/index.js'

t.test('--members without σ flags sends the explorer\'s σ and prints them', async (t) => {
  const svc = await startTestService(t)
  const { key } = await svc.newAccount()
  let out = ''
  let err = ''
  const io = { out: (s: string) => { out += s }, err: (s: string) => { err += s } }
  const code = await run(['--lat', '52.2297', '--lon', '21.0122', '--time', '2020-08-04T12:00:00Z', '--members', '4',
    '--json'], io, { ALOFT_API_KEY: key, ALOFT_URL: svc.url })
  t.equal(code, 0, err)
  const answer = JSON.parse(out) as TrajectoryResponse
  t.same(answer.request.ensemble, { members: 4, ...ENSEMBLE_SPREAD_DEFAULTS, seed: answer.request.ensemble!.seed })
  t.match(err, /ascent_rate_sd 0\.5, burst_altitude_sd 2000, descent_rate_sd 0\.5/)
  const landings = answer.ensemble!.members.map((m) => `${m.landing?.latitude},${m.landing?.longitude}`)
  t.equal(new Set(landings).size, 4, 'four different landings')
})
