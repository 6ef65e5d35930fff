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

t.test('refused flights: each error item under the option that sets its field, in words', async (t) => {
  const svc = await startTestService(t)
  const { key } = await svc.newAccount()
  const ask = async (args: string[]): Promise<{ code: number, err: string }> => {
    let err = ''
    const io = { out: () => {}, err: (s: string) => { err += s } }
    const code = await run(['--lat', '52.2297', '--lon', '21.0122', ...args], io,
      { ALOFT_API_KEY: key, ALOFT_URL: svc.url })
    return { code, err }
  }
  const ascent = await ask(['--time', '2020-08-04T12:00:00Z', '--ascent', '-1'])
  t.equal(ascent.code, 1)
  t.match(ascent.err, /^aloft trajectory: 400 Invalid request: .*\n {2}--ascent: Must be more than 0 m\/s \(got -1\)\.\n$/)
  const time = await ask(['--time', '2020-08-04T12:00Z'])
  t.match(time.err, '  --time: Must be a UTC time like 2020-08-04T12:00:00Z (got "2020-08-04T12:00Z").',
    'the example is one the API takes')
  const members = await ask(['--time', '2020-08-04T12:00:00Z', '--members', '1001'])
  t.match(members.err, /--members: Must be 1000 or less \(got 1001\)\./, 'a nested field by its option')
})

t.test('--surface-layer flies on the air from the model ground up, as the explorer does by default', async (t) => {
  const svc = await startTestService(t)
  const { key } = await svc.newAccount()
  const fly = async (extra: string[]): Promise<TrajectoryResponse> => {
    let out = ''
    const io = { out: (s: string) => { out += s }, err: () => {} }
    const code = await run(['--lat', '52.2297', '--lon', '21.0122', '--time', '2020-08-04T12:00:00Z', '--burst', '2000',
      '--json', ...extra], io, { ALOFT_API_KEY: key, ALOFT_URL: svc.url })
    t.equal(code, 0)
    return JSON.parse(out) as TrajectoryResponse
  }
  const layered = await fly(['--surface-layer'])
  const plain = await fly([])
  t.equal(layered.request.surface_layer, true, 'asked for')
  t.equal(plain.request.surface_layer, undefined)
  t.match(layered.provenance.vertical_interpolation, /_with_surface_layer_/)
  const api = await fetch(`${svc.url}/v1/atmosphere/trajectory`, { method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ launch_latitude: 52.2297, launch_longitude: 21.0122, launch_datetime: '2020-08-04T12:00:00Z',
      ascent_rate: 5, burst_altitude: 2000, descent_rate: 5, surface_layer: true }) })
  const same = await api.json() as TrajectoryResponse
  t.same(layered.prediction, same.prediction, 'the same flight the explorer asks for')
  t.notSame(layered.prediction, plain.prediction, 'not the pressure-level flight')
})
