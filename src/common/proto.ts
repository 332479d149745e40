import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { join } from 'node:path';
import { packageRoot } from '../common/paths.js';
import type { ProtoGrpcType } from '../generated/swe_env.js';

/** proto/ at the package root, from src/common or dist/src/common alike. */
export const PROTO_ROOT = join(packageRoot(), 'proto');
export const PROTO_FILE = 'swe_env/v1/swe_env.proto';

export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_ROOT],
};

let cached: { definition: protoLoader.PackageDefinition; proto: ProtoGrpcType } | undefined;

export function loadProto(): { definition: protoLoader.PackageDefinition; proto: ProtoGrpcType } {
  if (!cached) {
    const definition = protoLoader.loadSync(PROTO_FILE, LOADER_OPTIONS);
    const proto = grpc.loadPackageDefinition(definition) as unknown as ProtoGrpcType;
    cached = { definition, proto };
  }
  return cached;
}
