// Public API of the configuration: what other rooms may use of it.
export type { Config, SourceSetting } from './config.js'
export { loadConfig } from './load.js'
export { ConfigError } from './reader.js'
export { CLIENT_VARIABLES, UPSTREAM_PER_MINUTE_DEFAULT, VARIABLES } from './variables.js'
export { tileOrigins, type MapTiles } from './tile-template.js'
