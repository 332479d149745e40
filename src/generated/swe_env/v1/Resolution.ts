// Original file: proto/swe_env/v1/swe_env.proto

export const Resolution = {
  RESOLUTION_UNSPECIFIED: 'RESOLUTION_UNSPECIFIED',
  RESOLUTION_FULL: 'RESOLUTION_FULL',
  RESOLUTION_PARTIAL: 'RESOLUTION_PARTIAL',
  RESOLUTION_NO: 'RESOLUTION_NO',
} as const;

export type Resolution =
  | 'RESOLUTION_UNSPECIFIED'
  | 0
  | 'RESOLUTION_FULL'
  | 1
  | 'RESOLUTION_PARTIAL'
  | 2
  | 'RESOLUTION_NO'
  | 3

export type Resolution__Output = typeof Resolution[keyof typeof Resolution]
