// The explorer's map in headless Chromium: the bundled Natural Earth map (land, borders, lakes,
// rivers, town names that come as you zoom), the scale bar, the pointer's coordinates, a click
// picking the point, and the operator's tiles (ALOFT_MAP_TILES_URL) from a tile server of the
// test's own on another origin, which the page's CSP lets it load; tiles that fail are routed.
import t, { type Test } from 'tap'
import { createServer } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import type { Page } from 'playwright-core'
import { startTestService, type TestService } from '../helpers/service.js'
import { noBrowser, openPage } from '../helpers/browser.js'

const skip = noBrowser()
if (skip !== null) t.comment(skip)

/** A 1×1 PNG, enough for a tile. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8v5ThPwAG/gL+Qm6S0QAAAABJRU5ErkJggg==', 'base64')
const ATTRIBUTION = 'Tiles © Test Tiles https://tiles.example/copyright'

interface Label { name: string, people: number, box: { x: number, y: number, w: number, h: number } }

const labels = (page: Page): Promise<Label[]> => page.$$eval('#map .place-name', (els) => els.map((e) => {
  const r = e.getBoundingClientRect()
  return { name: e.textContent ?? '', people: Number(e.getAttribute('data-population')),
    box: { x: r.x, y: r.y, w: r.width, h: r.height } }
}))

const controls = (page: Page): Promise<Label[]> => page.$$eval('#map .leaflet-control', (els) => els.map((e) => {
  const r = e.getBoundingClientRect()
  return { name: e.className, people: 0, box: { x: r.x, y: r.y, w: r.width, h: r.height } }
}))

const overlapping = (ls: Label[]): string[] => ls.flatMap((a, i) => ls.slice(i + 1)
  .filter((b) => a.box.x < b.box.x + b.box.w && b.box.x < a.box.x + a.box.w &&
    a.box.y < b.box.y + b.box.h && b.box.y < a.box.y + a.box.h)
  .map((b) => `${a.name}/${b.name}`))

/** A tile server on a port (an origin) of its own, answering every tile with the PNG; the paths asked. */
async function tileServer (t: Test): Promise<{ url: string, asked: string[] }> {
  const asked: string[] = []
  const server = createServer((req, res) => {
    asked.push(req.url ?? '')
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length }).end(PNG)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve) }))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked }
}

/** The page as the service would write it with tiles configured (meta tags filled in). */
async function withTiles (page: Page, svc: TestService, tile: 'ok' | 'fail'): Promise<void> {
  await page.route(`${svc.url}/`, async (route) => {
    const res = await route.fetch()
    const html = (await res.text())
      .replace('<meta name="aloft-map-tiles" content="">',
        `<meta name="aloft-map-tiles" content="${svc.url}/test-tiles/{z}/{x}/{y}.png">`)
      .replace('<meta name="aloft-map-attribution" content="">',
        `<meta name="aloft-map-attribution" content="${ATTRIBUTION}">`)
    await route.fulfill({ response: res, body: html })
  })
  await page.route(`${svc.url}/test-tiles/**`, (route) => tile === 'ok'
    ? route.fulfill({ status: 200, contentType: 'image/png', body: PNG })
    : route.fulfill({ status: 503, contentType: 'text/plain', body: 'no tiles here' }))
}

t.test('the explorer\'s map in Chromium', { skip: skip ?? false }, async (t) => {
  const svc = await startTestService(t)

  t.test('the bundled map: borders, water, names that come as you zoom, a scale, the pointer', async (t) => {
    const p = await openPage(t, `${svc.url}/`)
    const page = p.page
    await page.waitForSelector('#map[data-places=loaded]')
    const drawn = Object.fromEntries((await page.getAttribute('#map canvas.ne-canvas', 'data-drawn') ?? '')
      .split(', ').map((s) => s.split(' ')).map(([layer, n]) => [layer, Number(n)]))
    for (const layer of ['land', 'lakes', 'rivers', 'borders']) {
      t.ok(drawn[layer] > 0, `Natural Earth ${layer} drawn (${drawn[layer]} vertices)`)
    }
    const colours = await page.$eval('#map canvas.ne-canvas', (canvas: any) => {
      const px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data
      let land = 0
      let sea = 0
      for (let i = 0; i < px.length; i += 4) {
        if (px[i] === 0xf4 && px[i + 1] === 0xf1 && px[i + 2] === 0xea) land++
        if (px[i + 3] === 0) sea++
      }
      return { land: land / (px.length / 4), sea: sea / (px.length / 4) }
    })
    t.ok(colours.land > 0.3 && colours.sea > 0.02, `land filled (${(colours.land * 100).toFixed(0)} % of the ` +
      `canvas), the sea left open (${(colours.sea * 100).toFixed(0)} %)`)
    t.match(await page.textContent('#map .leaflet-control-attribution'), /Natural Earth.*GeoNames/)
    t.match(await page.textContent('#map .leaflet-control-scale-line'), /^\d+ k?m$/, 'a scale bar')

    const box = await page.locator('#map').boundingBox()
    if (box === null) throw new Error('the map is not on screen')
    const [x, y] = [box.x + box.width * 0.3, box.y + box.height * 0.6]
    await page.mouse.move(x, y)
    const pointer = await page.textContent('#map-pointer') ?? ''
    t.match(pointer, /^\d+\.\d{3}° N, \d+\.\d{3}° E$/, `the pointer's coordinates shown: ${pointer}`)
    const shown = [Number(await page.getAttribute('#map-pointer', 'data-latitude')),
      Number(await page.getAttribute('#map-pointer', 'data-longitude'))]
    await page.mouse.click(x, y)
    const lat = Number(await page.inputValue('#p-lat'))
    const lon = Number(await page.inputValue('#p-lon'))
    t.ok(lat > 48 && lat < 56 && lon > 13 && lon < 25, `${lat}, ${lon}: inside the coverage shown`)
    t.ok(lon < 19 && lat < 52, 'left of and below the middle, where the click was')
    t.ok(Math.abs(lat - shown[0]) <= 0.006 && Math.abs(lon - shown[1]) <= 0.006,
      'the click picks the point the pointer showed (rounded to 0.01°)')
    t.equal(await page.inputValue('#f-lat'), String(lat), 'the launch takes it too')
    t.equal(await page.inputValue('#f-lon'), String(lon))
    t.equal(await page.getAttribute('#map .point-marker', 'data-latitude'), String(lat), 'and it is marked')
    const wide = await labels(page)
    t.ok(wide.some((l) => l.name === 'Warsaw'), 'the capital named at the coverage\'s zoom')
    t.same(overlapping(wide), [], 'no two names overlap')
    t.same(overlapping([...wide, ...await controls(page)]), [], 'nor hide under the map\'s controls')
    await page.click('#map .leaflet-control-zoom-in')
    await page.click('#map .leaflet-control-zoom-in')
    await page.waitForFunction((least) => [...(globalThis as any).document.querySelectorAll('#map .place-name')]
      .some((e) => Number(e.getAttribute('data-population')) < least),
    Math.min(...wide.map((l) => l.people)))
    const near = await labels(page)
    t.ok(Math.min(...near.map((l) => l.people)) < Math.min(...wide.map((l) => l.people)),
      `zoomed in, smaller towns are named (${near.length} names, down to ${Math.min(...near.map((l) => l.people))} ` +
      'people)')
    t.same(overlapping(near), [], 'still no two names overlap')
    t.same(p.errors, [], 'no console errors')
    t.same(p.requests.filter((u) => !u.startsWith(svc.url) && !u.startsWith('data:')), [],
      'no request left the origin')
  })

  t.test('the operator\'s tile server (ALOFT_MAP_TILES_URL), allowed by the CSP, with its attribution', async (t) => {
    const tiles = await tileServer(t)
    const tiled = await startTestService(t, { env: {
      ALOFT_MAP_TILES_URL: `${tiles.url}/test-tiles/{z}/{x}/{y}.png`, ALOFT_MAP_TILES_ATTRIBUTION: ATTRIBUTION
    } })
    const p = await openPage(t, `${tiled.url}/`)
    await p.page.waitForSelector('#map img.leaflet-tile-loaded')
    t.equal(await p.page.getAttribute('#map', 'data-basemap'), 'tiles')
    const srcs = await p.page.$$eval('#map img.leaflet-tile', (els) => els.map((e) => e.getAttribute('src') ?? ''))
    t.ok(srcs.length > 0 && srcs.every((s) => new RegExp(`^${tiles.url}/test-tiles/\\d+/\\d+/\\d+\\.png$`).test(s)),
      `${srcs.length} tiles from the template`)
    t.ok(tiles.asked.length > 0 && tiles.asked.every((u) => /^\/test-tiles\/\d+\/\d+\/\d+\.png$/.test(u)),
      `the tile server was asked for ${tiles.asked.length} tiles`)
    const attribution = p.page.locator('#map .leaflet-control-attribution')
    t.match(await attribution.textContent(), 'Tiles © Test Tiles tiles.example/copyright')
    t.equal(await attribution.locator('a[href="https://tiles.example/copyright"]').count(), 1,
      'the address in the attribution is a link')
    t.equal(await p.page.$$eval('#map canvas.ne-canvas', (els) => els.length), 0, 'the bundled map is not drawn')
    t.notOk(p.requests.some((u) => /\/explorer\/map-/.test(u)), 'nor its data fetched')
    t.same(p.errors, [], 'no console errors')
  })

  t.test('tiles that do not load: the bundled map instead, and the page says so', async (t) => {
    const p = await openPage(t, `${svc.url}/`, (page) => withTiles(page, svc, 'fail'))
    await p.page.waitForSelector('#map[data-basemap=natural-earth] canvas.ne-canvas')
    t.match(await p.page.textContent('#map-note'), 'The map tiles did not load; showing the bundled map.')
    t.equal(await p.page.$$eval('#map img.leaflet-tile', (els) => els.length), 0, 'the tile layer is gone')
    t.same(p.errors.filter((e) => !/status of 503/.test(e)), [], 'no console errors but the refused tiles')
  })
})
