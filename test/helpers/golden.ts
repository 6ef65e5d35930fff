// How answers are held against the independent references' golden files (scripts/*-reference.py):
// one tolerance rule per kind of answer, shared by the tests of each route with and without the
// surface layer.
import type { Test } from 'tap'

/** Profiles (docs/DESIGN.md §4): within 1e-5 relative, or near zero 1e-10 kg/kg for q and 1e-4 for the rest. */
export function closeTo (t: Test, actual: number, expected: number, field: string, where: string): void {
  const near = field === 'specific_humidity_kg_kg' ? 1e-10 : 1e-4
  const ok = Math.abs(actual - expected) <= Math.max(near, 1e-5 * Math.abs(expected))
  t.ok(ok, `${where} ${field}`, ok ? {} : { actual, expected })
}

/** Samples: whether two numbers differ by more than 1e-9 relative (near zero, the difference itself must be tiny). */
export function differs (key: string, x: number, y: number): boolean {
  if (x === y) return false
  const d = Math.abs(x - y)
  const size = Math.max(Math.abs(x), Math.abs(y))
  const [nearZero, floor] = key === 'specific_humidity_kg_kg' ? [1e-9, 1e-18] : [1e-6, 1e-15]
  return size < nearZero ? d > floor : d / size > 1e-9
}

/** Every column of a samples answer as the reference's: numbers by `differs`, the rest identical. */
export function sameColumns (t: Test, got: Record<string, unknown[]>, expected: Record<string, unknown[]>): void {
  for (const [name, column] of Object.entries(expected)) {
    const wrong: string[] = []
    column.forEach((e, p) => {
      const g = got[name][p]
      const bad = typeof e === 'number' && typeof g === 'number' ? differs(name, g, e) : g !== e
      if (bad && wrong.length < 5) wrong.push(`[${p}] ${String(g)} ≠ ${String(e)}`)
    })
    t.same(wrong, [], `${name}: every point as the reference`)
  }
}

export interface RefPoint { datetime: string, latitude: number, longitude: number, altitude: number }
export interface FlightCase {
  name: string
  request: Record<string, unknown>
  expected: {
    prediction: Array<{ stage: string, trajectory: RefPoint[] }>
    warnings: Record<string, { count: number }>
    launch_altitude: number
  }
}
interface FlightAnswer {
  request: { launch_altitude: number }
  prediction: Array<{ stage: string, trajectory: RefPoint[] }>
  warnings: Record<string, { count: number }>
}

/**
 * A flight as the reference flew it: the same stages, points and instants, every point within
 * 1e-5° and 0.5 m, the same warnings, the launch altitude within 1e-6 m.
 */
export function sameFlight (t: Test, body: FlightAnswer, expected: FlightCase['expected']): void {
  t.same(body.prediction.map((s) => [s.stage, s.trajectory.length]),
    expected.prediction.map((s) => [s.stage, s.trajectory.length]), 'the same stages and points')
  const wrong: string[] = []
  body.prediction.forEach((s, k) => s.trajectory.forEach((p, i) => {
    const e = expected.prediction[k]?.trajectory[i]
    if (e === undefined) return
    const dLon = Math.abs(((p.longitude - e.longitude + 540) % 360) - 180)
    if (p.datetime !== e.datetime || Math.abs(p.latitude - e.latitude) > 1e-5 || dLon > 1e-5 ||
      Math.abs(p.altitude - e.altitude) > 0.5) {
      wrong.push(`${s.stage}[${i}] ${JSON.stringify(p)} ≠ ${JSON.stringify(e)}`)
    }
  }))
  t.same(wrong.slice(0, 5), [], 'every point within 1e-5° and 0.5 m, at the same instant')
  t.same(Object.fromEntries(Object.entries(body.warnings).map(([k, w]) => [k, w.count])),
    Object.fromEntries(Object.entries(expected.warnings).map(([k, w]) => [k, w.count])), 'warnings counted')
  t.ok(Math.abs(body.request.launch_altitude - expected.launch_altitude) < 1e-6, 'launch altitude')
}
