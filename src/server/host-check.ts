/**
 * The `Host` check of `serve`, against DNS rebinding.
 *
 * A web page on `evil.example` can make its own name resolve to 127.0.0.1 after the page loaded
 * (DNS rebinding). The browser then sends the page's requests to the loopback server, with
 * `Host: evil.example:8100`, and treats the answers as same-origin: the page can read and write
 * the store, and the 415 on non-JSON bodies does not stop it (same-origin requests may send JSON).
 * What the attacker cannot change is the `Host` header, so a loopback server answers only requests
 * addressed to a loopback name.
 */

/** Options of {@link createHostCheck}. */
export interface HostCheckOptions {
  /** The interface the server is bound to (`127.0.0.1`, `::1`, `0.0.0.0`, a LAN address). */
  listenHost: string;
  /** The bound port. */
  port: number;
  /**
   * More names to accept: `name` (any port) or `name:port`; `*` accepts every Host.
   * @default []
   */
  allowedHosts?: readonly string[];
}

/** Whether an interface is loopback-only: only this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, "");
  return name === "localhost" || name === "::1" || /^127(?:\.\d{1,3}){3}$/.test(name);
}

/** `name` lower-cased without a trailing dot or IPv6 brackets, and the port (`undefined` = none). */
export function parseHostHeader(value: string): { name: string; port: number | undefined } | null {
  const trimmed = value.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(trimmed);
  if (!match?.[1]) return null;
  const name = match[1].replace(/^\[|\]$/g, "").replace(/\.$/, "");
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (name === "" || (port !== undefined && port > 65_535)) return null;
  return { name, port };
}

function normalisedName(name: string): string {
  return name
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
}

/**
 * A predicate over the request's `Host` header, or `undefined` when every Host is accepted: a
 * server bound to a non-loopback interface was opened to the network deliberately (`--host`), and
 * is reached by whatever name the network gives it, unless `allowedHosts` narrows it.
 *
 * A loopback server accepts `localhost`, `127.0.0.1`, `[::1]` and its own address, on its own
 * port, plus `allowedHosts`. A request without a Host header is refused (browsers always send one).
 */
export function createHostCheck(
  options: HostCheckOptions,
): ((host: string | undefined) => boolean) | undefined {
  const extra = options.allowedHosts ?? [];
  if (extra.includes("*")) return undefined;
  if (!isLoopbackHost(options.listenHost) && extra.length === 0) return undefined;
  // name -> the ports allowed for it; `undefined` in the set = any port.
  const allowed = new Map<string, Set<number | undefined>>();
  const allow = (name: string, port: number | undefined) => {
    const key = normalisedName(name);
    const ports = allowed.get(key) ?? new Set<number | undefined>();
    ports.add(port);
    allowed.set(key, ports);
  };
  for (const name of ["localhost", "127.0.0.1", "::1", options.listenHost]) {
    allow(name, options.port);
  }
  for (const entry of extra) {
    const parsed = parseHostHeader(entry);
    if (parsed) allow(parsed.name, parsed.port);
  }
  return (host) => {
    if (host === undefined) return false;
    const parsed = parseHostHeader(host);
    if (!parsed) return false;
    const ports = allowed.get(parsed.name);
    if (!ports) return false;
    // No port in the header means the scheme's default.
    return ports.has(undefined) || ports.has(parsed.port ?? 80);
  };
}
