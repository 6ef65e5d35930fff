// What the explorer's browser tests do on the page, as a person would: enter the key, fill the
// profile and flight forms (times as the page takes them: ISO UTC), read values off the page.
import type { Test } from 'tap'
import type { OpenPage } from './browser.js'
import type { TestService } from './service.js'

export const HEIGHTS = [500, 1000, 2000, 3000, 5000, 8000, 12000]
// the page asks with the near-ground fields on (its default), and so do these
export const PROFILE = {
  latitude: 52.23, longitude: 21.01, time: '2020-08-04T18:00:00Z', altitudes_m: HEIGHTS, altitude_reference: 'agl',
  surface_layer: true
}
export const FLIGHT = {
  profile: 'standard_profile', launch_latitude: 52.2297, launch_longitude: 21.0122,
  launch_datetime: '2020-08-04T12:00:00Z', ascent_rate: 5, burst_altitude: 30000, descent_rate: 5, surface_layer: true
}

/** The same request the page makes, straight to the API, to compare what the page shows. */
export async function api (t: Test, svc: TestService, key: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${svc.url}${path}`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body)
  })
  t.equal(res.status, 200, `${path} answers the same request`)
  return res.json()
}

/** "Use key", then the page's verdict once it has checked the key. */
export async function useKey (p: OpenPage, key: string): Promise<string> {
  await p.page.fill('#key', key)
  await p.page.click('#key-form button')
  await p.page.waitForSelector('#key-state:not([data-state=checking])[data-state]')
  return await p.page.getAttribute('#key-state', 'data-state') ?? ''
}

export async function askProfile (p: OpenPage, heights: number[]): Promise<void> {
  await p.page.fill('#p-lat', String(PROFILE.latitude))
  await p.page.fill('#p-lon', String(PROFILE.longitude))
  await p.page.fill('#p-time', '2020-08-04T18:00Z')
  await p.page.check('#p-mode-list')
  await p.page.fill('#p-list', heights.join(', '))
  // from the keyboard: Enter in a field submits the form
  await p.page.focus('#p-list')
  await p.page.keyboard.press('Enter')
}

export async function askFlight (p: OpenPage, members = 1): Promise<void> {
  await p.page.fill('#f-lat', String(FLIGHT.launch_latitude))
  await p.page.fill('#f-lon', String(FLIGHT.launch_longitude))
  await p.page.fill('#f-time', '2020-08-04T12:00Z')
  await p.page.fill('#f-members', String(members))
  await p.page.click('#flight-submit')
}

export const values = (p: OpenPage, selector: string, attr = 'data-value'): Promise<string[]> =>
  p.page.$$eval(selector, (els, a) => els.map((e) => e.getAttribute(a) ?? ''), attr)
