// Public API of the http room: what other rooms may use of it.
export { type App, createApp } from './app.js'
export { type CloseMode, type HttpServer, listen } from './server.js'
export { publicModeMetrics } from './tawhiri/index.js'
