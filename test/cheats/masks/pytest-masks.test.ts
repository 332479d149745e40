/**
 * Masks on demand on the Python demo task, the run's outcome dressed as the environment's failure:
 * exit codes like the engine's, the results channel replaced, an install that never ends or removes
 * the boot, a skip dressed as a missing module. A masked INFRA_ERROR is never trained on, so each
 * would turn the model's 0 into no sample. Each through a real episode: the model's 0, never
 * INFRA_ERROR. The masks that kill or outlast the run are pytest-kills.test.ts's (the two halves
 * run side by side).
 */
import { describeControls, useCheatServers } from '../shared/episode-attack.js';
import { describeWorthless } from '../shared/episode-suite.js';
import { OUTCOME_MASKS } from './pytest-exploits.js';

// S21's install never ends: it waits out the install server's limit (its test timeout), 15 s,
// which the controls' honest install and the other installs (a few seconds each) stay far inside.
const servers = useCheatServers({ install: true, installTestTimeoutS: 15 });

describeControls(servers, { install: true });
describeWorthless(servers, "masks on demand: each run is the model's 0, never INFRA_ERROR", OUTCOME_MASKS);
