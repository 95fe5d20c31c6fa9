import { BlockList, isIP } from "node:net";
import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { processSlot } from "@/lib/cairn/process-slot";
import { cairnConfig } from "@/lib/config/process-config";

/**
 * The header that carries the TCP peer's address from Node's HTTP server to route handlers,
 * server actions and Auth.js `authorize`. Next 16 gives them a Web `Request` without the socket
 * (`NextRequest.ip` is gone), and `next start` only fills `X-Forwarded-For` with the socket
 * address when the client sent none — so a client could name any address. This header is
 * written for every request by `installSocketAddressStamp`, overwriting whatever the client
 * sent under the same name, before Next sees the request.
 */
export const SOCKET_ADDRESS_HEADER = "x-cairn-socket-address";

/**
 * Stamps each incoming request with its socket's remote address (`SOCKET_ADDRESS_HEADER`). Uses
 * Node's `http.server.request.start` diagnostics channel, which fires for every request of every
 * `http.Server` in the process before its `request` event — so it works under `next start`
 * without a custom server. Call once per process (instrumentation.ts does); later calls do nothing.
 */
export function installSocketAddressStamp(): void {
  const slot = processSlot();
  if (slot.socketAddressStamp) return;
  slot.socketAddressStamp = true;
  subscribe("http.server.request.start", (message) => {
    const { request, socket } = message as { request: IncomingMessage; socket?: Socket };
    const address = (socket ?? request.socket)?.remoteAddress;
    if (address) request.headers[SOCKET_ADDRESS_HEADER] = address;
    else delete request.headers[SOCKET_ADDRESS_HEADER];
  });
}

/** Which proxies' `X-Forwarded-For` to believe: addresses and CIDR ranges, IPv4 and IPv6. */
export interface TrustedProxies {
  has(address: string): boolean;
  /** The list as configured (normalised), for messages and docs. */
  readonly entries: readonly string[];
}

/** `::ffff:10.0.0.1` → `10.0.0.1`; strips a port (`1.2.3.4:5678`, `[::1]:80`) and brackets. */
export function normalizeAddress(raw: string): string {
  let value = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1]!;
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(value))
    value = value.slice(0, value.lastIndexOf(":"));
  const mapped = /^::ffff:(\d{1,3}(\.\d{1,3}){3})$/i.exec(value);
  if (mapped) value = mapped[1]!;
  return value.toLowerCase();
}

/**
 * Parses `CAIRN_TRUSTED_PROXIES`: a comma- or space-separated list of addresses (`10.0.0.5`,
 * `::1`) and CIDR ranges (`10.0.0.0/8`, `fd00::/8`). Throws on an entry that is neither, so a
 * typo stops the app instead of silently trusting nobody (or everybody).
 */
export function parseTrustedProxies(value: string | undefined): TrustedProxies {
  const list = new BlockList();
  const entries: string[] = [];
  for (const raw of (value ?? "").split(/[\s,]+/).filter(Boolean)) {
    const [addressPart, prefixPart, ...rest] = raw.split("/");
    const address = normalizeAddress(addressPart ?? "");
    const family = isIP(address);
    const prefix = prefixPart === undefined ? undefined : Number(prefixPart);
    const maxPrefix = family === 6 ? 128 : 32;
    if (
      family === 0 ||
      rest.length > 0 ||
      (prefix !== undefined && (!Number.isInteger(prefix) || prefix < 0 || prefix > maxPrefix))
    ) {
      throw new Error(
        `CAIRN_TRUSTED_PROXIES: "${raw}" is not an IP address or a CIDR range (e.g. 10.0.0.0/8)`,
      );
    }
    const type = family === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, prefix, type);
    entries.push(prefix === undefined ? address : `${address}/${prefix}`);
  }
  return {
    entries,
    has(candidate) {
      const address = normalizeAddress(candidate);
      const family = isIP(address);
      if (family === 0) return false;
      return list.check(address, family === 6 ? "ipv6" : "ipv4");
    },
  };
}

/** The longest address kept as a limiter key; longer values are cut (a hop can be garbage). */
const MAX_ADDRESS_LENGTH = 64;

/**
 * The client's address for per-address limits, or `null` when it cannot be known.
 *
 * The socket address (`SOCKET_ADDRESS_HEADER`) is the client, unless it is a trusted proxy: then
 * `X-Forwarded-For` is read from the right, skipping trusted hops, and the first untrusted hop
 * is the client (entries left of it were written by the client and prove nothing). When every
 * hop is trusted, the left-most one is taken. Without the stamp (the app is not served by Node's
 * HTTP server in this process) the result is `null`: no header a client can write is believed.
 */
export function clientAddressOf(
  headers: Headers,
  trusted: TrustedProxies = cairnConfig().trustedProxies,
): string | null {
  const socket = headers.get(SOCKET_ADDRESS_HEADER);
  if (!socket) return null;
  const peer = normalizeAddress(socket);
  if (!trusted.has(peer)) return peer.slice(0, MAX_ADDRESS_LENGTH);
  const hops = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map(normalizeAddress)
    .filter(Boolean);
  for (let index = hops.length - 1; index >= 0; index--) {
    if (!trusted.has(hops[index]!)) return hops[index]!.slice(0, MAX_ADDRESS_LENGTH);
  }
  return (hops[0] ?? peer).slice(0, MAX_ADDRESS_LENGTH);
}
