// The explorer in a real browser (headless Chromium) on the bundled GFS sample: what a person sees
// after entering the key and asking for a profile and a flight, checked against the API's JSON.
// (The map's own behaviour: map.test.ts; what the forms say when something is wrong: forms.test.ts.)
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { startTestService } from '../helpers/service.js'
import { noBrowser, openPage } from '../helpers/browser.js'
import { FLIGHT, HEIGHTS, PROFILE, api, askFlight, askProfile, useKey, values } from '../helpers/explorer-page.js'

const skip = noBrowser()
if (skip !== null) t.comment(skip)

t.test('the explorer in Chromium', { skip: skip ?? false }, async (t) => {
  const svc = await startTestService(t)
  const { key } = await svc.newAccount('explorer')

  t.test('the page loads from the service alone, with the coverage as its defaults', async (t) => {
    const p = await openPage(t, `${svc.url}/`)
    t.match(await p.page.textContent('#source-line'), /48\.00…56\.00° N, 13\.00…25\.00° E/)
    const lat = Number(await p.page.inputValue('#p-lat'))
    const lon = Number(await p.page.inputValue('#p-lon'))
    t.ok(lat >= 48 && lat <= 56 && lon >= 13 && lon <= 25, `the default point ${lat}, ${lon} is inside the coverage`)
    t.match(await p.page.textContent('#p-time-hint'), 'UTC, e.g. 2020-08-04T12:00Z; data from 2020-07-21T12:00Z to ' +
      '2020-08-29T06:00Z.', 'the time says what it takes and which times hold data')
    t.equal(await p.page.inputValue('#p-time'), '2020-08-04T12:00Z', 'starting at the run with the most hours, in UTC')
    const listed = await p.page.$$eval('#valid-time-pick option', (os) => os.map((o) => o.textContent))
    t.ok(listed.includes('2020-08-04 18:00 UTC') && listed.includes('2020-07-21 12:00 UTC'),
      'the valid times with data are listed')
    await p.page.selectOption('#valid-time-pick', '2020-08-15T18:00Z')
    t.equal(await p.page.inputValue('#f-time'), '2020-08-15T18:00Z', 'choosing one sets the forms\' time')
    const unlabelled = await p.page.$$eval('input, select', (els) =>
      els.filter((e) => ((e as unknown as { labels?: { length: number } }).labels?.length ?? 0) === 0)
        .map((e) => e.id))
    t.same(unlabelled, [], 'every input has a label')
    t.same(p.errors, [], 'no console errors')
  })

  t.test('a profile: one chart point per height, each the API\'s number; every column in the panel', async (t) => {
    const navigated = Date.now()
    const p = await openPage(t, `${svc.url}/`)
    t.equal(await useKey(p, key), 'ok', 'the key is checked and works')
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
    t.same(await values(p, '#chart-humidity .point'), field('relative_humidity_pct'))
    t.same(await values(p, '#chart-density .point'), field('density_kg_m3'))
    t.equal((await p.page.$$('#profile-table tbody tr')).length, HEIGHTS.length, 'a table row a height')
    const provenance = await p.page.textContent('#profile-provenance')
    t.match(provenance, 'run of 2020-08-04 12:00 UTC, forecast hour 6')
    t.match(provenance, answer.provenance.source_sha256, 'the source bytes named')

    const table = await p.page.$eval('.table-wrap', (wrap) => {
      const right = wrap.getBoundingClientRect().right
      const table = wrap.querySelector('table') as any
      return {
        overflow: wrap.scrollWidth - wrap.clientWidth,
        columns: table.querySelectorAll('thead th').length,
        cut: [...table.querySelectorAll('th, td')].filter((c) => c.getBoundingClientRect().right > right + 0.5)
          .map((c) => c.textContent)
      }
    })
    t.equal(table.columns, 12, 'twelve columns: both heights, temperature, dew point, RH, p, wind (4), q, density')
    t.equal(table.overflow, 0, 'the table needs no horizontal scrolling')
    t.same(table.cut, [], 'no cell reaches past the panel')

    const legend = await p.page.$$eval('#chart-temperature figcaption .key svg .swatch', (els) =>
      els.map((e) => { const b = (e as any).getBBox(); return b.width * b.height }))
    t.equal(legend.length, 2, 'temperature and dew point each have a legend symbol')
    t.ok(legend.every((area) => area > 10), `each legend symbol has an area (${legend.join(', ')} px²)`)
    t.same(p.errors, [], 'no console errors')
    t.same(p.requests.filter((u) => !u.startsWith(svc.url) && !u.startsWith('data:')), [],
      'no request left the origin')
  })

  t.test('32 heights: the wind barbs stay apart and the top points clear the direction axis', async (t) => {
    const p = await openPage(t, `${svc.url}/`)
    await useKey(p, key)
    await p.page.check('#p-mode-range')
    await p.page.fill('#p-from', '500')
    await p.page.fill('#p-to', '16000')
    await p.page.fill('#p-step', '500')
    await p.page.fill('#p-lat', String(PROFILE.latitude))
    await p.page.fill('#p-lon', String(PROFILE.longitude))
    await p.page.fill('#p-time', '2020-08-04T18:00Z')
    await p.page.click('#profile-submit')
    await p.page.waitForSelector('#chart-wind svg .point')
    t.equal((await p.page.$$('#chart-wind .s-speed .point')).length, 32, 'a speed point for each of 32 heights')
    const answer = await api(t, svc, key, '/v1/atmosphere/profile', {
      ...PROFILE, altitudes_m: Array.from({ length: 32 }, (_, i) => 500 * (i + 1))
    })
    const direction = new Map((answer.levels as Array<Record<string, number>>)
      .map((l) => [String(l.altitude_agl_m), String(l.wind_direction_deg)]))
    const barbs = await p.page.$$eval('#chart-wind .barb', (els) => els.map((e) => ({
      altitude: e.getAttribute('data-altitude') ?? '',
      direction: e.getAttribute('data-direction-deg') ?? '',
      y: Number(e.querySelector('.station')?.getAttribute('cy'))
    })))
    t.ok(barbs.length >= 8 && barbs.length < 32, `thinned: ${barbs.length} barbs for 32 heights`)
    t.same(barbs.filter((b) => direction.get(b.altitude) !== b.direction), [], 'each barb is its height\'s wind')
    const ys = barbs.map((b) => b.y).sort((a, b) => a - b)
    const closest = Math.min(...ys.slice(1).map((y, i) => y - ys[i]))
    t.ok(closest >= 18, `no two barbs closer than 18 px (closest ${closest.toFixed(1)} px)`)
    const clearance = await p.page.$eval('#chart-wind svg', (svg) => {
      const axis = Number(svg.querySelector('.axis.x.top .domain')?.getAttribute('y1'))
      const tops = [...svg.querySelectorAll('.series .point')].map((m) => (m as any).getBBox().y)
      return Math.min(...tops) - axis
    })
    t.ok(clearance >= 4, `the highest markers stay ${clearance.toFixed(1)} px below the direction axis`)
    t.same(p.errors, [], 'no console errors')
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

  t.test('a wrong key: "Use key" says it is unknown, and the 401 says how to fix it', async (t) => {
    const p = await openPage(t, `${svc.url}/`)
    t.equal(await useKey(p, 'aloft_not-a-key'), 'unknown')
    t.match(await p.page.textContent('#key-state'), 'This key is not known to this aloft')
    await askProfile(p, [1000])
    await p.page.waitForSelector('#profile-error:not([hidden])')
    const text = await p.page.textContent('#profile-error')
    t.match(text, /\(HTTP 401\)/)
    t.match(text, 'Enter a valid API key')
    t.same(p.errors.filter((e) => !/status of 401/.test(e)), [], 'no console errors but the 401s themselves')
  })

  t.test('a flight: the map path has a vertex per trajectory point; GeoJSON to download', async (t) => {
    const p = await openPage(t, `${svc.url}/`)
    await useKey(p, key)
    await askFlight(p)
    await p.page.waitForSelector('#map path.path.descent')
    const answer = await api(t, svc, key, '/v1/atmosphere/trajectory', FLIGHT)
    for (const stage of answer.prediction as Array<{ stage: string, trajectory: unknown[] }>) {
      const d = await p.page.getAttribute(`#map path.path.${stage.stage}`, 'd') ?? ''
      t.equal(d.match(/[ML]/g)?.length, stage.trajectory.length, `${stage.stage}: a map vertex per point`)
      const chart = await p.page.getAttribute(`#chart-altitude path.${stage.stage}`, 'd') ?? ''
      t.equal(chart.match(/[ML]/g)?.length, stage.trajectory.length, `${stage.stage}: a chart vertex per point`)
    }
    for (const mark of ['launch', 'burst', 'landing']) t.ok(await p.page.$(`#map .mark.${mark}`), `${mark} marked`)
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
    await p.page.waitForSelector('#map .member-landing')
    const answer = await api(t, svc, key, '/v1/atmosphere/trajectory', {
      ...FLIGHT, ensemble: { members: 20, ascent_rate_sd: 0.5, burst_altitude_sd: 2000, descent_rate_sd: 0.5, seed: 1 }
    })
    const landed = (answer.ensemble.members as Array<{ landing: unknown }>).filter((m) => m.landing !== null).length
    t.equal((await p.page.$$('#map .member-landing')).length, landed, 'a dot per landed member')
    t.ok(await p.page.$('#map path.spread'), 'the 95 % ring')
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
    await p.page.waitForSelector('#key-state[data-state=ok]')
    t.match(await p.page.textContent('#key-state'), 'Kept for this browser session.')
    await p.page.reload()
    await p.page.waitForSelector('body[data-ready=true]')
    t.equal(await p.page.inputValue('#key'), key, 'kept for the session: back after a reload')
    t.equal(await p.page.evaluate('localStorage.length'), 0, 'never in localStorage')
  })
})
