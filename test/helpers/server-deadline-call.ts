import { connect, constants, type IncomingHttpHeaders } from 'node:http2';
import { loadProto } from '../../src/common/proto.js';

/** What the server said: its status code and message, and the decoded response when the code is OK. */
export interface ServerAnswer<T> {
  readonly code: number;
  readonly details: string;
  readonly response?: T;
}

interface MethodDefinition {
  readonly path: string;
  readonly requestSerialize: (value: unknown) => Buffer;
  readonly responseDeserialize: (bytes: Buffer) => unknown;
}

/**
 * One unary call whose deadline only the server keeps. A grpc-js client also arms its own timer for
 * the deadline; when the test shares the server's event loop, a loop busy for longer than the
 * server's margin lets that timer fire first, and the client then reports its own bare
 * DEADLINE_EXCEEDED instead of the server's answer. Here the deadline travels as the grpc-timeout
 * header alone, so what comes back is always the server's own status and message.
 */
export async function callWithServerDeadline<T>(
  address: string,
  method: string,
  request: unknown,
  timeoutMs: number,
): Promise<ServerAnswer<T>> {
  const service = loadProto().proto.swe_env.v1.SweEnv.service as unknown as Record<string, MethodDefinition>;
  const definition = service[method];
  if (!definition) throw new Error(`no method ${method} in swe_env.v1.SweEnv`);
  const payload = definition.requestSerialize(request);
  const frame = Buffer.alloc(5 + payload.length);
  frame.writeUInt32BE(payload.length, 1);
  payload.copy(frame, 5);
  const session = connect(`http://${address}`);
  try {
    return await new Promise<ServerAnswer<T>>((resolve, reject) => {
      session.on('error', reject);
      const stream = session.request({
        [constants.HTTP2_HEADER_METHOD]: 'POST',
        [constants.HTTP2_HEADER_PATH]: definition.path,
        [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
        te: 'trailers',
        'grpc-timeout': `${Math.max(1, Math.round(timeoutMs))}m`,
      });
      const chunks: Buffer[] = [];
      let headers: IncomingHttpHeaders = {};
      stream.on('response', (h) => {
        headers = h;
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      // A trailers-only answer (an error before any message) carries its status in the headers.
      let trailers: IncomingHttpHeaders | undefined;
      stream.on('trailers', (t: IncomingHttpHeaders) => {
        trailers = t;
      });
      stream.on('error', reject);
      stream.on('close', () => {
        const fields = trailers ?? headers;
        const rawStatus = fields['grpc-status'];
        if (rawStatus === undefined) {
          reject(new Error(`the server closed the stream without a grpc-status (HTTP ${String(headers[':status'] ?? 'none')})`));
          return;
        }
        const code = Number(rawStatus);
        const message = fields['grpc-message'];
        const details = decodeURIComponent(typeof message === 'string' ? message : '');
        const body = Buffer.concat(chunks);
        const response =
          code === 0 && body.length >= 5 ? (definition.responseDeserialize(body.subarray(5, 5 + body.readUInt32BE(1))) as T) : undefined;
        resolve(response === undefined ? { code, details } : { code, details, response });
      });
      stream.end(frame);
    });
  } finally {
    session.close();
  }
}
