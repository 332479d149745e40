import { status as GrpcStatus } from '@grpc/grpc-js';
import { messageOf } from '../common/errors.js';

const DEFAULT_SERVER = '127.0.0.1:50051';

/**
 * What a failed command prints: what went wrong and what to do, in the user's terms (the flag to
 * change, the command to run), not the transport's (an RPC name, "Resolution note").
 */
export function explainError(error: unknown, argv: readonly string[]): string {
  const grpc = error as { code?: unknown; details?: unknown };
  if (typeof grpc.code === 'number' && typeof grpc.details === 'string') return explainGrpc(grpc.code, grpc.details, serverOf(argv));
  const errno = error as NodeJS.ErrnoException;
  if (errno.code === 'ENOENT' && typeof errno.path === 'string') return `no such file: ${errno.path}`;
  if (errno.code === 'EACCES' && typeof errno.path === 'string') return `permission denied: ${errno.path}`;
  return messageOf(error);
}

function explainGrpc(code: GrpcStatus, details: string, server: string): string {
  switch (code) {
    case GrpcStatus.UNAVAILABLE:
      return `no swe-env server answers at ${server}: start one with \`swe-env serve\` (the demo: \`npm run demo\`), or give its address with --server HOST:PORT`;
    case GrpcStatus.DEADLINE_EXCEEDED:
      return `the server at ${server} did not answer in time (${details})`;
    case GrpcStatus.UNAUTHENTICATED:
      return `the server at ${server} wants a bearer token: give it with --token-file FILE or SWE_ENV_AUTH_TOKEN (${details})`;
    case GrpcStatus.PERMISSION_DENIED:
      return `the server at ${server} refused the token: check --token-file / SWE_ENV_AUTH_TOKEN (${details})`;
    default:
      return details;
  }
}

/** The --server the command was given, else the default. */
function serverOf(argv: readonly string[]): string {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--server') return argv[i + 1] ?? DEFAULT_SERVER;
    if (arg.startsWith('--server=')) return arg.slice('--server='.length);
  }
  return DEFAULT_SERVER;
}
