// Original file: proto/swe_env/v1/swe_env.proto

export const TruncationPolicy = {
  TRUNCATION_POLICY_UNSPECIFIED: 'TRUNCATION_POLICY_UNSPECIFIED',
  TRUNCATION_POLICY_GRADE: 'TRUNCATION_POLICY_GRADE',
  TRUNCATION_POLICY_ZERO: 'TRUNCATION_POLICY_ZERO',
} as const;

export type TruncationPolicy =
  | 'TRUNCATION_POLICY_UNSPECIFIED'
  | 0
  | 'TRUNCATION_POLICY_GRADE'
  | 1
  | 'TRUNCATION_POLICY_ZERO'
  | 2

export type TruncationPolicy__Output = typeof TruncationPolicy[keyof typeof TruncationPolicy]
