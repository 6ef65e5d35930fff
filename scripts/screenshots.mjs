#!/usr/bin/env node
// `npm run screenshots`: the README's pictures of the explorer, made by driving Debian's Chromium
// (playwright-core) over `aloft demo` on the bundled data: the profile panel, the flight panel
// with a 50-member ensemble, and the map zoomed in to that flight (the bundled Natural Earth map
// with its town names). Writes docs/screenshots/*.png; run `npm run build` first.
//
// `--page <file.png>` instead: the whole page as a newcomer first sees it, taken once it has the
// source's coverage and its map (a plain `chromium --headless --screenshot` cannot wait for them),
// in a window 1 280 px wide or `--width`'s; a relative name is where npm was run from.
import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { chromium } from 'playwright-core'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'docs/screenshots')
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const options = parseArgs({ options: { page: { type: 'string' }, width: { type: 'string', default: '1280' } } }).values
const width = Number(options.width)
// where npm was run from (it runs scripts in the package's folder)
const here = process.env.INIT_CWD ?? process.cwd()
if (!Number.isInteger(width) || width < 200) throw new Error(`--width ${options.width}: a window width in pixels`)

const demo = spawn(process.execPath, [join(root, 'dist/src/cli/main.js'), 'demo'], {
  env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit']
})
let printed = ''
const started = await new Promise((resolve, reject) => {
  demo.stdout.on('data', (chunk) => {
    printed += chunk
    const url = /on (http:\/\/[^\s]+)/.exec(printed)?.[1]
    const key = /(aloft_[A-Za-z0-9_-]{20,})/.exec(printed)?.[1]
    if (url !== undefined && key !== undefined) resolve({ url, key })
  })
  demo.on('exit', (code) => reject(new Error(`aloft demo exited (${code}) before it served: ${printed}`)))
})

/** The page in a window `width` px wide, once it is ready and its map drawn, as one PNG at `file`. */
async function wholePage (browser, file) {
  const page = await browser.newPage({ viewport: { width, height: 900 }, deviceScaleFactor: 1 })
  await page.goto(`${started.url}/`)
  // ready: the coverage is in (or its problem shown); the map: the bundled one with its town names, or tiles
  await page.waitForSelector('body[data-ready=true]')
  await page.waitForSelector('#map[data-places=loaded], #map[data-basemap=tiles]')
  await page.waitForLoadState('networkidle')
  await page.screenshot({ path: file, fullPage: true })
  const size = await page.$eval('html', (html) => [html.scrollWidth, html.scrollHeight])
  const source = (await page.textContent('#source-line')).trim()
  const map = await page.getAttribute('#map', 'data-basemap')
  console.log(`wrote ${relative(here, file)} (${size.join(' × ')} px): “${source}”, the ${map} map`)
}

async function readmePictures (browser) {
  mkdirSync(out, { recursive: true })
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, deviceScaleFactor: 1 })
  await page.goto(`${started.url}/`)
  await page.waitForSelector('body[data-ready=true]')
  await page.fill('#key', started.key)
  await page.click('#key-form button')
  await page.waitForSelector('#key-state[data-state=ok]')
  await page.fill('#p-lat', '52.23')
  await page.fill('#p-lon', '21.01')
  await page.fill('#p-time', '2020-08-04T18:00Z')
  await page.click('#profile-submit')
  await page.waitForSelector('#chart-temperature svg .point')
  await page.locator('#profile-panel').screenshot({ path: join(out, 'profile.png') })
  await page.fill('#f-lat', '52.23')
  await page.fill('#f-lon', '21.01')
  await page.fill('#f-time', '2020-08-04T12:00Z')
  await page.fill('#f-members', '50')
  await page.click('#flight-submit')
  await page.waitForSelector('#map .member-landing')
  await page.locator('#flight-panel').screenshot({ path: join(out, 'flight.png') })
  // the map has zoomed to the flight: wait for the names of the towns around it
  await page.waitForSelector('#map[data-places=loaded] .place-name')
  await page.waitForTimeout(500)
  await page.locator('#map-panel').screenshot({ path: join(out, 'map.png') })
  console.log(`wrote ${['profile', 'flight', 'map'].map((n) => `docs/screenshots/${n}.png`).join(', ')}`)
}

const browser = await chromium.launch({ executablePath })
try {
  if (options.page !== undefined) await wholePage(browser, resolve(here, options.page))
  else await readmePictures(browser)
} finally {
  await browser.close()
  demo.kill('SIGTERM')
}
