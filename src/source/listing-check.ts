// Readiness of a source: can it be listed now? A listing goes through the upstream limiter that
// fetches share (NOAA allows 120 requests a minute), so the source is listed afresh at most once
// every `everyMs`, and a probe waits for a running listing only briefly: a readiness probe must
// answer promptly even while the upstream hangs.
import { UpstreamFailure } from './errors.js'
import { withinMs } from '../timers.js'

export interface CheckState {
  ok: boolean
  /** Why not, without hosts or paths (the readiness body is public). */
  reason: string | null
}

export class ListingCheck {
  private last: (CheckState & { at: number }) | null = null
  private running: Promise<void> | null = null

  constructor (
    private readonly listDays: () => Promise<string[]>,
    private readonly onChange: (state: CheckState, err: unknown) => void,
    private readonly everyMs = 30_000,
    private readonly now: () => number = Date.now
  ) {}

  /** The latest state, after waiting at most `waitMs` for a listing this call may have started. */
  async state (waitMs: number): Promise<CheckState> {
    if (this.running === null && (this.last === null || this.now() - this.last.at >= this.everyMs)) {
      this.running = this.list().finally(() => { this.running = null })
    }
    if (this.running !== null) await withinMs(this.running, waitMs, () => undefined)
    if (this.last === null) return { ok: false, reason: `no listing of the source within ${waitMs} ms yet` }
    return { ok: this.last.ok, reason: this.last.reason }
  }

  private async list (): Promise<void> {
    let state: CheckState
    let error: unknown = null
    try {
      const days = await this.listDays()
      state = days.length > 0 ? { ok: true, reason: null } : { ok: false, reason: 'the source holds no GFS runs' }
    } catch (err) {
      error = err
      const why = err instanceof UpstreamFailure
        ? err.detail
        : (err as NodeJS.ErrnoException).code ?? 'an unexpected error (see the log)'
      state = { ok: false, reason: `the source cannot be listed: ${why}` }
    }
    const changed = this.last === null || this.last.ok !== state.ok || this.last.reason !== state.reason
    if (changed) this.onChange(state, error)
    this.last = { ...state, at: this.now() }
  }
}
