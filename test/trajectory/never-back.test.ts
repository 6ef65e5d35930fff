// Flights never run back in time (docs/DESIGN.md §9): over launches on the bundled data's hills
// and plains, from below the model ground to 3 000 m, with bursts from launch + 1 m, every answer's
// times never decrease, a descent never climbs, a landing is never before its burst nor above it;
// a descent or float that starts at or below the model ground ends there at once, landed, with the
// warning `started_below_model_ground`. The native route, ensembles and the Tawhiri paths alike.
import t, { type Test } from 'tap'
import { startTestService } from '../helpers/service.js'

interface Point { datetime: string, latitude: number, longitude: number, altitude: number }
interface Stage { stage: string, trajectory: Point[] }
interface Answer {
  request: { launch_altitude: number }
  prediction: Stage[]
  outcome?: string
  warnings: Record<string, { count: number }>
  ensemble?: {
    members: Array<{ outcome: string, burst: Point | null, landing: Point | null, started_below_model_ground?: true }>
  }
}

const PLACES = {
  'Tatra summit (hills)': { launch_latitude: 49.25, launch_longitude: 20.0 },
  'Tatra slope (hills)': { launch_latitude: 49.3, launch_longitude: 19.9 },
  'Warsaw (plain)': { launch_latitude: 52.2297, launch_longitude: 21.0122 },
  'Gdańsk bay (sea)': { launch_latitude: 54.75, launch_longitude: 18.75 }
}
const WHEN = { launch_datetime: '2020-08-04T14:00:00Z', ascent_rate: 5, descent_rate: 5 }

const svc = await startTestService(t, { env: { ALOFT_RATE_PER_SECOND: '1000', ALOFT_RATE_BURST: '1000' } })
const { key } = await svc.newAccount()

async function native (body: object): Promise<Answer> {
  const res = await fetch(`${svc.url}/v1/atmosphere/trajectory`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body)
  })
  const answer = await res.json() as Answer
  if (res.status !== 200) throw new Error(`${res.status} for ${JSON.stringify(body)}: ${JSON.stringify(answer)}`)
  return answer
}

async function tawhiri (query: Record<string, string | number>): Promise<Answer> {
  const q = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))
  const res = await fetch(`${svc.url}/k/${key}/tawhiri?${q.toString()}`)
  const answer = await res.json() as Answer
  if (res.status !== 200) throw new Error(`${res.status} for ${q.toString()}: ${JSON.stringify(answer)}`)
  return answer
}

const ms = (p: Point): number => Date.parse(p.datetime)

/** The model terrain under a point (m MSL), from the Tawhiri helper the flights' ground is read like. */
async function groundAt (p: Point): Promise<number> {
  const res = await fetch(`${svc.url}/k/${key}/api/ruaumoko/?latitude=${p.latitude}&longitude=${p.longitude}`)
  return (await res.json() as { altitude: number }).altitude
}

/**
 * The properties every flight holds (times never decrease, a descent never climbs, it ends neither
 * before nor above its start), and that its second stage ended at once exactly where it began at or
 * below the model ground there. Whether it did.
 */
async function holds (t: Test, stages: Stage[], label: string): Promise<boolean> {
  const all = stages.flatMap((s) => s.trajectory)
  for (let k = 1; k < all.length; k++) {
    if (ms(all[k]) < ms(all[k - 1])) t.fail(`${label}: ${all[k].datetime} after ${all[k - 1].datetime}`)
  }
  const second = stages[1]
  if (second === undefined) return false
  const start = second.trajectory[0]
  const end = second.trajectory[second.trajectory.length - 1]
  if (second.stage === 'descent') {
    for (let k = 1; k < second.trajectory.length; k++) {
      if (second.trajectory[k].altitude > second.trajectory[k - 1].altitude) {
        t.fail(`${label}: the descent climbs at ${second.trajectory[k].datetime}`)
      }
    }
    if (end.altitude > start.altitude) t.fail(`${label}: lands at ${end.altitude} m, above its burst`)
  }
  if (ms(end) < ms(start)) t.fail(`${label}: ends at ${end.datetime}, before its start at ${start.datetime}`)
  const atOnce = second.trajectory.length === 1
  const ground = await groundAt(start)
  if (atOnce !== start.altitude <= ground) {
    t.fail(`${label}: began at ${start.altitude} m over ground at ${ground} m, ${atOnce ? '' : 'not '}ended at once`)
  }
  return atOnce
}

for (const [place, at] of Object.entries(PLACES)) {
  t.test(place, async (t) => {
    const probe = await native({ ...at, ...WHEN, burst_altitude: 4000 })
    const ground = probe.request.launch_altitude
    const launches = [...new Set([0, Math.max(0, ground - 300), ground, ground + 500, 3000])]
    let below = 0
    let flights = 0
    for (const launch of launches) {
      for (const burst of [launch + 1, launch + 40, Math.max(launch + 1, 3500)]) {
        const label = `launch ${launch.toFixed(1)} m, burst ${burst.toFixed(1)} m`
        const standard = await native({ ...at, ...WHEN, launch_altitude: launch, burst_altitude: burst })
        const atOnce = await holds(t, standard.prediction, `native ${label}`)
        flights++
        if (atOnce) below++
        t.equal(standard.outcome, 'landed', `${label}: landed`)
        t.equal(standard.warnings.started_below_model_ground?.count, atOnce ? 1 : undefined,
          `${label}: the warning says so exactly when it ended at once`)
        const compat = await tawhiri({ ...at, ...WHEN, launch_altitude: launch, burst_altitude: burst,
          launch_datetime: '2020-08-04T14:00:00+00:00', ascent_rate: 0.1 })
        const compatAtOnce = await holds(t, compat.prediction, `tawhiri ${label}`)
        t.equal(compat.warnings.started_below_model_ground?.count, compatAtOnce ? 1 : undefined,
          `tawhiri ${label}: the warning says so exactly when it ended at once`)
      }
      const float = await native({ ...at, ...WHEN, launch_altitude: launch, profile: 'float_profile',
        float_altitude: launch + 1, stop_datetime: '2020-08-04T16:00:00Z' })
      const floatAtOnce = await holds(t, float.prediction, `float from ${launch} m`)
      t.equal(float.outcome, floatAtOnce ? 'landed' : 'float_ended', `float from ${launch} m: how it ended`)
    }
    // at sea the ground is at 0.06 m: every burst (launch + 1 m and up) is above it
    const land = ground > 50
    t.equal(below > 0, land, `${below} of ${flights} flights began their descent at or below the ground`)
    const ensemble = await native({ ...at, ...WHEN, launch_altitude: Math.max(0, ground - 100),
      burst_altitude: ground + 60, ensemble: { members: 12, burst_altitude_sd: 80, seed: 4 },
      member_trajectories: true })
    const members = ensemble.ensemble?.members ?? []
    t.equal(members.length, 12)
    const tracks = (ensemble as unknown as { ensemble: { member_predictions: Stage[][] } }).ensemble.member_predictions
    let atOnce = 0
    for (const [k, m] of members.entries()) {
      const once = await holds(t, tracks[k], `member ${k}`)
      if (once) atOnce++
      t.equal(m.started_below_model_ground === true, once, `member ${k} says whether it landed at once`)
      t.equal(m.outcome, 'landed', `member ${k} landed`)
      if (m.burst !== null && m.landing !== null) {
        t.ok(ms(m.landing) >= ms(m.burst), `member ${k}: its landing is not before its burst`)
      }
    }
    t.ok(land ? atOnce > 0 && atOnce < 12 : atOnce === 0, `${atOnce} of 12 members burst below the ground`)
    t.equal(ensemble.warnings.started_below_model_ground?.count,
      members[0].started_below_model_ground === true ? 1 : undefined, 'the warning is the shown flight\'s')
  })
}

t.test('reverse_profile from below the model ground is a 400 that says so', async (t) => {
  const q = new URLSearchParams({ profile: 'reverse_profile', launch_latitude: '49.25', launch_longitude: '20.0',
    launch_datetime: '2020-08-04T14:00:00+00:00', launch_altitude: '300', ascent_rate: '5' })
  const res = await fetch(`${svc.url}/k/${key}/tawhiri?${q.toString()}`)
  t.equal(res.status, 400)
  const body = await res.json() as { error: { type: string, description: string } }
  t.equal(body.error.type, 'RequestException')
  t.match(body.error.description, /launch_altitude: Must not be below the model ground here \(1\d{3}(\.\d)? m MSL/)
  const above = await fetch(`${svc.url}/k/${key}/tawhiri?${new URLSearchParams({ ...Object.fromEntries(q),
    launch_altitude: '3000' }).toString()}`)
  t.equal(above.status, 200, 'from above the ground it flies back')
})
