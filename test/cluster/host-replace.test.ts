// A host of two processes (ALOFT_PROCESSES=2, docs/DESIGN.md §11) whose processes die and stall,
// one host for all these tests (each starts from what the one before left, reading differences):
// a process killed is replaced while the port keeps answering; it leaves no connection open and
// unanswered; the host's /metrics sums every process, keeps what a dead one counted, counts a stalled
// one as last heard, counts no request twice and never shows a counter lower than before.
import t from 'tap'
import { processesOf, waitFor } from '../../bench/lib/processes.js'
import { dropsBetween } from '../../bench/lib/metrics-text.js'
import { get, RawConnection } from '../helpers/raw-http.js'
import {
  connectionsHeld, healthzCount, healthzOnEvery, newKey, profile, readyProcesses, scrape, startHost, sum, WARSAW
} from '../helpers/host.js'

const host = startHost(t)
const url = await host.listening
const port = Number(new URL(url).port)
const key = await newKey(url)
const processes = async (): Promise<number[]> => await processesOf(host.child.pid!)

/** Until a process replaced `victim` and both serve. */
async function replaced (victim: number): Promise<void> {
  await waitFor('a replacement serves', async () => {
    const now = await processes()
    return now.length === 2 && !now.includes(victim) && (await readyProcesses(url)).serving === 2
  })
}

const restarts = (text: string): number =>
  Number(/^aloft_process_restarts_total\{reason="SIGKILL"\} (\d+)$/m.exec(text)?.[1] ?? 0)

t.test('a process killed with SIGKILL is replaced; the port keeps answering', async (t) => {
  t.same(await readyProcesses(url), { serving: 2, configured: 2 })
  const before = await processes()
  t.equal(before.length, 2, 'two processes')
  const restartsBefore = restarts(await scrape(url))
  // four clients in a loop: at most their four requests in flight can be lost with the process
  let running = true
  let ok = 0
  const failed: string[] = []
  const clients = Array.from({ length: 4 }, async () => {
    while (running) {
      const res = await profile(key, url, WARSAW).catch((err: Error) => err)
      if (res instanceof Response && res.status === 200) ok++
      else failed.push(res instanceof Response ? String(res.status) : String(res.cause ?? res))
      if (res instanceof Response) await res.arrayBuffer()
    }
  })
  let served: number
  try {
    await waitFor('answers before the kill', async () => ok >= 20)
    process.kill(before[0], 'SIGKILL')
    await replaced(before[0])
    served = ok
    await waitFor('answers after the replacement', async () => ok >= served + 20)
  } catch (err) {
    t.comment(host.output().stdout.slice(-3000), host.output().stderr.slice(-2000))
    throw err
  } finally {
    running = false
    await Promise.all(clients)
  }
  t.ok(failed.length <= 4, `no request lost but those in flight on it (${failed.length}: ${failed.join(', ')})`)
  t.equal(restarts(await scrape(url)) - restartsBefore, 1, 'the restart is counted')
})

t.test('a process killed with SIGKILL leaves no connection unanswered: each is answered, refused or reset at once',
  async (t) => {
    const [victim] = await processes()
    // 8 clients, a new connection for every request, as the kill comes
    const outcomes: string[] = []
    let running = true
    const clients = Array.from({ length: 8 }, async () => {
      while (running) {
        const c = new RawConnection(port)
        let hung = false
        // the measure of a connection left hanging; an answer here takes milliseconds
        const timer = setTimeout(() => { hung = true; c.destroy() }, 5000)
        const answer = await c.request(get('/healthz', { connection: 'close' })).catch(() => null)
        outcomes.push(hung ? 'unanswered for 5 s' : answer === null ? c.state : String(answer.status))
        clearTimeout(timer)
        c.destroy()
      }
    })
    await waitFor('answers before the kill', async () => outcomes.length >= 200)
    process.kill(victim, 'SIGKILL')
    const killedAt = outcomes.length
    await waitFor('answers after the kill', async () => outcomes.length >= killedAt + 200)
    running = false
    await Promise.all(clients)
    await replaced(victim)
    const failed = outcomes.filter((o) => o !== '200')
    t.same(failed.filter((o) => !['reset', 'closed', 'refused'].includes(o)), [],
      `every request answered, reset or refused (${outcomes.length} asked; ${failed.join(', ') || 'none failed'})`)
    t.same(await connectionsHeld(host.child.pid!, port), [], 'the primary holds no connection of the port')
  })

t.test('what a process counted stays in the host\'s counters when it is replaced, counted once', async (t) => {
  const pids = await processes()
  const first = await scrape(url)
  const answered = await healthzOnEvery(port, pids, 40)
  const total = sum(answered)
  const before = await scrape(url)
  t.equal(healthzCount(before) - healthzCount(first), total,
    `${total} answered (${[...answered.values()].join(' + ')}), ${total} counted`)
  const [victim] = pids
  process.kill(victim, 'SIGKILL')
  await replaced(victim)
  const after = await scrape(url)
  t.equal(healthzCount(after) - healthzCount(first), total, 'the dead process\'s share is kept, and counted once')
  t.same(dropsBetween(before, after), [], 'no counter or histogram series went back (Prometheus would read a reset)')
})

t.test('a process that stalls: the host counts its share as last heard, every request once, never lower', async (t) => {
  const pids = await processes()
  const base = healthzCount(await scrape(url))
  const first = await healthzOnEvery(port, pids, 30)
  const scrapes = [await scrape(url)]
  const [victim] = pids
  process.kill(victim, 'SIGSTOP')
  let stopped = true
  t.teardown(() => { if (stopped) process.kill(victim, 'SIGCONT') })
  const stalledAt = Date.now()
  // while it stalls the other answers (the stalled one accepts nothing), and scrapes wait for it in vain
  const more = await healthzOnEvery(port, pids.filter((p) => p !== victim), 10, 10)
  scrapes.push(await scrape(url))
  // stalled for 5 s, as the issue asks: the scrapes meanwhile each wait the primary's 2 s for it
  while (Date.now() - stalledAt < 5000) scrapes.push(await scrape(url))
  process.kill(victim, 'SIGCONT')
  stopped = false
  scrapes.push(await scrape(url))
  for (const [k, text] of scrapes.entries()) {
    const expected = base + (k === 0 ? sum(first) : sum(first) + sum(more))
    t.equal(healthzCount(text), expected, `scrape ${k + 1}: every answer counted once`)
    if (k > 0) t.same(dropsBetween(scrapes[k - 1], text), [], `scrape ${k + 1}: no series lower than before`)
  }
})

t.test('/metrics answers for the host: every process\'s requests, summed', async (t) => {
  const base = healthzCount(await scrape(url))
  // a connection each: the kernel hands them to either process
  for (let k = 0; k < 20; k++) {
    const c = new RawConnection(port)
    t.equal((await c.request(get('/healthz', { connection: 'close' }))).status, 200)
    c.destroy()
  }
  for (let n = 0; n < 2; n++) {
    const text = await scrape(url)
    t.equal(healthzCount(text) - base, 20, `scrape ${n + 1}: 20, whichever process it reached`)
    t.match(text, /^aloft_processes\{state="serving"\} 2$/m)
  }
})

