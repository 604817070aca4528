/*
 * The socket limits of `startServer`, in a module of their own (no imports) so that the CLI can
 * show them in `serve --help` without loading the server.
 */

/** Default of `StartServerOptions.headersTimeoutMs`: the headers must arrive within it. */
export const defaultHeadersTimeoutMs = 10_000;
/** Default of `StartServerOptions.requestTimeoutMs`: the whole request must arrive within it. */
export const defaultRequestTimeoutMs = 30_000;
/** Default of `StartServerOptions.bodyIdleTimeoutMs`: the longest silence inside a body. */
export const defaultBodyIdleTimeoutMs = 5_000;
/** Default of `StartServerOptions.maxConnections`. */
export const defaultMaxConnections = 512;
