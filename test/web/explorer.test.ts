// The explorer in a real browser (headless Chromium) on the bundled GFS sample: what a person sees
// after entering the key and asking for a profile and a flight, checked against the API's JSON.
// Also what the page says when something is wrong: keys that do not work, malformed times, a
// 400's entries at the inputs they name; that the page fits a desktop's window and a phone's. (The
// map's own behaviour: map.test.ts.)
import t from 'tap'
import { readFile } from 'node:fs/promises'
import { startTestService } from '../helpers/service.js'
import { noBrowser, openPage, type OpenPage } from '../helpers/browser.js'
import { FLIGHT, HEIGHTS, PROFILE, api, askFlight, askProfile, useKey, values } from '../helpers/explorer-page.js'

const skip = noBrowser()
if (skip !== null) t.comment(skip)

/** A problem document as the service would answer it, for a routed request. */
const problem = (status: number, code: string, title: string, extra: object = {}): object => ({
  status, contentType: 'application/problem+json',
  body: JSON.stringify({ type: `/problems/${code}`, title, status, code, request_id: 'test', detail: null, ...extra })
})

/**
 * How the page sits in its window: how wide it scrolls, and each box whose right edge runs past its
 * container's content (boxes inside the map, which clips them, or the table's wrapper, which scrolls, may).
 */
const fit = (p: OpenPage): Promise<{ scrollWidth: number, innerWidth: number, past: string[] }> =>
  p.page.evaluate(() => {
    const g = globalThis as any
    const clipped = (e: any): boolean => e.parentElement !== g.document.body &&
      (g.getComputedStyle(e.parentElement).overflowX !== 'visible' || clipped(e.parentElement))
    const past: any[] = [...g.document.body.querySelectorAll('*')].filter((e: any) => {
      const box = e.getBoundingClientRect()
      if ((box.width === 0 && box.height === 0) || clipped(e)) return false
      const parent = e.parentElement
      const style = g.getComputedStyle(parent)
      const inner = parent.getBoundingClientRect().right - parseFloat(style.borderRightWidth) -
        parseFloat(style.paddingRight)
      return box.right > inner + 0.5
    })
    const name = (e: any): string => e.tagName.toLowerCase() + (e.id === '' ? '' : `#${e.id}`) +
      [...e.classList].map((c) => `.${c}`).join('')
    return { scrollWidth: g.document.documentElement.scrollWidth, innerWidth: g.innerWidth,
      past: past.map((e: any) => `${name(e)} in ${name(e.parentElement)}`) }
  })

t.test('the explorer in Chromium', { skip: skip ?? false }, async (t) => {
  const svc = await startTestService(t)
  const { key } = await svc.newAccount('explorer')
  // the tabs below each start a browser context; every group shares one tab between its steps

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

    // the near-ground fields, on by default, serve the default range (0–15 000 m) at the default point
    t.ok(await p.page.isChecked('#p-surface') && await p.page.isChecked('#f-surface'),
      'near-ground fields on by default in both panels')
    t.equal(await useKey(p, key), 'ok')
    await p.page.check('#p-mode-range')
    t.same([await p.page.inputValue('#p-from'), await p.page.inputValue('#p-to')], ['0', '15000'], 'the default range')
    await p.page.click('#profile-submit')
    await p.page.waitForFunction(() => (globalThis as any).document
      .querySelectorAll('#chart-temperature .s-temperature .point').length === 31)
    t.pass('the 31 heights of the default range are answered, 0 m AGL among them')
    t.equal((await p.page.$$('#chart-wind .surface-layer rect')).length, 1, 'the near-ground part is marked')
    t.equal((await p.page.$$('#chart-wind .surface-layer text')).length, 0, 'no label on the plot, over its markers')
    t.match(await p.page.textContent('#chart-wind figcaption .surface-layer-key'), 'near-ground fields',
      'named in the caption')
    t.match(await p.page.textContent('#profile-provenance'), 'the model\'s own fields at (wind 10, 20, 30, 40, 50, ' +
      '80, 100 m; temperature 2 m; humidity 2, 80 m; pressure 0, 80 m;', 'the nodes provenance names')
    t.same(p.errors, [], 'no console errors')
  })

  t.test('profiles (one tab for both)', async (t) => {
    const navigated = Date.now()
    const p = await openPage(t, `${svc.url}/`)
    t.test('a profile: one chart point per height, each the API\'s number; every column in the panel', async (t) => {
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
      await p.page.check('#p-mode-range')
      await p.page.fill('#p-from', '500')
      await p.page.fill('#p-to', '16000')
      await p.page.fill('#p-step', '500')
      await p.page.fill('#p-lat', String(PROFILE.latitude))
      await p.page.fill('#p-lon', String(PROFILE.longitude))
      await p.page.fill('#p-time', '2020-08-04T18:00Z')
      await p.page.click('#profile-submit')
      await p.page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#chart-wind .s-speed .point')
        .length === 32)
      t.pass('a speed point for each of 32 heights')
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
  })

  t.test('refusals and mistakes (one tab for all)', async (t) => {
    const p = await openPage(t, `${svc.url}/`)
    const page = p.page
    const fieldError = (id: string): Promise<string | null> => page.textContent(`#${id}-error`)
    t.test('a wrong key: "Use key" says it is unknown, and the 401 says how to fix it', async (t) => {
      t.equal(await useKey(p, 'aloft_not-a-key'), 'unknown')
      t.match(await p.page.textContent('#key-state'), 'This key is not known to this aloft')
      await askProfile(p, [1000])
      await p.page.waitForSelector('#profile-error:not([hidden])')
      const text = await p.page.textContent('#profile-error')
      t.match(text, /\(HTTP 401\)/)
      t.match(text, 'Enter a valid API key')
      t.same(p.errors.filter((e) => !/status of 401/.test(e)), [], 'no console errors but the 401s themselves')
    })

    t.test('a height outside the column: the 409 shows the range served', async (t) => {
      await useKey(p, key)
      await askProfile(p, [1000, 60000])
      await p.page.waitForSelector('#profile-error:not([hidden])')
      const text = await p.page.textContent('#profile-error')
      t.match(text, 'Outside supported vertical range (HTTP 409)')
      t.match(text, 'Height(s) 60000 m AGL lie outside the column', 'the detail names the height')
      const range = '[\\d\u2009]+–[\\d\u2009]+'
      t.match(text, new RegExp(`This point serves ${range} m above ground \\(${range} m above sea level\\)\\.`))
      t.ok(await p.page.isHidden('#profile-result'), 'no stale charts beside the error')
      t.equal(await p.page.$('#profile-error .suggestion'), null, 'above the column: nothing near the ground helps')
      t.same(p.errors.filter((e) => !/status of (401|409)/.test(e)), [], 'no console errors but the 401s and the 409')
    })

    t.test('a height under the column without near-ground fields: the 409 offers them, which serve it', async (t) => {
      await p.page.uncheck('#p-surface')
      await askProfile(p, [0, 1000])
      await p.page.waitForSelector('#profile-error .suggestion button')
      t.match(await p.page.textContent('#profile-error .suggestion'), 'served by the model\'s near-ground fields')
      await p.page.click('#profile-error .suggestion button')
      await p.page.waitForSelector('#profile-result:not([hidden])')
      t.ok(await p.page.isChecked('#p-surface'), 'the switch is on')
      t.ok(await p.page.isHidden('#profile-error'), 'answered')
    })

    t.test('a place typed into the profile form is the flight\'s launch too, and the crosshair\'s', async (t) => {
      await p.page.fill('#p-lat', '50.06')
      await p.page.fill('#p-lon', '19.94')
      await p.page.press('#p-lon', 'Tab')
      t.equal(await p.page.inputValue('#f-lat'), '50.06')
      t.equal(await p.page.inputValue('#f-lon'), '19.94')
      t.equal(await p.page.getAttribute('#map .point-marker', 'data-latitude'), '50.06', 'the crosshair moved')
    })

    t.test('"Use key" says when a key is revoked, when the store cannot check it, when there is none', async (t) => {
      t.equal(await useKey(p, key), 'ok')
      t.match(await page.textContent('#key-state'), /^Key works: [\d\u2009]+ of [\d\u2009]+ data fetches left today\./)
      const other = await svc.newAccount('revoked')
      const revoked = await fetch(`${svc.url}/v1/keys/${other.keyId}`, {
        method: 'DELETE', headers: { 'x-api-key': other.key }
      })
      t.equal(revoked.status, 200, 'a second account\'s key revoked')
      t.equal(await useKey(p, other.key), 'revoked')
      t.match(await page.textContent('#key-state'), 'This key has been revoked')
      await page.route(`${svc.url}/v1/account`, (route) => route.fulfill(problem(503, 'service_unavailable',
        'Service unavailable', { detail: 'The account store is unreachable; try again shortly.' })))
      t.equal(await useKey(p, key), 'unavailable')
      t.match(await page.textContent('#key-state'), 'The account store is unavailable, so the key could not be checked')
      await page.unroute(`${svc.url}/v1/account`)
      await page.fill('#key', '')
      await page.click('#key-form button')
      t.equal(await page.textContent('#key-state'), 'No key set.')
      t.equal(await useKey(p, key), 'ok', 'and the working key again')
    })

    t.test('times in ISO UTC: malformed ones are refused at the field, before anything is sent', async (t) => {
      const asked = (): number => p.requests.filter((u) => u.endsWith('/v1/atmosphere/profile')).length
      const before = asked()
      for (const [typed, says] of [
        ['08/04/2020, 12:00 PM', 'is not a time like 2020-08-04T12:00Z'],
        ['2020-02-30T12:00Z', 'is not a real date and time'],
        ['2020-08-04T12:00+02:00', 'Give the time in UTC (ending in Z)']
      ]) {
        await page.fill('#p-time', typed)
        await page.click('#profile-submit')
        t.match(await fieldError('p-time'), says, `“${typed}”: ${says}`)
        t.equal(await page.getAttribute('#p-time', 'aria-invalid'), 'true')
      }
      t.equal(asked(), before, 'no profile was asked for')
      await page.fill('#p-time', '2020-08-04 18:00')
      await page.fill('#p-list', '1000, 3000')
      const [request] = await Promise.all([page.waitForRequest(`${svc.url}/v1/atmosphere/profile`),
        page.click('#profile-submit')])
      t.equal(JSON.parse(request.postData() ?? '{}').time, '2020-08-04T18:00:00Z', 'a UTC time without the Z is sent')
      await page.waitForSelector('#chart-temperature svg .point')
      t.equal(await page.$('#p-time-error'), null, 'and its mark is gone')
      t.equal(await page.getAttribute('#p-time', 'aria-describedby'), 'p-time-hint', 'the hint alone again')
    })

    t.test('a 400 from the service: each entry at its input, in words', async (t) => {
      await page.fill('#f-ascent', '0')
      await page.fill('#f-descent', '-1')
      await page.fill('#f-burst-sd', '-5')
      await askFlight(p, 5)
      await page.waitForSelector('#flight-error:not([hidden])')
      t.match(await page.textContent('#flight-error .problem-title'), 'Invalid request (HTTP 400)')
      t.match(await page.textContent('#flight-error'), '3 fields need a change: they are marked above.')
      t.equal(await fieldError('f-ascent'), 'Must be more than 0 m/s.')
      t.equal(await fieldError('f-descent'), 'Must be more than 0 m/s.')
      t.equal(await fieldError('f-burst-sd'), 'Must be 0 m or more.')
      t.equal(await page.getAttribute('#f-ascent', 'aria-describedby'), 'f-ascent-error', 'read with the input')
      t.equal(await page.getAttribute('#f-time', 'aria-describedby'), 'f-time-hint', 'the hint of a good input stays')
      const text = await page.textContent('#flight-panel') ?? ''
      t.notMatch(text, /exclusiveMinimum|TrajectoryRequest|greater_than|error\(s\)/, 'no schema words')
      await page.fill('#p-lat', '95')
      await page.click('#profile-submit')
      await page.waitForSelector('#p-lat-error')
      t.equal(await fieldError('p-lat'), 'Must be 90° or less.', 'the profile form too')
      await page.fill('#p-lat', '52.23')
      await page.fill('#f-ascent', '5')
      await page.fill('#f-descent', '5')
      await page.fill('#f-burst-sd', '2000')
      await askFlight(p, 1)
      await page.waitForSelector('#flight-result:not([hidden])')
      t.equal(await page.$$eval('#flight-form .field-error, #flight-form [aria-invalid]', (els) => els.length), 0,
        'fixed: the marks are gone')
    })

    t.test('entries no input matches are listed in words under the form', async (t) => {
      await page.route(`${svc.url}/v1/atmosphere/trajectory`, (route) => route.fulfill(problem(400, 'invalid_request',
        'Invalid request', {
          detail: 'The body does not match TrajectoryRequest: 3 error(s).',
          errors: [
            { loc: ['body', 'launch_latitude'], msg: 'Input should be less than or equal to 90',
              type: 'less_than_equal', input: 91, ctx: { limit: 90 } },
            { loc: ['body', 'dataset'], msg: 'Input should be an RFC 3339 date-time', type: 'datetime_format',
              input: 'yesterday', ctx: { format: 'date-time' } },
            { loc: [], msg: 'The flight needs at least one stage', type: 'value_error' }
          ]
        })))
      await askFlight(p)
      await page.waitForSelector('#flight-error .unplaced-errors')
      t.equal(await fieldError('f-lat'), 'Must be 90° or less.')
      t.same(await page.$$eval('#flight-error .unplaced-errors li', (els) => els.map((e) => e.textContent)), [
        'Dataset: Must be a UTC time like 2020-08-04T12:00Z.',
        'The request: The flight needs at least one stage.'
      ])
      t.match(await page.textContent('#flight-error'), 'One field needs a change: it is marked above.')
      await page.unroute(`${svc.url}/v1/atmosphere/trajectory`)
      const unexpected = p.errors.filter((e) => !/status of (400|401|409|503)/.test(e))
      t.same(unexpected, [], 'no console errors but the refusals themselves')
    })
  })

  t.test('flights (one tab for both)', async (t) => {
    const p = await openPage(t, `${svc.url}/`)
    await useKey(p, key)
    t.test('a flight: the map path has a vertex per trajectory point; GeoJSON to download', async (t) => {
      await askFlight(p)
      await p.page.waitForSelector('#map path.path.descent')
      const answer = await api(t, svc, key, '/v1/atmosphere/trajectory', FLIGHT)
      for (const stage of answer.prediction as Array<{ stage: string, trajectory: unknown[] }>) {
        const d = await p.page.getAttribute(`#map path.path.${stage.stage}`, 'd') ?? ''
        t.equal(d.match(/[ML]/g)?.length, stage.trajectory.length, `${stage.stage}: a map vertex per point`)
        const chart = await p.page.getAttribute(`#chart-altitude path.${stage.stage}`, 'd') ?? ''
        t.equal(chart.match(/[ML]/g)?.length, stage.trajectory.length, `${stage.stage}: a chart vertex per point`)
      }
      for (const mark of ['launch', 'burst', 'landed']) t.ok(await p.page.$(`#map .mark.${mark}`), `${mark} marked`)
      const [download] = await Promise.all([p.page.waitForEvent('download'), p.page.click('#flight-download')])
      const file = JSON.parse(await readFile(await download.path(), 'utf8'))
      const line = file.features.find((f: any) => f.geometry.type === 'LineString')
      // each stage starts where the one before ended: that point once
      const points = answer.prediction.reduce((n: number, s: any, k: number) =>
        n + s.trajectory.length - (k > 0 ? 1 : 0), 0)
      t.equal(line.geometry.coordinates.length, points, 'the GeoJSON path has every point once')
      t.same(p.errors, [], 'no console errors')
    })

    t.test('a flight that leaves the data: its end is named so, nothing is called a landing', async (t) => {
      await p.page.fill('#f-time', '2020-08-05T01:30Z')
      await p.page.click('#flight-submit')
      await p.page.waitForSelector('#map .mark.left_source_coverage')
      const terms = await p.page.$$eval('#flight-summary dt', (els) => els.map((e) => e.textContent))
      t.ok(terms.includes('left the data here'), 'the summary names where it left the data')
      t.notOk(terms.includes('landing'), 'no landing in the summary')
      t.equal(await p.page.$('#map .mark.landed'), null, 'no landing on the map')
    })

    t.test('a float: its start is no burst, its end no landing', async (t) => {
      await p.page.fill('#f-time', '2020-08-04T12:00Z')
      await p.page.selectOption('#f-profile', 'float_profile')
      await p.page.fill('#f-float', '9000')
      await p.page.fill('#f-stop', '2020-08-04T13:00Z')
      await p.page.click('#flight-submit')
      await p.page.waitForSelector('#map .mark.float_ended')
      const terms = await p.page.$$eval('#flight-summary dt', (els) => els.map((e) => e.textContent))
      t.ok(terms.includes('float start') && terms.includes('float end'), terms.join(', '))
      t.notOk(terms.includes('burst') || terms.includes('landing'), 'neither a burst nor a landing')
      t.ok(await p.page.$('#map .mark.float_start'), 'the float\'s start marked as such')
      await p.page.selectOption('#f-profile', 'standard_profile')
    })

    t.test('an ensemble: every member\'s landing on the map, and the spread in words', async (t) => {
      await askFlight(p, 20)
      await p.page.waitForSelector('#map .member-landing')
      const answer = await api(t, svc, key, '/v1/atmosphere/trajectory', {
        ...FLIGHT,
        ensemble: { members: 20, ascent_rate_sd: 0.5, burst_altitude_sd: 2000, descent_rate_sd: 0.5, seed: 1 }
      })
      const landed = (answer.ensemble.members as Array<{ landing: unknown }>).filter((m) => m.landing !== null).length
      t.equal((await p.page.$$('#map .member-landing')).length, landed, 'a dot per landed member')
      t.ok(await p.page.$('#map path.spread'), 'the 95 % ring')
      t.match(await p.page.textContent('.spread-text'),
        new RegExp(`^20 members: ${landed === 20 ? 'all' : landed} landed.*Landing spread of the ${landed} landed`))
      t.match(await p.page.textContent('#map .spread-label'), `${landed} landed · 95 % within`, 'the count by the ring')
      t.same(p.errors, [], 'no console errors')
    })
  })

  for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
    t.test(`${viewport.width} px wide: no sideways scroll, nothing past its panel, whatever is shown`, async (t) => {
      const p = await openPage(t, `${svc.url}/`, undefined, viewport)
      const fits = async (shown: string): Promise<void> => {
        const { scrollWidth, innerWidth, past } = await fit(p)
        t.ok(scrollWidth <= innerWidth, `${shown}: the page is ${scrollWidth} px wide in a ${innerWidth} px window`)
        t.same(past, [], `${shown}: no box runs past its container`)
      }
      await fits('as it opens')
      t.equal(await useKey(p, key), 'ok', 'the key works')
      await fits('the key checked')
      await askProfile(p, HEIGHTS)
      await p.page.waitForSelector('#chart-temperature svg .point')
      await fits('a profile')
      await askFlight(p)
      await p.page.waitForSelector('#map path.path.descent')
      await fits('a flight')
      await p.page.fill('#f-ascent', '0')
      await p.page.click('#flight-submit')
      await p.page.waitForSelector('#f-ascent-error')
      await fits('a refusal at its input')
      t.same(p.errors.filter((e) => !/status of 400/.test(e)), [], 'no console errors but the 400')
    })
  }

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
