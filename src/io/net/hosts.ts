/**
 * Which Host headers a local HTTP server answers. A page on another site can reach a server on loopback through
 * DNS rebinding (its own name resolving to 127.0.0.1), but its requests then carry its own name in Host; a server
 * that answers only the names it is really reached by cannot be read that way.
 */
import { hostname, networkInterfaces } from 'node:os';

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Hosts that listen on every interface of the machine. */
export function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '0' || host === '::' || host === '[::]';
}

const bracketed = (name: string) => (name.includes(':') && !name.startsWith('[') ? `[${name}]` : name);

/**
 * The Host headers a browser sends for this server: each name it answers for, with the port, and without it when
 * the port is 80 (browsers leave the default port out). Loopback answers for every loopback name; a wildcard host
 * for every name and address of the machine; `extra` adds names the user vouches for (a proxy's, a DNS name).
 */
export function allowedHostHeaders(host: string, port: number, extra: readonly string[] = []): Set<string> {
  const names = new Set<string>([host, ...extra]);
  if (isLoopback(host) || isWildcard(host)) for (const n of ['127.0.0.1', 'localhost', '::1']) names.add(n);
  if (isWildcard(host)) {
    const machine = hostname();
    names.add(machine);
    names.add(machine.split('.')[0]!);
    for (const n of ['0.0.0.0', '0', '::']) names.add(n);
    for (const addresses of Object.values(networkInterfaces()))
      for (const a of addresses ?? []) names.add(a.address.replace(/%.*$/, ''));
  }
  const allowed = new Set<string>();
  for (const name of names) {
    const shown = bracketed(name).toLowerCase();
    allowed.add(`${shown}:${port}`);
    if (port === 80) allowed.add(shown);
  }
  return allowed;
}
