// The three clients balloon teams use, each sending exactly what it sends to the Tawhiri paths and
// reading the answer the way it reads it (docs/DESIGN.md §9), on the bundled 2020 sample:
// chasemapper (chasemapper/tawhiri.py: Python requests, isoformat() times, no key header, so the
// key in the path), the SondeHub predictor page (js/pred/pred-new.js: jQuery's $.param of its
// settings with pred_type, public mode) and sondehub-tracker (js/station.js: a URL built by hand).
// One instance, public mode on; short flights.
import t from 'tap'
import { assertSchema, startTestService } from '../helpers/service.js'
import { DatasetCheck, ReverseResponse, Ruaumoko, TawhiriError } from '../../src/contract/tawhiri.js'

const svc = await startTestService(t, { env: { ALOFT_PUBLIC_TAWHIRI: 'on' } })
const { key } = await svc.newAccount()

interface Point { datetime: string, latitude: number, longitude: number, altitude: number }
interface Answer {
  request: Record<string, unknown> & { dataset: string, launch_datetime: string }
  prediction: Array<{ stage: string, trajectory: Point[] }>
  metadata: { complete_datetime: string }
  error?: { type: string, description: string }
}

async function get (path: string): Promise<{ status: number, body: Answer, res: Response }> {
  const res = await fetch(`${svc.url}${path}`)
  const text = await res.text()
  return { status: res.status, body: JSON.parse(text) as Answer, res }
}

// chasemapper: get_tawhiri_prediction() → requests.get(TAWHIRI_API_URL, params=…) with Python's str() of
// each value; "error" in the JSON is a failure logged as `type: description`; else parse_tawhiri_data().
function chasemapperQuery (launch: string, over: Record<string, string> = {}): string {
  return new URLSearchParams({
    launch_latitude: '52.2297', launch_longitude: '21.0122', launch_altitude: '0',
    launch_datetime: launch, ascent_rate: '5.0', descent_rate: '5.0', burst_altitude: '30000.0',
    profile: 'standard_profile', ...over
  }).toString()
}
function chasemapperRead (body: Answer): { dataset: string, path: number[][] } | string {
  if (body.error !== undefined) return `${body.error.type}: ${body.error.description}`
  const d = new Date(body.request.dataset)
  const dataset = `${d.toISOString().slice(0, 10).replace(/-/g, '')}${d.toISOString().slice(11, 13)}z`
  const path = body.prediction.flatMap((s) => s.trajectory.map((p) =>
    [Date.parse(p.datetime) / 1000, p.latitude, p.longitude > 180 ? p.longitude - 360 : p.longitude, p.altitude]))
  return { dataset, path }
}

t.test('chasemapper', async (t) => {
  const base = `/k/${key}/tawhiri`
  t.test('a normal flight: the last point of the path is the landing, on the ground', async (t) => {
    const { status, body } = await get(`${base}?${chasemapperQuery('2020-08-04T12:00:00.123456+00:00')}`)
    t.equal(status, 200)
    const read = chasemapperRead(body)
    if (typeof read === 'string') return t.fail(read)
    t.equal(read.dataset, '2020080412z')
    t.equal(read.path.length, body.prediction.reduce((n, s) => n + s.trajectory.length, 0))
    const landing = read.path[read.path.length - 1]
    t.ok(landing[3] < 300, `lands near the ground (${landing[3].toFixed(1)} m)`)
  })
  t.test('a descending balloon (burst just above it, ascent clamped to 0.1): the fork\'s 0.2 m/s clip', async (t) => {
    const { status, body } = await get(`${base}?${chasemapperQuery('2020-08-04T15:00:00+00:00',
      { launch_altitude: '9000.0', burst_altitude: '9001.0', ascent_rate: '0.1', descent_rate: '6.0' })}`)
    t.equal(status, 200, JSON.stringify(body.error))
    t.equal(body.request.ascent_rate, 0.2)
  })
  t.test('a flight that leaves the data is an error naming where and when, never a landing in mid-air',
    async (t) => {
      const { status, body } = await get(`${base}?${chasemapperQuery('2020-08-05T01:30:00+00:00')}`)
      t.equal(status, 500)
      t.match(chasemapperRead(body), new RegExp('^PredictionException: Prediction did not complete: the flight ' +
        'reached a time the model data does not hold there at 52\\.\\d{5}, 21\\.\\d{5}, \\d+ m, at ' +
        '2020-08-05T03:00:00Z, during its ascent, before it landed\\. Launch earlier'))
    })
  t.test('a launch outside the data', async (t) => {
    const { status, body } = await get(`${base}?${chasemapperQuery('2020-08-04T12:00:00+00:00',
      { launch_latitude: '-34.9499', launch_longitude: String(138.5194) })}`)
    t.equal(status, 404)
    t.match(chasemapperRead(body), /^InvalidDatasetException: .*Launch where and when the data holds/)
  })
  t.test('a wrong key in the path', async (t) => {
    const { status, body } = await get(`/k/aloft_not-a-key/tawhiri?${chasemapperQuery('2020-08-04T12:00:00+00:00')}`)
    t.equal(status, 401)
    assertSchema(t, TawhiriError, body)
    t.match(chasemapperRead(body), /^ApiKeyException: .*after \/k\/ in the path/)
  })
})

// The SondeHub predictor page: runPrediction() → $.get(tawhiri_api, settings); the answer read by
// parsePrediction(): prediction[0] the ascent, prediction[1] the descent (or float), the landing the
// last point of prediction[1]; a failure shows responseJSON.error.description.
function pageSettings (over: Record<string, string | number> = {}): string {
  const floating = over.profile === 'float_profile'
  const settings: Record<string, string | number> = {
    profile: 'standard_profile', pred_type: 'single', launch_datetime: '2020-08-04T12:00:00Z',
    launch_latitude: 52.2297, launch_longitude: 21.0122, launch_altitude: 0, ascent_rate: 5,
    ...(floating ? {} : { burst_altitude: 30000, descent_rate: 5 }), ...over
  }
  return new URLSearchParams(Object.entries(settings).map(([k, v]): [string, string] => [k, String(v)])).toString()
}

t.test('the SondeHub predictor page', async (t) => {
  t.test('a normal flight: stages by index, the landing the last descent point', async (t) => {
    const { status, body, res } = await get(`/tawhiri?${pageSettings()}`)
    t.equal(status, 200)
    t.equal(res.headers.get('access-control-allow-origin'), '*', 'readable from the page\'s origin')
    const ascent = body.prediction[0].trajectory
    const descent = body.prediction[1].trajectory
    t.equal(body.prediction[1].stage, 'descent', 'read as a standard profile')
    const landing = descent[descent.length - 1]
    t.ok(landing.altitude < 300 && Date.parse(landing.datetime) > Date.parse(ascent[0].datetime), 'a landing')
    t.ok(Number.isFinite(Date.parse(body.metadata.complete_datetime)), 'metadata.complete_datetime')
  })
  t.test('a float: prediction[1] is the float', async (t) => {
    const { status, body } = await get(`/tawhiri?${pageSettings({ profile: 'float_profile', float_altitude: 9000,
      stop_datetime: '2020-08-04T14:00:00Z' })}`)
    t.equal(status, 200, body.error?.description ?? 'answered')
    t.equal(body.prediction[1].stage, 'float')
  })
  t.test('a float to the page\'s launch + 1 day leaves the data: error.description says where', async (t) => {
    const { status, body } = await get(`/tawhiri?${pageSettings({ profile: 'float_profile', float_altitude: 9000,
      stop_datetime: '2020-08-05T12:00:00Z' })}`)
    t.equal(status, 500)
    t.match(body.error?.description, /during its float, before it reached stop_datetime.*an earlier stop_datetime/)
  })
  t.test('a flight that leaves the data: error.description', async (t) => {
    const { status, body } = await get(`/tawhiri?${pageSettings({ launch_datetime: '2020-08-05T01:30:00Z' })}`)
    t.equal(status, 500)
    t.match(body.error?.description, /at 2020-08-05T03:00:00Z, during its ascent, before it landed/)
  })
  t.test('a launch outside the data: error.description', async (t) => {
    const { status, body } = await get(`/tawhiri?${pageSettings({ launch_latitude: -34.9499,
      launch_longitude: -70 + 360 })}`)
    t.equal(status, 404)
    t.match(body.error?.description, /outside the source's coverage/)
  })
  t.test('a wrong key in the path: error.description', async (t) => {
    const { status, body } = await get(`/k/wrong/tawhiri?${pageSettings()}`)
    t.equal(status, 401)
    t.match(body.error?.description, /not valid/)
  })
})

// sondehub-tracker: launchSitePredictions() builds the URL by hand (no profile, no encoding); plotPrediction()
// finds the launch by `dates.indexOf(data.request.launch_datetime)`, the burst as the ascent's last point and
// the landing as the descent's last; a failure only counts as done.
function trackerUrl (date: string, lat = '52.2297', lon = '21.0122'): string {
  return `/tawhiri?launch_latitude=${lat}&launch_longitude=${lon}&launch_datetime=${date}&ascent_rate=5&` +
    'burst_altitude=30000&descent_rate=5'
}

t.test('sondehub-tracker', async (t) => {
  t.test('a normal flight: found by its launch time, burst and landing by index', async (t) => {
    const dates = ['2020-08-04T12:00:00Z', '2020-08-04T18:00:00Z']
    const { status, body } = await get(trackerUrl(dates[0]))
    t.equal(status, 200)
    t.equal(dates.indexOf(body.request.launch_datetime), 0, 'request.launch_datetime as it was sent')
    const ascent = body.prediction[0].trajectory
    const descent = body.prediction[1].trajectory
    t.equal(ascent[ascent.length - 1].altitude, 30000, 'the burst')
    t.ok(descent[descent.length - 1].altitude < 300, 'the landing')
    t.match(body.request, { ascent_rate: 5, burst_altitude: 30000, descent_rate: 5, dataset: '2020-08-04T12:00:00Z' })
  })
  for (const [what, path, status] of [
    ['a flight that leaves the data', trackerUrl('2020-08-05T01:30:00Z'), 500],
    ['a launch outside the data', trackerUrl('2020-08-04T12:00:00Z', '40.0', '255.0'), 404],
    ['a wrong key in the path', `/k/wrong${trackerUrl('2020-08-04T12:00:00Z')}`, 401]
  ] as const) {
    t.test(`${what}: a failure (not a prediction to plot)`, async (t) => {
      const r = await get(path)
      t.equal(r.status, status)
      t.equal(r.body.prediction, undefined)
    })
  }
})

t.test('the fork\'s downloads: format=csv|kml hold every point, under the fork\'s file name', async (t) => {
  const json = (await get(`/tawhiri?${pageSettings()}`)).body
  const points = json.prediction.flatMap((s) => s.trajectory)
  const csv = await fetch(`${svc.url}/tawhiri?${pageSettings()}&format=csv`)
  t.equal(csv.headers.get('content-disposition'),
    'attachment; filename="20200804-120000Z_52.2297_21.0122_standard_profile_2020080412Z.csv"')
  const rows = (await csv.text()).trim().split('\n')
  t.equal(rows[0], 'datetime,latitude,longitude,altitude')
  t.same(rows.slice(1).map((r) => r.split(',')), points.map((p) => [p.datetime, p.latitude.toFixed(5),
    p.longitude.toFixed(5), p.altitude.toFixed(1)]), 'every point, as the fork writes it')
  const kml = await fetch(`${svc.url}/tawhiri?${pageSettings()}&format=kml`)
  t.match(kml.headers.get('content-disposition'), /filename="20200804-120000Z_.*_2020080412Z\.kml"/)
  const text = await kml.text()
  const coordinates = /<coordinates>\n([^<]*)\n<\/coordinates>/.exec(text)?.[1].trim().split('\n') ?? []
  t.equal(coordinates.length, points.length, 'the path has every point')
  t.match(text, /<name>Balloon Landing<\/name>/)
})

t.test('reverse_profile, as the fork defines it: back to the ground, and forward again to the balloon', async (t) => {
  const seen = { profile: 'reverse_profile', launch_latitude: '52.2297', launch_longitude: '21.0122',
    launch_datetime: '2020-08-04T14:00:00Z', launch_altitude: '10000', ascent_rate: '5' }
  const back = await get(`/api/v1/?${new URLSearchParams(seen).toString()}`)
  t.equal(back.status, 200, back.body.error?.description ?? 'answered')
  const body = back.body as unknown as ReverseResponse
  assertSchema(t, ReverseResponse, body)
  t.same(body.prediction.map((s) => s.stage), ['ascent', 'descent'], 'the fork\'s two stages')
  const launch = body.prediction[1].trajectory.at(-1)!
  t.match(body.launch_estimate, { latitude: launch.latitude, longitude: launch.longitude,
    datetime: '2020-08-04T14:00:00Z' }, 'the last point, with the request\'s time as the fork writes it')
  const risen = (Date.parse('2020-08-04T14:00:00Z') - Date.parse(launch.datetime)) / 1000
  t.ok(Math.abs(risen - (10000 - launch.altitude) / 5) < 1, 'risen at 5 m/s from the ground to 10 km')
  const forward = await get(`/api/v1/?${pageSettings({ launch_datetime: launch.datetime,
    launch_latitude: launch.latitude, launch_longitude: launch.longitude, launch_altitude: launch.altitude,
    burst_altitude: 10000 })}`)
  const burst = forward.body.prediction[0].trajectory.at(-1)!
  t.ok(Math.abs(burst.latitude - 52.2297) < 0.001 && Math.abs(burst.longitude - 21.0122) < 0.001,
    `flown forward from the estimate it reaches 10 km where it was seen (${burst.latitude}, ${burst.longitude})`)
})

t.test('aloft\'s own route still refuses the parameters it does not know', async (t) => {
  const res = await fetch(`${svc.url}/v1/atmosphere/trajectory?${pageSettings()}`, { headers: { 'x-api-key': key } })
  await res.arrayBuffer()
  t.equal(res.status, 400)
})

t.test('a preflight allows X-API-Key from any origin; key routes have no CORS', async (t) => {
  const ask = { method: 'OPTIONS', headers: { origin: 'http://elsewhere.example', 'access-control-request-method': 'GET',
    'access-control-request-headers': 'x-api-key' } }
  const pre = await fetch(`${svc.url}/tawhiri`, ask)
  t.equal(pre.status, 204)
  t.equal(pre.headers.get('access-control-allow-origin'), '*')
  t.match(pre.headers.get('access-control-allow-headers'), /X-API-Key/)
  const keys = await fetch(`${svc.url}/v1/keys`, ask)
  await keys.arrayBuffer()
  t.equal(keys.headers.get('access-control-allow-origin'), null)
})

t.test('public mode: its limits in capabilities and /metrics', async (t) => {
  const caps = await (await fetch(`${svc.url}/v1/atmosphere/capabilities`)).json() as { tawhiri: unknown }
  t.match(caps.tawhiri, { public: { rate_per_second: 20, rate_burst: 40, daily_upstream_attempts: 200 },
    paths: ['/api/v1/', '/tawhiri', '/api/datasetcheck', '/api/ruaumoko/'] })
  const metrics = await (await fetch(`${svc.url}/metrics`)).text()
  t.match(metrics, /aloft_public_limit\{limit="rate_burst"\} 40/)
  t.match(metrics, /aloft_public_requests_total\{outcome="admitted"\} [1-9]/)
  t.match(metrics, /aloft_public_allowance_used \d/)
})

t.test('the fork\'s helpers: the newest dataset, and the ground\'s altitude', async (t) => {
  const check = await get('/api/datasetcheck')
  assertSchema(t, DatasetCheck, check.body)
  t.equal(check.body.request.dataset, '2020-08-29T06:00:00Z')
  const ground = await (await fetch(`${svc.url}/k/${key}/api/ruaumoko/?latitude=52.2297&longitude=21.0122`))
    .json() as { altitude: number }
  assertSchema(t, Ruaumoko, ground)
  t.ok(ground.altitude > 50 && ground.altitude < 200, `Warsaw's model terrain (${ground.altitude} m)`)
})

t.test('the key in the path never reaches a log line, /metrics or an error body', async (t) => {
  const strayed = await fetch(`${svc.url}/k/${key}/v1/atmosphere/capabilities`)
  t.notMatch(await strayed.text(), key, 'a 404 names the path without the key')
  t.notMatch(await (await fetch(`${svc.url}/metrics`)).text(), key)
  t.ok(svc.logs.some((l) => l.includes('/tawhiri')), 'the requests are logged')
  t.same(svc.logs.filter((l) => l.includes(key)), [], 'and no line holds the key')
})

t.test('aloft\'s own refusals in Tawhiri\'s shape, with Retry-After: 503 without data, 429 past the wait',
  async (t) => {
    const bare = await startTestService(t, { dataPath: false, env: { ALOFT_PUBLIC_TAWHIRI: 'on',
      ALOFT_PUBLIC_RATE_PER_SECOND: '0.01', ALOFT_PUBLIC_RATE_BURST: '1', ALOFT_TAWHIRI_BURST_WAIT_MS: '0' } })
    const first = await fetch(`${bare.url}/api/datasetcheck`)
    t.equal(first.status, 503)
    t.ok(Number(first.headers.get('retry-after')) >= 1, 'Retry-After')
    t.match(await first.json(), { error: { type: 'ServiceUnavailableException', description: /no data path/ } })
    const second = await fetch(`${bare.url}/api/datasetcheck`)
    t.equal(second.status, 429)
    t.ok(Number(second.headers.get('retry-after')) >= 1, 'Retry-After')
    const body = await second.json() as TawhiriError
    assertSchema(t, TawhiriError, body)
    t.match(body.error, { type: 'RateLimitException', description: /send an API key/ })
  })
