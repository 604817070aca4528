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

import { isIP } from "node:net";

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
 * A predicate over the request's `Host` header, or `undefined` when every Host is accepted
 * (`allowedHosts` holds `*`). The check stays on for a server bound to the network too: a page on
 * `evil.example` can rebind its name to the server's LAN address as easily as to 127.0.0.1.
 *
 * Every server accepts `localhost`, `127.0.0.1`, `[::1]` and its own address, on its own port,
 * plus `allowedHosts`. A server bound to a non-loopback interface also accepts any IP address on
 * its port: a rebinding page's origin is a name, never an address, so an address in `Host` means
 * the client dialled the address itself. A request without a Host header is refused (browsers
 * always send one).
 */
export function createHostCheck(
  options: HostCheckOptions,
): ((host: string | undefined) => boolean) | undefined {
  const extra = options.allowedHosts ?? [];
  if (extra.includes("*")) return undefined;
  const acceptAddresses = !isLoopbackHost(options.listenHost);
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
    // No port in the header means the scheme's default.
    const port = parsed.port ?? 80;
    if (acceptAddresses && isIP(parsed.name) !== 0 && port === options.port) return true;
    const ports = allowed.get(parsed.name);
    if (!ports) return false;
    return ports.has(undefined) || ports.has(port);
  };
}
