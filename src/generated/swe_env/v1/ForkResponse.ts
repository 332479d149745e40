// Original file: proto/swe_env/v1/swe_env.proto

import type { Long } from '@grpc/proto-loader';

export interface ForkResponse {
  'episodeIds'?: (string)[];
  'branchStep'?: (number);
  'copiedEntries'?: (number | string | Long);
  'copiedBytes'?: (number | string | Long);
  'deletedPaths'?: (number | string | Long);
  'durationS'?: (number | string);
}

export interface ForkResponse__Output {
  'episodeIds': (string)[];
  'branchStep': (number);
  'copiedEntries': (number);
  'copiedBytes': (number);
  'deletedPaths': (number);
  'durationS': (number);
}
