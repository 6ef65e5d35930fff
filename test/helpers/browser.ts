// A real browser for the explorer's tests: Debian's Chromium driven by playwright-core. Every
// console error, page error and request is recorded so a test can assert that none went wrong
// and that nothing left the service's origin.
import type { Test } from 'tap'
import { existsSync } from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** The reason the browser tests cannot run here, or null when they can. */
export function noBrowser (): string | null {
  return existsSync(CHROMIUM)
    ? null
    : `no Chromium at ${CHROMIUM} (install Debian's chromium package, or set CHROMIUM_PATH): browser tests skipped`
}

let shared: Promise<Browser> | null = null

/** One browser per test file, closed when the file's tests end. */
export async function browser (t: Test): Promise<Browser> {
  if (shared === null) {
    shared = chromium.launch({ executablePath: CHROMIUM })
    const opened = shared
    t.teardown(async () => { await (await opened).close(); shared = null })
  }
  return shared
}

export interface OpenPage {
  page: Page
  /** Console errors and uncaught page errors, in order. */
  errors: string[]
  /** Every URL the page asked for. */
  requests: string[]
}

/** A new tab on `url`, ready when the page says so; `before` runs first (to route requests, say). */
export async function openPage (t: Test, url: string, before?: (page: Page) => Promise<void>,
  viewport?: { width: number, height: number }): Promise<OpenPage> {
  const context = await (await browser(t)).newContext({ acceptDownloads: true,
    ...(viewport !== undefined ? { viewport } : {}) })
  t.teardown(() => context.close())
  const page = await context.newPage()
  const errors: string[] = []
  const requests: string[] = []
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()) })
  page.on('pageerror', (e) => { errors.push(`page error: ${e.message}`) })
  page.on('request', (r) => { requests.push(r.url()) })
  if (before !== undefined) await before(page)
  await page.goto(url)
  await page.waitForSelector('body[data-ready=true]')
  return { page, errors, requests }
}
