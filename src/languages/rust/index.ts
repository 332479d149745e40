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
  // cargo's configuration (a `runner` wraps every test binary; a symlink named `.cargo` stands for
  // the folder), toolchain pins and build scripts (run by the test command after the hidden tests are
  // in place, with the power to rewrite them). Cargo runs a package root's build.rs (beside its
  // Cargo.toml); one under src/ is a module (`mod build;`) of the crate's own code, and an honest fix
  // may move code there. Another name for the build script is Cargo.toml's `build = "..."`, and
  // Cargo.toml is a build definition.
  runnerControl: {
    isControlPath: (parts) => {
      const base = parts.at(-1) ?? '';
      return (
        parts.includes('.cargo') ||
        base === 'rust-toolchain' ||
        base === 'rust-toolchain.toml' ||
        (base === 'build.rs' && !parts.slice(0, -1).includes('src'))
      );
    },
    buildDefinitions: [[/(^|[\s;&|(])cargo(\s|$)/, /^Cargo\.(toml|lock)$/]],
  },
  smithProfiles: { rust: SMITH_RUST_PROFILES },
  canaryRunners: [CARGO_RUNNER],
  buildOutputs: [{ manifest: 'Cargo.toml', outputs: ['target'] }],
};
