// A prediction page on another origin, as the SondeHub predictor runs (docs/DESIGN.md §9): served
// here from a second local server, it calls the Tawhiri path with fetch and the page's parameters
// (pred_type included, no key: the demo's public mode) and shows the landing; then its hourly mode,
// 169 requests at once, every one answered (none refused with a 429).
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { noBrowser, openPage } from '../helpers/browser.js'
import { startTestService } from '../helpers/service.js'

const skip = noBrowser()
if (skip !== null) t.comment(skip)

/** The page: what pred-new.js does with $.get, written with fetch; the landing shown as the page shows it. */
const PAGE = `<!doctype html><html><body data-ready="true"><h1>predictor</h1><p id="landing"></p><p id="error"></p>
<script>
const api = new URLSearchParams(location.search).get('api')
async function ask (settings) {
  const res = await fetch(api + '?' + new URLSearchParams(settings))
  return { status: res.status, data: await res.json() }
}
window.single = async (settings) => {
  const { status, data } = await ask(settings)
  if (status !== 200) { document.getElementById('error').textContent = data.error.description; return }
  const descent = data.prediction[1].trajectory
  const landing = descent[descent.length - 1]
  const lon = landing.longitude > 180 ? landing.longitude - 360 : landing.longitude
  document.getElementById('landing').textContent =
    'Predicted Landing (' + landing.latitude.toFixed(4) + ', ' + lon.toFixed(4) + ')'
}
window.hourly = async (settings, hours) => {
  const launch = Date.parse(settings.launch_datetime)
  const asks = []
  for (let h = 0; h < hours; h++) {
    const at = new Date(launch + h * 3600e3).toISOString().replace('.000Z', 'Z')
    asks.push(ask({ ...settings, launch_datetime: at }).then((r) => r.status, () => 0))
  }
  return await Promise.all(asks)
}
</script></body></html>`

const SETTINGS = {
  profile: 'standard_profile', pred_type: 'single', launch_datetime: '2020-08-04T12:00:00Z',
  launch_latitude: '52.2297', launch_longitude: '21.0122', launch_altitude: '0', ascent_rate: '5',
  burst_altitude: '30000', descent_rate: '5'
}

t.test('a page on another origin', { skip: skip ?? false }, async (t) => {
  const svc = await startTestService(t, { env: { ALOFT_PUBLIC_TAWHIRI: 'on', ALOFT_LOG_LEVEL: 'warn' } })
  const site = createServer((_req, res) => { res.setHeader('content-type', 'text/html'); res.end(PAGE) })
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { site.close() })
  // another origin than the service's: another port (and another host name for the same address)
  const origin = `http://localhost:${(site.address() as AddressInfo).port}`
  const p = await openPage(t, `${origin}/?api=${encodeURIComponent(`${svc.url}/tawhiri`)}`)

  t.test('calls the Tawhiri path with fetch and shows the landing', async (t) => {
    await p.page.evaluate(async (s) => { await (globalThis as any).single(s) }, SETTINGS)
    t.match(await p.page.textContent('#landing'), /^Predicted Landing \(53\.\d{4}, 21\.\d{4}\)$/)
    t.same(p.errors, [], 'no CORS or console errors')
  })

  t.test('its hourly mode: 169 requests at once, every one answered', async (t) => {
    const started = Date.now()
    const statuses = await p.page.evaluate(async (s) => await (globalThis as any).hourly(s, 169) as number[],
      SETTINGS)
    const seconds = (Date.now() - started) / 1000
    const count = (s: number): number => statuses.filter((x) => x === s).length
    t.equal(statuses.length, 169)
    t.equal(count(429), 0, 'none refused for the burst')
    t.equal(count(0), 0, 'none failed in the browser')
    t.ok(count(200) >= 10, `flights within the bundled data answered (${count(200)})`)
    t.comment(`169 answered in ${seconds.toFixed(1)} s: ${count(200)} flights, ${count(500)} leaving the data, ` +
      `${count(404)} launches outside it`)
  })
})
