// The explorer in a real browser (headless Chromium) on the bundled GFS sample: what a person sees
// after entering the key and asking for a profile and a flight, checked against the API's JSON.
import t, { type Test } from 'tap'
import { readFile } from 'node:fs/promises'
import { startTestService, type TestService } from '../helpers/service.js'
import { noBrowser, openPage, type OpenPage } from '../helpers/browser.js'

const skip = noBrowser()
if (skip !== null) t.comment(skip)

const HEIGHTS = [500, 1000, 2000, 3000, 5000, 8000, 12000]
const PROFILE = {
  latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z', altitudes_m: HEIGHTS, altitude_reference: 'agl'
}
const FLIGHT = {
  profile: 'standard_profile', launch_latitude: 52.2297, launch_longitude: 21.0122,
  launch_datetime: '2020-08-04T12:00:00Z', ascent_rate: 5, burst_altitude: 30000, descent_rate: 5
}

async function api (t: Test, svc: TestService, key: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${svc.url}${path}`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body)
  })
  t.equal(res.status, 200, `${path} answers the same request`)
  return res.json()
}

async function useKey (p: OpenPage, key: string): Promise<void> {
  await p.page.fill('#key', key)
  await p.page.click('#key-form button')
}

async function askProfile (p: OpenPage, heights: number[]): Promise<void> {
  await p.page.fill('#p-lat', String(PROFILE.latitude))
  await p.page.fill('#p-lon', String(PROFILE.longitude))
  await p.page.fill('#p-time', '2020-08-04T18:00')
  await p.page.fill('#p-list', heights.join(', '))
  // from the keyboard: Enter in a field submits the form
  await p.page.focus('#p-list')
  await p.page.keyboard.press('Enter')
}

async function askFlight (p: OpenPage, members = 1): Promise<void> {
  await p.page.fill('#f-lat', String(FLIGHT.launch_latitude))
  await p.page.fill('#f-lon', String(FLIGHT.launch_longitude))
  await p.page.fill('#f-time', '2020-08-04T12:00')
  await p.page.fill('#f-members', String(members))
  await p.page.click('#flight-submit')
}

const values = (p: OpenPage, selector: string, attr = 'data-value'): Promise<string[]> =>
  p.page.$$eval(selector, (els, a) => els.map((e) => e.getAttribute(a) ?? ''), attr)

t.test('the explorer in Chromium', { skip: skip ?? false }, async (t) => {
  const svc = await startTestService(t)
  const { key } = await svc.newAccount('explorer')

  t.test('the page loads from the service alone, with the coverage as its defaults', async (t) => {
    const p = await openPage(t, `${svc.url}/`)
    t.match(await p.page.textContent('#source-line'), /48\.00…56\.00° N, 13\.00…25\.00° E/)
    const lat = Number(await p.page.inputValue('#p-lat'))
    const lon = Number(await p.page.inputValue('#p-lon'))
    t.ok(lat >= 48 && lat <= 56 && lon >= 13 && lon <= 25, `the default point ${lat}, ${lon} is inside the coverage`)
    t.equal(await p.page.getAttribute('#p-time', 'min'), '2020-07-21T12:00', 'times bounded by the first valid time')
    t.equal(await p.page.getAttribute('#p-time', 'max'), '2020-08-29T06:00', '… and the last')
    t.equal(await p.page.inputValue('#p-time'), '2020-08-04T12:00', 'starting at the run with the most hours')
    const listed = await p.page.$$eval('#valid-time-pick option', (os) => os.map((o) => o.textContent))
    t.ok(listed.includes('2020-08-04 18:00 UTC') && listed.includes('2020-07-21 12:00 UTC'),
      'the valid times with data are listed')
    await p.page.selectOption('#valid-time-pick', '2020-08-15T18:00')
    t.equal(await p.page.inputValue('#f-time'), '2020-08-15T18:00', 'choosing one sets the forms\' time')
    t.ok(await p.page.$('svg.map path.land'), 'coastlines drawn from the bundled Natural Earth data')
    const unlabelled = await p.page.$$eval('input, select', (els) =>
      els.filter((e) => ((e as unknown as { labels?: { length: number } }).labels?.length ?? 0) === 0)
        .map((e) => e.id))
    t.same(unlabelled, [], 'every input has a label')
    t.same(p.errors, [], 'no console errors')
  })

  t.test('a click on the map picks the point for both panels', async (t) => {
    const p = await openPage(t, `${svc.url}/`)
    const box = await p.page.locator('svg.map').boundingBox()
    if (box === null) throw new Error('the map is not on screen')
    await p.page.mouse.click(box.x + box.width * 0.3, box.y + box.height * 0.6)
    const lat = Number(await p.page.inputValue('#p-lat'))
    const lon = Number(await p.page.inputValue('#p-lon'))
    t.ok(lat > 48 && lat < 56 && lon > 13 && lon < 25, `${lat}, ${lon}: inside the coverage shown`)
    t.ok(lon < 19 && lat < 52, 'left of and below the middle, where the click was')
    t.equal(await p.page.inputValue('#f-lat'), String(lat), 'the launch takes it too')
    t.equal(await p.page.inputValue('#f-lon'), String(lon))
    t.equal(await p.page.getAttribute('svg.map .point-marker', 'data-latitude'), String(lat), 'and it is marked')
  })

  t.test('a profile: one chart point per height, each the API\'s number', async (t) => {
    const navigated = Date.now()
    const p = await openPage(t, `${svc.url}/`)
    await useKey(p, key)
    await askProfile(p, HEIGHTS)
    await p.page.waitForSelector('#chart-temperature svg .point')
    t.comment(`from navigation to the first profile chart (cold data): ${Date.now() - navigated} ms`)
    const answer = await api(t, svc, key, '/v1/atmosphere/profile', PROFILE)
    const levels = answer.levels as Array<Record<string, number>>
    const field = (name: string): string[] => levels.map((l) => String(l[name]))
    t.same(await values(p, '#chart-temperature .s-temperature .point', 'data-altitude'), HEIGHTS.map(String),
      'one temperature point per requested height')
    t.same(await values(p, '#chart-temperature .s-temperature .point'), field('temperature_k'))
    t.equal((await values(p, '#chart-temperature .s-dewpoint .point')).length, HEIGHTS.length, 'and one dew point')
    t.same(await values(p, '#chart-wind .s-speed .point'), field('wind_speed_ms'))
    t.same(await values(p, '#chart-wind .s-direction .point'), field('wind_direction_deg'))
    t.same(await values(p, '#chart-wind .barb', 'data-direction-deg'), field('wind_direction_deg'), 'a barb a height')
    t.same(await values(p, '#chart-humidity .point'), field('relative_humidity_pct'))
    t.same(await values(p, '#chart-density .point'), field('density_kg_m3'))
    t.equal((await p.page.$$('#profile-table tbody tr')).length, HEIGHTS.length, 'a table row a height')
    const provenance = await p.page.textContent('#profile-provenance')
    t.match(provenance, 'run of 2020-08-04 12:00 UTC, forecast hour 6')
    t.match(provenance, answer.provenance.source_sha256, 'the source bytes named')
    t.same(p.errors, [], 'no console errors')
    t.same(p.requests.filter((u) => !u.startsWith(svc.url) && !u.startsWith('data:')), [],
      'no request left the origin')
  })

  t.test('a height outside the column: the 409 shows the range served', async (t) => {
    const p = await openPage(t, `${svc.url}/`)
    await useKey(p, key)
    await askProfile(p, [1000, 60000])
    await p.page.waitForSelector('#profile-error:not([hidden])')
    const text = await p.page.textContent('#profile-error')
    t.match(text, 'Outside supported vertical range (HTTP 409)')
    t.match(text, 'Height(s) 60000 m AGL lie outside the column', 'the detail names the height')
    const range = '[\\d\u2009]+–[\\d\u2009]+'
    t.match(text, new RegExp(`This point serves ${range} m above ground \\(${range} m above sea level\\)\\.`))
    t.ok(await p.page.isHidden('#profile-result'), 'no stale charts beside the error')
    t.same(p.errors.filter((e) => !/status of 409/.test(e)), [], 'no console errors but the 409 itself')
  })

  t.test('a wrong key: the 401 says so and how to fix it', async (t) => {
    const p = await openPage(t, `${svc.url}/`)
    await useKey(p, 'aloft_not-a-key')
    await askProfile(p, [1000])
    await p.page.waitForSelector('#profile-error:not([hidden])')
    const text = await p.page.textContent('#profile-error')
    t.match(text, /\(HTTP 401\)/)
    t.match(text, 'Enter a valid API key')
    t.same(p.errors.filter((e) => !/status of 401/.test(e)), [], 'no console errors but the 401 itself')
  })

  t.test('a flight: the map path has a vertex per trajectory point; GeoJSON to download', async (t) => {
    const p = await openPage(t, `${svc.url}/`)
    await useKey(p, key)
    await askFlight(p)
    await p.page.waitForSelector('svg.map path.path.descent')
    const answer = await api(t, svc, key, '/v1/atmosphere/trajectory', FLIGHT)
    for (const stage of answer.prediction as Array<{ stage: string, trajectory: unknown[] }>) {
      const d = await p.page.getAttribute(`svg.map path.path.${stage.stage}`, 'd') ?? ''
      t.equal(d.match(/[ML]/g)?.length, stage.trajectory.length, `${stage.stage}: a map vertex per point`)
      const chart = await p.page.getAttribute(`#chart-altitude path.${stage.stage}`, 'd') ?? ''
      t.equal(chart.match(/[ML]/g)?.length, stage.trajectory.length, `${stage.stage}: a chart vertex per point`)
    }
    t.ok(await p.page.$('svg.map .mark.burst'), 'burst marked')
    t.ok(await p.page.$('svg.map .mark.landing'), 'landing marked')
    const [download] = await Promise.all([p.page.waitForEvent('download'), p.page.click('#flight-download')])
    const file = JSON.parse(await readFile(await download.path(), 'utf8'))
    const line = file.features.find((f: any) => f.geometry.type === 'LineString')
    // each stage starts where the one before ended: that point once
    const points = answer.prediction.reduce((n: number, s: any, k: number) =>
      n + s.trajectory.length - (k > 0 ? 1 : 0), 0)
    t.equal(line.geometry.coordinates.length, points, 'the GeoJSON path has every point once')
    t.same(p.errors, [], 'no console errors')
  })

  t.test('an ensemble: every member\'s landing on the map, and the spread in words', async (t) => {
    const p = await openPage(t, `${svc.url}/`)
    await useKey(p, key)
    await askFlight(p, 20)
    await p.page.waitForSelector('svg.map .ensemble .member-landing')
    const answer = await api(t, svc, key, '/v1/atmosphere/trajectory', {
      ...FLIGHT, ensemble: { members: 20, ascent_rate_sd: 0.5, burst_altitude_sd: 2000, descent_rate_sd: 0.5, seed: 1 }
    })
    const landed = (answer.ensemble.members as Array<{ landing: unknown }>).filter((m) => m.landing !== null).length
    t.equal((await p.page.$$('svg.map .member-landing')).length, landed, 'a dot per landed member')
    t.ok(await p.page.$('svg.map .ensemble path.spread'), 'the 95 % ring')
    t.match(await p.page.textContent('.spread-text'), /20 members, \d+ landed\. Landing spread/)
    t.same(p.errors, [], 'no console errors')
  })

  t.test('the key stays in the tab unless kept for the session', async (t) => {
    const p = await openPage(t, `${svc.url}/`)
    await useKey(p, key)
    await p.page.reload()
    await p.page.waitForSelector('body[data-ready=true]')
    t.equal(await p.page.inputValue('#key'), '', 'not kept: gone after a reload')
    await p.page.fill('#key', key)
    await p.page.check('#key-keep')
    await p.page.click('#key-form button')
    await p.page.reload()
    await p.page.waitForSelector('body[data-ready=true]')
    t.equal(await p.page.inputValue('#key'), key, 'kept for the session: back after a reload')
    t.equal(await p.page.evaluate('localStorage.length'), 0, 'never in localStorage')
  })
})
