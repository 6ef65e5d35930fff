// The flight on the explorer's map never misleads (headless Chromium, bundled GFS sample): an
// ensemble that mostly leaves the data says how every member ended and draws no spread over the
// few that landed; the data's coverage box looks like no flight line; a float is not drawn as an
// ascent; a flight's end marks are never under a map control, at desktop and at phone width.
// Screenshots of both widths go to ALOFT_SCREENSHOTS (default: a folder under the OS temp dir).
import t, { type Test } from 'tap'
import { mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { startTestService } from '../helpers/service.js'
import { noBrowser, openPage } from '../helpers/browser.js'
import { useKey } from '../helpers/explorer-page.js'

const skip = noBrowser()
if (skip !== null) t.comment(skip)

const SHOTS = process.env.ALOFT_SCREENSHOTS ?? join(tmpdir(), 'aloft-screenshots')
const WIDTHS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } }

interface Box { name: string, x: number, y: number, w: number, h: number }

const boxes = (page: Page, selector: string): Promise<Box[]> => page.$$eval(selector, (els) => els.map((e) => {
  const r = e.getBoundingClientRect()
  return { name: e.className.toString(), x: r.x, y: r.y, w: r.width, h: r.height }
}))

const meets = (a: Box, b: Box): boolean => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h

const style = (page: Page, selector: string, prop: string): Promise<string> =>
  page.$eval(selector, (e, p) => (globalThis as any).getComputedStyle(e).getPropertyValue(p) as string, prop)

/** Launches the flight form as filled and waits for the map to show it, framed. */
async function fly (page: Page, fields: Record<string, string>, mark: string): Promise<void> {
  for (const [id, value] of Object.entries(fields)) {
    if (id === 'f-profile') await page.selectOption('#f-profile', value)
    else await page.fill(`#${id}`, value)
  }
  await page.click('#flight-submit')
  await page.waitForSelector(`#map .mark.${mark}`)
  // the map animates its frame: wait until every mark has kept its place for three checks in a row
  let last = ''
  for (let still = 0; still < 3;) {
    await page.waitForTimeout(150)
    const now = JSON.stringify(await boxes(page, '#map .mark'))
    still = now === last ? still + 1 : 0
    last = now
  }
}

/** Every mark of the flight inside the map and clear of every control. */
async function marksClear (t: Test, page: Page, label: string): Promise<void> {
  const map = (await boxes(page, '#map'))[0]
  const marks = await boxes(page, '#map .mark')
  const controls = (await boxes(page, '#map .leaflet-control')).filter((c) => c.w > 0 && c.h > 0)
  t.ok(marks.length >= 3, `${label}: ${marks.length} marks`)
  for (const m of marks) {
    t.ok(m.x >= map.x && m.y >= map.y && m.x + m.w <= map.x + map.w && m.y + m.h <= map.y + map.h,
      `${label}: ${m.name} inside the map`)
    const under = controls.filter((c) => meets(m, c)).map((c) => c.name)
    t.same(under, [], `${label}: ${m.name} under no control`)
  }
}

t.test('the flight on the map', { skip: skip ?? false }, async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_RATE_BURST: '50' } })
  const { key } = await svc.newAccount('map')
  mkdirSync(SHOTS, { recursive: true })

  t.test('an ensemble that leaves the data: how every member ended, no spread over a few landings', async (t) => {
    const p = await openPage(t, `${svc.url}/`)
    await useKey(p, key)
    const answered = p.page.waitForResponse((r) => r.url().endsWith('/v1/atmosphere/trajectory'))
    await fly(p.page, { 'f-lat': '55.3', 'f-lon': '24.0', 'f-time': '2020-08-04T12:00Z', 'f-members': '50' }, 'launch')
    const answer = await (await answered).json() as { ensemble: { members: Array<{ outcome: string }> } }
    const count = (o: string): number => answer.ensemble.members.filter((m) => m.outcome === o).length
    const landed = count('landed')
    const left = count('left_source_coverage')
    t.ok(left > 25 && landed > 0 && landed < 10, `${left} left the data, ${landed} landed`)
    const text = await p.page.textContent('.spread-text') ?? ''
    t.match(text, `50 members: ${left} left the data before landing, ${landed} landed.`, 'every member\'s ending')
    t.match(text, `Only ${landed} of 50 landed: too few for a landing spread to mean anything`)
    t.notMatch(text, /95 %/, 'no spread stated')
    t.equal(await p.page.$('#map path.spread'), null, 'no ring')
    t.equal((await p.page.$$('#map .member-landing')).length, landed, 'each landing marked one by one')
    t.same(p.errors, [], 'no console errors')
  })

  for (const [width, viewport] of Object.entries(WIDTHS)) {
    t.test(`${width} width (${viewport.width} px): the lines' own looks, end marks clear of controls`, async (t) => {
      const p = await openPage(t, `${svc.url}/`, undefined, viewport)
      await useKey(p, key)
      await fly(p.page, { 'f-lat': '52.2297', 'f-lon': '21.0122', 'f-time': '2020-08-04T12:00Z', 'f-members': '1' },
        'landed')
      // the coverage box: grey and dotted, unlike the descent's blue dashes
      const [coverStroke, coverDash] = [await style(p.page, '#map path.coverage', 'stroke'),
        await style(p.page, '#map path.coverage', 'stroke-dasharray')]
      const [descentStroke, descentDash] = [await style(p.page, '#map path.path.descent', 'stroke'),
        await style(p.page, '#map path.path.descent', 'stroke-dasharray')]
      t.not(coverStroke, descentStroke, `the coverage box's colour (${coverStroke}) is not the descent's`)
      t.not(coverDash, descentDash, `nor its dashes (${coverDash})`)
      t.match(await p.page.textContent('.legend-line'), 'data coverage', 'the legend names it')
      await marksClear(t, p.page, 'standard flight')
      await p.page.locator('#map').screenshot({ path: join(SHOTS, `flight-${width}.png`) })

      await fly(p.page, { 'f-profile': 'float_profile', 'f-float': '9000', 'f-stop': '2020-08-04T16:00Z' },
        'float_ended')
      const floatStroke = await style(p.page, '#map path.path.float', 'stroke')
      t.not(floatStroke, await style(p.page, '#map path.path.ascent', 'stroke'), `a float (${floatStroke}) is not red`)
      const start = (await boxes(p.page, '#map .mark.float_start'))[0]
      const launch = (await boxes(p.page, '#map .mark.launch'))[0]
      t.ok(start.h >= 1.5 * launch.h, `the float start (${start.h} px) stands out (launch ${launch.h} px)`)
      await marksClear(t, p.page, 'float')
      await p.page.locator('#map').screenshot({ path: join(SHOTS, `float-${width}.png`) })
      t.comment(`screenshots: ${SHOTS}`)
      t.same(p.errors, [], 'no console errors')
    })
  }
})
