// Public API of the configuration: what other rooms may use of it.
export type { Config, PublicMode, SourceSetting } from './config.js'
export type { TrustedProxy } from './proxies.js'
export { loadConfig } from './load.js'
export { ConfigError } from './reader.js'
export { CLIENT_VARIABLES, UPSTREAM_PER_MINUTE_DEFAULT, VARIABLES } from './variables.js'
export { tileOrigins, type MapTiles } from './tile-template.js'
