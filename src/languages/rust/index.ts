import { harnessFunctions, smithFunctions, type Language } from '../language.js';
import { parseLogCargo } from './harness-parsers.js';
import { CARGO_RUNNER } from './runner.js';
import { parseSmithCargo } from './smith-parsers.js';
import { SMITH_RUST_PROFILES } from './smith-profiles.js';

export const RUST: Language = {
  name: 'rust',
  title: 'Rust',
  harnessParsers: harnessFunctions({ parse_log_cargo: parseLogCargo }),
  smithParsers: smithFunctions({ swesmith_cargo: parseSmithCargo }),
  toolchain: { family: 'rust', packages: ['rustc', 'cargo'] },
  smithProfiles: { rust: SMITH_RUST_PROFILES },
  canaryRunners: [CARGO_RUNNER],
};
