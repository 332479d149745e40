/**
 * Masks on demand on the Python demo task: a run the model fails turned into what reads as the
 * environment's failure (the keeper or the run killed, exit codes like the engine's, the results
 * channel replaced, timeouts, pid exhaustion, an install that never ends or removes the boot, a
 * skip dressed as a missing module). A masked INFRA_ERROR is never trained on, so each would turn
 * the model's 0 into no sample. Each through a real episode: the model's 0, never INFRA_ERROR.
 */
import { describeControls, useCheatServers } from '../shared/episode-attack.js';
import { describeWorthless } from '../shared/episode-suite.js';
import { MASKS_EPISODES } from './pytest-exploits.js';

const servers = useCheatServers({ install: true });

describeControls(servers, { install: true });
describeWorthless(servers, "masks on demand: each run is the model's 0, never INFRA_ERROR", MASKS_EPISODES);
