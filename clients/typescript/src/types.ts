// The service's records under their schema names, as generated from its OpenAPI document.
import type { components } from './openapi.js'

type Schemas = components['schemas']
export type AtmosphereRequest = Schemas['AtmosphereRequest']
export type AtmosphereResponse = Schemas['AtmosphereResponse']
export type SamplesRequest = Schemas['SamplesRequest']
export type SamplesResponse = Schemas['SamplesResponse']
export type SampleUnit = Schemas['SampleUnit']
export type TrajectoryRequest = Schemas['TrajectoryRequest']
export type TrajectoryResponse = Schemas['TrajectoryResponse']
export type Capabilities = Schemas['Capabilities']
export type BetaUsage = Schemas['BetaUsage']
export type AccountInfo = Schemas['AccountInfo']
export type NewKey = Schemas['NewKey']
export type CreatedKey = Schemas['CreatedKey']
export type KeyInfo = Schemas['KeyInfo']
export type KeyList = Schemas['KeyList']
export type NewAccount = Schemas['NewAccount']
export type CreatedAccount = Schemas['CreatedAccount']
export type Health = Schemas['Health']
/** GET /v1/keys's query: keys per page and the previous page's `next_cursor`. */
export interface KeyListQuery { limit?: number, cursor?: string }
