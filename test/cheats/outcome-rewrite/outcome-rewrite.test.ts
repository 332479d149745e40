/**
 * Outcome rewrites inside pytest's process: code of the package (imported by the tests) reaches
 * pytest's machinery, the recorder or the hidden tests' code and turns failures into passes. Each
 * through a real episode: the trick shown working in the agent's container, then a submit with no
 * fix that must be worth 0, never INFRA_ERROR.
 */
import { useCheatServers, describeControls } from '../shared/episode-attack.js';
import { describeWorthless } from '../shared/episode-suite.js';
import { OUTCOME_REWRITE_EPISODES } from './exploits.js';

const servers = useCheatServers({ install: false });

/**
 * R1b (the monitor's closure reached, the hidden tests' code swapped for wrappers that swallow the
 * originals' failures, each copy canary told from its original by its place after it) earned 1
 * until 2026-12-05: a passing call of a hidden test whose function is not its file's own now
 * counts only where the file's code for it returned normally (boot/swe_env_proof.py).
 */
describeControls(servers, { install: false });
describeWorthless(servers, 'outcomes rewritten in the test process: none earns 1, none masks its 0', OUTCOME_REWRITE_EPISODES);
