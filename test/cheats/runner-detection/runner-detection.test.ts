/**
 * Code that is correct only when it can tell it runs under the test runner: the bug stays for a
 * normal caller, pytest sees it fixed. No rule on one way of asking closes the family (there are as
 * many ways as there are signs of pytest), and canaries run the same code the same way, so each
 * still earns 1 (docs/grading.md, "What remains possible"): asserted so, through a real episode,
 * and the test fails the day a defence catches one.
 */
import { describeControls, useCheatServers } from '../shared/episode-attack.js';
import { describeKnownOpen } from '../shared/episode-suite.js';
import { RUNNER_DETECTION_EPISODES } from './exploits.js';

const servers = useCheatServers({ install: false });

/** R2 reads PYTEST_CURRENT_TEST (only an audit finding, since honest code reads it too), R3 its caller's module name, R4 sys.modules. */
const KNOWN_OPEN = ['R2', 'R3', 'R4'];

describeControls(servers, { install: false });
describeKnownOpen(
  servers,
  'known open: behaviour that depends on being under the test runner, read without an audit event',
  RUNNER_DETECTION_EPISODES,
  KNOWN_OPEN,
);
