/**
 * `shared-ctx/server`: the Statewave-compatible HTTP server of `shared-ctx serve`, a separate entry
 * point so that the main `shared-ctx` entry never loads hono.
 */

export {
  type RunningServer,
  type StartServerOptions,
  startServer,
} from "./server/listen.js";
