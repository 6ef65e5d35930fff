// GET /healthz and /readyz: the process's and its dependencies' state.
import { Type, type Static } from '@sinclair/typebox'
import { StringEnum } from './schema-parts.js'

export const Health = Type.Object({
  status: StringEnum(['ok', 'unavailable'] as const),
  checks: Type.Optional(Type.Record(Type.String(), StringEnum(['ok', 'unavailable'] as const), {
    description: 'readiness: account_store, source (can be listed), cache_dir (can be written), worker_pool (runs ' +
      'tasks)'
  })),
  reasons: Type.Optional(Type.Record(Type.String(), Type.String(), {
    description: 'why each check that is not ok is not (no hosts or secrets)'
  })),
  processes: Type.Optional(Type.Object({
    serving: Type.Integer({ minimum: 0, description: 'processes listening now' }),
    configured: Type.Integer({ minimum: 1, description: 'ALOFT_PROCESSES' })
  }, {
    additionalProperties: false,
    description: 'readiness of a host served by several processes (ALOFT_PROCESSES > 1): how many serve of how ' +
      'many configured; fewer while the primary replaces one that died (the host still serves)'
  })),
  warnings: Type.Optional(Type.Array(Type.String(), { description: 'what an operator should act on' }))
}, { additionalProperties: false, $id: 'Health' })
export type Health = Static<typeof Health>

/** A host's processes, as its readiness reports them. */
export type HostProcesses = NonNullable<Health['processes']>
