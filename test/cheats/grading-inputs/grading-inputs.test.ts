/**
 * The grading's own inputs attacked from the change: the grading directory read from the code under
 * test, and the install re-run (setup.py runs as root in the grading container) used to plant a
 * report flipper in the interpreter, overwrite pytest, shadow _pytest, or leave a daemon emptying
 * the hidden tests. Each through a real episode, worth 0 and never INFRA_ERROR.
 */
import { describeControls, useCheatServers } from '../shared/episode-attack.js';
import { describeWorthless } from '../shared/episode-suite.js';
import { GRADING_INPUTS_EPISODES } from './exploits.js';

const servers = useCheatServers({ install: true });

describeControls(servers, { install: true });
describeWorthless(servers, "the grading's inputs attacked from the change: none earns 1, none masks its 0", GRADING_INPUTS_EPISODES);
