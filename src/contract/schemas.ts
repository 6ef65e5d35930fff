// Every record of the interface (docs/INTERFACE.md §2), once, as TypeBox: each declaration is both the JSON
// Schema (Ajv validation, /openapi.json) and the static type handlers use. Each is declared in the file of its
// routes (profile.ts, accounts.ts, problem.ts, capabilities.ts, health.ts, samples.ts, trajectory.ts); here they
// are named together, and can be imported from one place.
import { ALTITUDE_REFERENCES } from './limits.js'
import {
  AccountInfo, BetaUsage, CreatedAccount, CreatedKey, KEY_PAGE, KeyInfo, KeyList, KeyListQuery, NewAccount, NewKey
} from './accounts.js'
import { Capabilities, ModelRun } from './capabilities.js'
import { Health } from './health.js'
import { Problem, ValidationErrorItem } from './problem.js'
import {
  AtmosphereLevel, AtmosphereProvenance, AtmosphereRequest, AtmosphereResponse, QUALITY_OPTIONS, VerticalCoverage
} from './profile.js'
import { SampleUnit, SamplesRequest, SamplesResponse } from './samples.js'
import { EnsembleRequest, TrajectoryRequest, TrajectoryResponse } from './trajectory.js'
import { DatasetCheck, ReverseResponse, Ruaumoko, TawhiriError } from './tawhiri.js'

export {
  ALTITUDE_REFERENCES, QUALITY_OPTIONS, KEY_PAGE,
  AccountInfo, BetaUsage, CreatedAccount, CreatedKey, KeyInfo, KeyList, KeyListQuery, NewAccount, NewKey,
  Capabilities, ModelRun, Health, Problem, ValidationErrorItem,
  AtmosphereLevel, AtmosphereProvenance, AtmosphereRequest, AtmosphereResponse, VerticalCoverage
}

/** Every named schema, for the OpenAPI components and the response validators in tests. */
export const SCHEMAS = {
  AtmosphereRequest, AtmosphereResponse, AtmosphereLevel, AtmosphereProvenance, VerticalCoverage,
  BetaUsage, Problem, ValidationErrorItem, NewKey, NewAccount, CreatedKey, KeyInfo, KeyList,
  AccountInfo, CreatedAccount, Capabilities, ModelRun, Health, SamplesRequest, SamplesResponse, SampleUnit,
  TrajectoryRequest, TrajectoryResponse, EnsembleRequest, TawhiriError, DatasetCheck, Ruaumoko, ReverseResponse
} as const
export type SchemaName = keyof typeof SCHEMAS
