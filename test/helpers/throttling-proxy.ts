import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** What a registry request is about, by its path. */
export type RequestKind = 'ping' | 'manifests' | 'blobs' | 'other';

export interface ProxiedRequest {
  method: string;
  path: string;
  kind: RequestKind;
  /** The status the client got: the registry's, or the proxy's 429 / 503 / 502. */
  status: number;
  throttled: boolean;
}

export interface ThrottleRule {
  status: 429 | 503;
  /** How many matching requests to refuse; unset: every one until `clear()`. */
  times?: number;
  /** Only refuse requests of this kind (others pass); unset: all. */
  only?: RequestKind;
}

export interface ThrottlingProxy {
  /** `127.0.0.1:PORT`: use it as the registry part of image references (plain HTTP). */
  readonly host: string;
  /** Refuse the next requests as the rule says (replaces any rule in force). */
  throttle(rule: ThrottleRule): void;
  /** Forward everything again. */
  clear(): void;
  /** Every request so far, oldest first (a request is listed once its answer has started). */
  requests(): ProxiedRequest[];
  /** How many requests of a kind arrived; `forwarded` counts only those that reached the registry. */
  count(kind?: RequestKind, which?: 'all' | 'forwarded' | 'throttled'): number;
  /** Forgets the requests seen so far (the rule in force stays). */
  resetCounts(): void;
  stop(): Promise<void>;
}

/** Hop-by-hop headers belong to one connection, not to the message (RFC 9110 7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

export function requestKind(path: string): RequestKind {
  const pathname = path.split('?')[0] ?? '';
  if (pathname === '/v2/' || pathname === '/v2') return 'ping';
  if (/^\/v2\/.+\/manifests\//.test(pathname)) return 'manifests';
  if (/^\/v2\/.+\/blobs\//.test(pathname)) return 'blobs';
  return 'other';
}

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())));
}

function endToEndRaw(raw: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? '';
    if (!HOP_BY_HOP.has(name.toLowerCase())) kept.push(name, raw[i + 1] ?? '');
  }
  return kept;
}

/** The answers Docker Hub gives when rate limited, in the registry's error format. */
function refuse(res: ServerResponse, status: 429 | 503): void {
  const body =
    status === 429
      ? { errors: [{ code: 'TOOMANYREQUESTS', message: 'You have reached your pull rate limit (swe-env test proxy).' }] }
      : { errors: [{ code: 'UNAVAILABLE', message: 'service unavailable (swe-env test proxy)' }] };
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Docker-Distribution-Api-Version': 'registry/2.0',
    'Retry-After': '1',
  });
  res.end(text);
}

/** Streams one request to the registry and its answer back, headers as they are (Host included). */
function forward(target: string, req: IncomingMessage, res: ServerResponse, done: (status: number) => void): void {
  const [hostname, port] = target.split(':');
  const upstream = request(
    { hostname, port: Number(port), method: req.method, path: req.url, headers: endToEnd(req.headers) },
    (answer) => {
      const status = answer.statusCode ?? 502;
      res.writeHead(status, answer.statusMessage, endToEndRaw(answer.rawHeaders));
      done(status);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    },
  );
  upstream.on('error', () => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(502, { 'Content-Type': 'text/plain' }).end('registry unreachable (swe-env test proxy)\n');
    done(502);
  });
  // A client that hangs up mid-answer (an aborted pull) must not leave the registry's side open.
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}

/**
 * A plain HTTP proxy on 127.0.0.1 in front of a plain HTTP registry (`target` is its `host:port`)
 * that can answer 429 (`Retry-After: 1`, a TOOMANYREQUESTS body) or 503 instead of forwarding, and
 * counts requests by kind. Basic auth passes as is: its challenge names no other host.
 */
export async function startThrottlingProxy(target: string): Promise<ThrottlingProxy> {
  let rule: (ThrottleRule & { left: number }) | undefined;
  const seen: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();

  const takeThrottle = (kind: RequestKind): ThrottleRule['status'] | undefined => {
    if (!rule || (rule.only !== undefined && rule.only !== kind)) return undefined;
    const { status } = rule;
    rule.left -= 1;
    if (rule.left <= 0) rule = undefined;
    return status;
  };

  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    const kind = requestKind(path);
    const method = req.method ?? 'GET';
    const status = takeThrottle(kind);
    if (status !== undefined) {
      req.resume();
      refuse(res, status);
      seen.push({ method, path, kind, status, throttled: true });
      return;
    }
    forward(target, req, res, (answered) => seen.push({ method, path, kind, status: answered, throttled: false }));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('the throttling proxy has no address');

  return {
    host: `127.0.0.1:${address.port}`,
    throttle: (next) => {
      rule = next.times === 0 ? undefined : { ...next, left: next.times ?? Number.POSITIVE_INFINITY };
    },
    clear: () => {
      rule = undefined;
    },
    requests: () => [...seen],
    count: (kind, which = 'all') =>
      seen.filter((r) => (kind === undefined || r.kind === kind) && (which === 'all' || (which === 'throttled') === r.throttled)).length,
    resetCounts: () => {
      seen.length = 0;
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
