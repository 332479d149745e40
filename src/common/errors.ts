import { status as GrpcStatus } from '@grpc/grpc-js';

/**
 * The one error hierarchy of the server. Each class maps to one gRPC status code in STATUS_BY_KIND;
 * anything else that escapes a handler is INTERNAL.
 */
export type ErrorKind =
  | 'invalid_argument'
  | 'not_found'
  | 'already_exists'
  | 'failed_precondition'
  | 'resource_exhausted'
  | 'unavailable'
  | 'deadline_exceeded'
  | 'cancelled'
  | 'infra'
  | 'internal';

export class SweEnvError extends Error {
  readonly kind: ErrorKind;
  constructor(kind: ErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
    this.name = new.target.name;
  }
}

export class InvalidArgumentError extends SweEnvError {
  constructor(message: string) {
    super('invalid_argument', message);
  }
}

export class NotFoundError extends SweEnvError {
  constructor(message: string) {
    super('not_found', message);
  }
}

export class AlreadyExistsError extends SweEnvError {
  constructor(message: string) {
    super('already_exists', message);
  }
}

export class FailedPreconditionError extends SweEnvError {
  constructor(message: string) {
    super('failed_precondition', message);
  }
}

export class ResourceExhaustedError extends SweEnvError {
  constructor(message: string) {
    super('resource_exhausted', message);
  }
}

export class UnavailableError extends SweEnvError {
  constructor(message: string) {
    super('unavailable', message);
  }
}

export class DeadlineExceededError extends SweEnvError {
  constructor(message: string) {
    super('deadline_exceeded', message);
  }
}

export class CancelledError extends SweEnvError {
  constructor(message: string) {
    super('cancelled', message);
  }
}

/** The environment (Docker, the sandbox, the image) failed: never the model's fault. */
export class InfraError extends SweEnvError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('infra', message, options);
  }
}

export const STATUS_BY_KIND: Readonly<Record<ErrorKind, GrpcStatus>> = Object.freeze({
  invalid_argument: GrpcStatus.INVALID_ARGUMENT,
  not_found: GrpcStatus.NOT_FOUND,
  already_exists: GrpcStatus.ALREADY_EXISTS,
  failed_precondition: GrpcStatus.FAILED_PRECONDITION,
  resource_exhausted: GrpcStatus.RESOURCE_EXHAUSTED,
  unavailable: GrpcStatus.UNAVAILABLE,
  deadline_exceeded: GrpcStatus.DEADLINE_EXCEEDED,
  cancelled: GrpcStatus.CANCELLED,
  infra: GrpcStatus.INTERNAL,
  internal: GrpcStatus.INTERNAL,
});

export function statusOf(error: unknown): GrpcStatus {
  return error instanceof SweEnvError ? STATUS_BY_KIND[error.kind] : GrpcStatus.INTERNAL;
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
