// Original file: proto/swe_env/v1/swe_env.proto

export const ImagePhase = {
  IMAGE_PHASE_UNSPECIFIED: 'IMAGE_PHASE_UNSPECIFIED',
  IMAGE_PHASE_PRESENT: 'IMAGE_PHASE_PRESENT',
  IMAGE_PHASE_PULLING: 'IMAGE_PHASE_PULLING',
  IMAGE_PHASE_QUEUED: 'IMAGE_PHASE_QUEUED',
  IMAGE_PHASE_FAILED: 'IMAGE_PHASE_FAILED',
} as const;

export type ImagePhase =
  | 'IMAGE_PHASE_UNSPECIFIED'
  | 0
  | 'IMAGE_PHASE_PRESENT'
  | 1
  | 'IMAGE_PHASE_PULLING'
  | 2
  | 'IMAGE_PHASE_QUEUED'
  | 3
  | 'IMAGE_PHASE_FAILED'
  | 4

export type ImagePhase__Output = typeof ImagePhase[keyof typeof ImagePhase]
