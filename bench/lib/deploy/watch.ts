// What the deployment check watches while a process of A is killed or stalled (bench/deploy-check.ts):
// A's own clients, each request on a new connection (none may be left hanging), and A's /metrics,
// scraped without pause (no series may go down, no request be counted twice).
import { request as httpRequest } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import type { AloftInstance } from '../processes.js'
import type { Nginx } from '../nginx.js'
import { dropsBetween } from '../metrics-text.js'
import { getOnce } from './http.js'
import { answeredBy } from './fleet.js'

/** How long a request may go unanswered before it counts as left hanging. */
const HANG_MS = 5000

export interface ScrapeReport { scrapes: number, failedScrapes: number, drops: string[], counted: number,
  received: number }

/**
 * Runs `during` with 4 clients asking A's healthz directly, each request on a connection of its
 * own: how their requests ended (200, refused, reset, closed, or left hanging past HANG_MS).
 */
export async function withDirectClients (port: number, during: () => Promise<void>): Promise<Record<string, number>> {
  const outcomes: Record<string, number> = {}
  let running = true
  const clients = Array.from({ length: 4 }, async () => {
    while (running) {
      const how = await new Promise<string>((resolve) => {
        const req = httpRequest({ host: '127.0.0.1', port, path: '/healthz', agent: false,
          headers: { connection: 'close' } }, (res) => {
          res.resume()
          res.on('end', () => resolve(String(res.statusCode)))
          res.on('error', () => resolve('reset'))
        })
        req.setTimeout(HANG_MS, () => { resolve('left hanging'); req.destroy() })
        req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' ? 'refused'
          : err.code === 'ECONNRESET' ? 'reset' : 'closed'))
        req.end()
      })
      outcomes[how] = (outcomes[how] ?? 0) + 1
    }
  })
  try {
    await during()
  } finally {
    running = false
    await Promise.all(clients)
  }
  return outcomes
}

/** The requests of the load's two routes that `text` counts as answered 200. */
function loadCounted (text: string): number {
  let n = 0
  for (const m of text.matchAll(/^aloft_http_requests_total\{route="([^"]+)",method="[A-Z]+",status="200"\} (\S+)$/gm)) {
    if (m[1] === 'get_atmospheric_profile' || m[1] === 'tawhiri_predict_sondehub') n += Number(m[2])
  }
  return n
}

/**
 * Runs `during` while A's /metrics is scraped without pause: series that went down between two
 * scrapes, and A's count of the load's 200s over the phase against the 200s nginx received from A.
 */
export async function withScrapes (a: AloftInstance, nginx: Nginx, during: () => Promise<void>):
Promise<ScrapeReport> {
  const from = (await nginx.accessLog()).length
  // a scrape that fails (the process it reached killed under it, or a 503) is no data, as for Prometheus
  const scrape = async (): Promise<string | null> => {
    const res = await getOnce(`${a.url}/metrics`).catch(() => null)
    return res?.status === 200 ? res.body : null
  }
  const first = await scrape()
  if (first === null) throw new Error('A\'s /metrics did not answer before the faults')
  const texts = [first]
  let failed = 0
  let running = true
  const scraping = (async () => {
    while (running) {
      const text = await scrape()
      if (text === null) failed++
      else texts.push(text)
      await sleep(250)
    }
  })()
  try {
    await during()
  } finally {
    running = false
    await scraping
  }
  // every request of the phase answered: the last scrape counts them all (a process reports each second)
  await sleep(1500)
  const last = await scrape()
  if (last === null) throw new Error('A\'s /metrics did not answer after the faults')
  texts.push(last)
  const drops = texts.slice(1).flatMap((text, k) => dropsBetween(texts[k], text))
  const mine = answeredBy(a.port)
  const received = (await nginx.accessLog()).slice(from).filter((l) => mine.test(l) &&
    /"(POST \/v1\/atmosphere\/profile|GET \/k\/)/.test(l)).length
  return { scrapes: texts.length, failedScrapes: failed, drops,
    counted: loadCounted(last) - loadCounted(first), received }
}
