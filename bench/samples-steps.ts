// bench/samples-steps: the steps of a bulk samples request without HTTP, in process, repeated:
// the minimum and median of each step's wall time and CPU time (every thread: the pool workers'
// too), figures that other work on a shared machine disturbs far less than a request's
// wall time. Steps: read the Arrow body, plan, load, compute (pool), encode the Arrow answer (read
// out of its stream), and for JSON: parse, validate, typed arrays, format.
//   npx tsc -p tsconfig.json && node dist/bench/samples-steps.js [--points 100000] [--rounds 15]
import { rm } from 'node:fs/promises'
import { Writable } from 'node:stream'
import { ms, numberArg, table } from './lib/index.js'
import {
  arrowBody as arrowBodyOf, jsonBody as jsonBodyOf, randomPoints, useSampleEnvironment
} from './lib/sample-points.js'

const POINTS = numberArg('points', 100_000)
const ROUNDS = numberArg('rounds', 15)

const cacheDir = await useSampleEnvironment(POINTS, 'aloft-steps-')
const { loadConfig } = await import('../src/config/index.js')
const { startService } = await import('../src/service.js')
const { loadArrow, pointsFromJson } = await import('../src/samples/index.js')
const { ArrowSamplesWriter, pointsFromArrow } = await loadArrow()
const { validate } = await import('../src/contract/validate.js')
const { SamplesRequest } = await import('../src/contract/samples.js')
const { parseJsonBytes } = await import('../src/http/body/parse.js')
const service = await startService(loadConfig(process.env))
const engine = service.samples!
const account = await service.store.createAccount('steps')

const allMs = (): number => { const u = process.cpuUsage(); return (u.user + u.system) / 1e3 }

const { lat, lon, alt, time } = randomPoints(POINTS, 20200804)
const arrowBody = arrowBodyOf({ lat, lon, alt, time })
const jsonBody = Buffer.from(jsonBodyOf({ lat, lon, alt, time }))

/** The engine's `release` where it has one (the code before the arena has none). */
const release = (loaded: unknown): void => (engine as unknown as { release?: (l: unknown) => void }).release?.(loaded)

type Sample = [number, number] // wall, CPU of every thread
const samples = new Map<string, Sample[]>()
async function step<T> (name: string, f: () => T | Promise<T>): Promise<T> {
  const w = performance.now()
  const a = allMs()
  const r = await f()
  const s: Sample = [performance.now() - w, allMs() - a]
  samples.set(name, [...(samples.get(name) ?? []), s])
  return r
}

/** Reads a Node stream to its end, as the socket would (the bytes counted, not kept). */
async function drain (stream: NodeJS.ReadableStream): Promise<number> {
  let bytes = 0
  const sink = new Writable({ write (chunk: Uint8Array, _encoding, done) { bytes += chunk.byteLength; done() } })
  stream.pipe(sink)
  await new Promise((resolve) => sink.once('finish', resolve))
  return bytes
}

try {
  for (let round = 0; round < ROUNDS + 1; round++) {
    const arrow = await step('arrow: read the table', () => pointsFromArrow(arrowBody, { altitude_reference: 'agl' },
      POINTS))
    if (!arrow.ok) throw new Error('arrow')
    const plan = await step('plan', async () => await engine.plan(arrow.points, arrow.options, account.id))
    const loaded = await step('load', async () => await engine.load(plan, account.id))
    const writer = new ArrowSamplesWriter()
    const drained = drain(writer.stream)
    await step('compute on the pool, encoding each slice', async () => {
      await engine.compute(loaded, arrow.options, (result, start, end) =>
        writer.writeSlice(result, start, end))
      writer.end()
    })
    await step('arrow: the stream read out', async () => await drained)
    release(loaded)

    const raw = await step('json: parse', () => parseJsonBytes(jsonBody))
    const checked = await step('json: validate', () => validate(SamplesRequest, raw))
    if (!checked.ok) throw new Error('json')
    const parsed = await step('json: typed arrays', () => pointsFromJson(checked.value, POINTS))
    if (!parsed.ok) throw new Error('json')
    const jloaded = await step('json: plan + load', async () =>
      await engine.load(await engine.plan(parsed.points, parsed.options, account.id), account.id))
    const result = await step('json: compute', async () => await engine.compute(jloaded, parsed.options))
    // the code before took only the result
    await step('json: format', async () => await (engine.json as (r: unknown, l?: unknown) => Promise<unknown>)
      .call(engine, result, jloaded))
    release(jloaded)
  }
  const rows: string[][] = []
  for (const [name, all] of samples) {
    const s = all.slice(1) // the first round warms up
    const col = (c: number): number[] => s.map((x) => x[c]).sort((a, b) => a - b)
    const min = (c: number): string => ms(col(c)[0], 1)
    const med = (c: number): string => ms(col(c)[col(c).length >> 1], 1)
    rows.push([name, min(0), med(0), min(1), med(1)])
  }
  process.stdout.write(`samples steps, ${POINTS} points, ${ROUNDS} rounds (min, median)\n`)
  process.stdout.write(table(['step', 'wall min', 'wall p50', 'CPU min', 'CPU p50'], rows) +
    '\n')
} finally {
  await service.close()
  await rm(cacheDir, { recursive: true, force: true })
}
