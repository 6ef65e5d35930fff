// The source room's Prometheus series: upstream attempts (charged, aborted, failed), the fetch
// queue, the raw cache. Registered once per registry: several sources in one process share them.
import { Counter, Gauge, type Registry } from 'prom-client'

export interface SourceMetrics {
  attempts: Counter<'origin'>
  /** Charged attempts whose request left and got no answer (timeout, connection lost). */
  aborted: Counter<'kind'>
  failures: Counter<'kind'>
  queueDepth: Gauge<string>
  rawCache: Counter<'result'>
}

function metric<T> (registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make()
}

export function sourceMetrics (registry: Registry): SourceMetrics {
  const registers = [registry]
  return {
    attempts: metric(registry, 'aloft_upstream_attempts_total', () => new Counter({
      name: 'aloft_upstream_attempts_total',
      help: 'Upstream fetch attempts (each charged to an account), by origin',
      labelNames: ['origin'] as const,
      registers
    })),
    aborted: metric(registry, 'aloft_upstream_attempts_aborted_total', () => new Counter({
      name: 'aloft_upstream_attempts_aborted_total',
      help: 'Charged upstream attempts whose request left but got no answer, by kind (timeout, network): the ' +
        'upstream may or may not have served them, so a reconciliation against upstream logs counts them apart',
      labelNames: ['kind'] as const,
      registers
    })),
    failures: metric(registry, 'aloft_upstream_failures_total', () => new Counter({
      name: 'aloft_upstream_failures_total',
      help: 'Failed upstream attempts, by kind (missing, throttled, server, timeout, network, unusable, queue_full)',
      labelNames: ['kind'] as const,
      registers
    })),
    queueDepth: metric(registry, 'aloft_upstream_fetch_queue_depth', () => new Gauge({
      name: 'aloft_upstream_fetch_queue_depth',
      help: 'Units waiting for an upstream fetch slot',
      registers
    })),
    rawCache: metric(registry, 'aloft_source_raw_cache_total', () => new Counter({
      name: 'aloft_source_raw_cache_total',
      help: 'Raw unit lookups on the disk cache, by result (hit, miss)',
      labelNames: ['result'] as const,
      registers
    }))
  }
}
