/**
 * Masks on demand on the Python demo task that kill, starve or outlast the run: the keeper (PID 1)
 * signalled or left without pids, the test command killed, fork loops in the tests, the install or
 * the agent's shell, a run past the hard timeout, a stream held open, 512 MiB of output. Each
 * through a real episode: the model's 0, never INFRA_ERROR (a dead sandbox or container that is
 * the model's doing is not the environment's). The masks that dress the run's outcome are
 * pytest-masks.test.ts's.
 */
import { describeControls, useCheatServers } from '../shared/episode-attack.js';
import { describeWorthless } from '../shared/episode-suite.js';
import { KILLING_MASKS } from './pytest-exploits.js';

// A13 waits out the plain server's limit (twice the test timeout with the mirror canaries, then
// `timeout -k 5`): 15 s is the smallest that still holds A24's 25 s fork loop (started after
// pytest's own start) inside the run. The install server keeps 30 s: A25's loop runs in the install.
const servers = useCheatServers({ install: true, plainTestTimeoutS: 15 });

describeControls(servers, { install: true });
describeWorthless(servers, "masks on demand by killing or outlasting the run: each is the model's 0, never INFRA_ERROR", KILLING_MASKS);
