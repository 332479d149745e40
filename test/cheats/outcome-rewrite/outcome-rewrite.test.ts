/**
 * Outcome rewrites inside pytest's process: code of the package (imported by the tests) reaches
 * pytest's machinery, the recorder or the hidden tests' code and turns failures into passes. Each
 * through a real episode: the trick shown working in the agent's container, then a submit with no
 * fix that must be worth 0, never INFRA_ERROR.
 */
import { useCheatServers, describeControls } from '../shared/episode-attack.js';
import { describeKnownOpen, describeWorthless } from '../shared/episode-suite.js';
import { OUTCOME_REWRITE_EPISODES } from './exploits.js';

const servers = useCheatServers({ install: false });

/**
 * R1b still earns 1: the monitor's closure reached, the hidden tests' code swapped for wrappers it
 * marks trusted, each copy canary told from its original by its place after it (R1, which spared
 * the canaries by their old shape, scores 0 since the copies differ from their originals in the
 * expected value alone). docs/grading.md lists it.
 */
const KNOWN_OPEN = ['R1b'];

describeControls(servers, { install: false });
describeWorthless(servers, 'outcomes rewritten in the test process: none earns 1, none masks its 0', OUTCOME_REWRITE_EPISODES, KNOWN_OPEN);
describeKnownOpen(
  servers,
  "known open: the hidden tests' code swapped from the monitor's leaked closure",
  OUTCOME_REWRITE_EPISODES,
  KNOWN_OPEN,
);
