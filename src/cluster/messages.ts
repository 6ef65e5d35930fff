// What the primary and its processes say to each other over the cluster's IPC channel. Every
// message carries `aloft`, so messages of anything else on the channel (prom-client's, Node's own)
// are told apart and ignored.
import type { MetricObjectWithValues, MetricValue } from 'prom-client'
import type { HostProcesses } from '../contract/index.js'

export type MetricsJson = Array<MetricObjectWithValues<MetricValue<string>>>

/** The host as a process sees it: how many processes serve of how many configured. */
export type HostState = HostProcesses

export type ToPrimary =
  /** The process listens and answers. */
  | { aloft: 'ready', url: string }
  /** A request for /metrics arrived here: the primary gathers every process's and answers `id`. */
  | { aloft: 'host-metrics', id: number }
  /** This process's own metrics, for the primary's gathering `id`. */
  | { aloft: 'own-metrics', id: number, metrics: MetricsJson }

export type ToProcess =
  | { aloft: 'host', state: HostState }
  /** Send your own metrics for gathering `id`. */
  | { aloft: 'send-metrics', id: number }
  /** The host's metrics, in the exposition format, for your request `id`. */
  | { aloft: 'metrics-text', id: number, text: string }

export function isMessage<T extends { aloft: string }> (value: unknown): value is T {
  return typeof value === 'object' && value !== null && typeof (value as { aloft?: unknown }).aloft === 'string'
}
