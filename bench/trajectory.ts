// bench/trajectory: balloon flights (docs/DESIGN.md §7) over HTTP on cached data, a 1 000-member
// ensemble, and the reference script on the same flight, in one run.
//   npx tsc -p tsconfig.json && node dist/bench/trajectory.js [--flights 20] [--seconds 5]
// The flight: Warsaw, 2020-08-04 12:00Z, 5 m/s to 30 000 m, 5 m/s descent (about 2.4 h, 148 states,
// ~590 wind evaluations). Rows: one flight at a time (median of `flights`), flights/s with 8 clients
// for `seconds`, a 1 000-member ensemble (median of 3), and scripts/trajectory-reference.py on the
// same flight: as a command (a process per flight, as it is run) and in one warm Python process
// (bench/python/trajectory_reference.py). Writes bench/results/trajectory.json.
import { spawnSync } from 'node:child_process'
import {
  ROOT, SAMPLE, machine, ms, numberArg, serverCpuUs, startServer, table, writeResult, type ServerChild
} from './lib/index.js'
import { summarize } from './lib/stats.js'

const FLIGHTS = numberArg('flights', 20)
const SECONDS = numberArg('seconds', 5)
const FLIGHT = {
  launch_latitude: 52.2297, launch_longitude: 21.0122, launch_datetime: '2020-08-04T12:00:00Z',
  ascent_rate: 5, burst_altitude: 30000, descent_rate: 5
}
const ENSEMBLE = { ...FLIGHT, ensemble: { members: 1000, ascent_rate_sd: 0.5, burst_altitude_sd: 2000,
  descent_rate_sd: 0.5, seed: 1 } }

async function flight (server: ServerChild, body: unknown): Promise<number> {
  const t0 = performance.now()
  const res = await fetch(`${server.info.aloftUrl}/v1/atmosphere/trajectory`, {
    method: 'POST', headers: { 'x-api-key': server.info.key, 'content-type': 'application/json' },
    body: JSON.stringify(body)
  })
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`trajectory answered ${res.status}`)
  return performance.now() - t0
}

async function flightsPerSecond (server: ServerChild, clients: number, seconds: number): Promise<number> {
  const until = performance.now() + seconds * 1000
  let done = 0
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < until) {
      await flight(server, FLIGHT)
      done++
    }
  }))
  return done / seconds
}

function reference (flights: number): { commandMs: number, firstMs: number, warmMs: number } | null {
  const input = JSON.stringify(FLIGHT)
  const t0 = performance.now()
  const command = spawnSync('/usr/bin/python3', [`${ROOT}scripts/trajectory-reference.py`, '--data', SAMPLE], { input })
  const commandMs = performance.now() - t0
  const warm = spawnSync('/usr/bin/python3', [`${ROOT}bench/python/trajectory_reference.py`, '--data', SAMPLE,
    '--flights', String(flights)], { input })
  if (command.status !== 0 || warm.status !== 0) {
    process.stderr.write(`the reference failed (needs python3-eccodes and numpy): ${command.stderr.toString()}` +
      `${warm.stderr.toString()}\n`)
    return null
  }
  const w = JSON.parse(warm.stdout.toString()) as { first_flight_s: number, warm_flight_s: number }
  return { commandMs, firstMs: w.first_flight_s * 1000, warmMs: w.warm_flight_s * 1000 }
}

const server = await startServer({ ALOFT_SOURCE: `mirror:${SAMPLE}`, ALOFT_WORKERS: '2' })
try {
  await flight(server, FLIGHT) // fetches and decodes the units, warms the code
  await flight(server, ENSEMBLE)
  const single: number[] = []
  let cpu0 = await serverCpuUs(server)
  for (let k = 0; k < FLIGHTS; k++) single.push(await flight(server, FLIGHT))
  const cpuPerFlightMs = (await serverCpuUs(server) - cpu0) / FLIGHTS / 1000
  const perFlight = summarize(single).p50
  const concurrent = await flightsPerSecond(server, 8, SECONDS)
  const ensemble: number[] = []
  cpu0 = await serverCpuUs(server)
  for (let k = 0; k < 3; k++) ensemble.push(await flight(server, ENSEMBLE))
  const cpuPerEnsembleMs = (await serverCpuUs(server) - cpu0) / 3 / 1000
  const ensembleMs = summarize(ensemble).p50
  const ref = reference(FLIGHTS)
  const rows = [
    ['one flight, one client (HTTP, median)', `${ms(perFlight)} ms`, ''],
    ['  the server CPU per flight (mean)', `${ms(cpuPerFlightMs)} ms`, 'steadier than wall time on a busy machine'],
    ['flights/s, 8 clients', concurrent.toFixed(1), ''],
    ['1 000-member ensemble (median of 3)', `${ms(ensembleMs, 0)} ms`, 'goal < 1000 ms'],
    ['  the server CPU per ensemble (mean)', `${ms(cpuPerEnsembleMs, 0)} ms`, ''],
    ...(ref === null ? [] : [
      ['reference script, as a command (per flight)', `${ms(ref.commandMs, 0)} ms`,
        `aloft ${(ref.commandMs / perFlight).toFixed(0)}× faster (goal ≥ 100×)`],
      ['reference, first flight in process (reads GRIB)', `${ms(ref.firstMs, 0)} ms`,
        `aloft ${(ref.firstMs / perFlight).toFixed(0)}×`],
      ['reference, warm flight in process (median)', `${ms(ref.warmMs)} ms`,
        `aloft ${(ref.warmMs / perFlight).toFixed(1)}×`]
    ])
  ]
  console.log(table(['trajectory (Warsaw 12Z, 5 m/s, 30 km, cached data)', 'value', 'ratio'], rows))
  const path = writeResult('trajectory', {
    machine: machine(), flight: FLIGHT, per_flight_ms: perFlight, server_cpu_per_flight_ms: cpuPerFlightMs,
    flights_per_second_8_clients: concurrent, ensemble_1000_ms: ensembleMs,
    server_cpu_per_ensemble_ms: cpuPerEnsembleMs, reference: ref
  })
  console.log(`\nwrote ${path}`)
} finally {
  await server.stop()
}
