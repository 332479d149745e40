/**
 * The capture of the change attacked: many files, weird entries, the repository root or its .git
 * replaced. The capture must take what it can (or refuse it as the model's doing) and the grading
 * be worth 0, never INFRA_ERROR, through a real episode.
 */
import { describeControls, useCheatServers } from '../shared/episode-attack.js';
import { describeWorthless } from '../shared/episode-suite.js';
import { CAPTURE_EPISODES } from './exploits.js';

const servers = useCheatServers({ install: false });

describeControls(servers, { install: false });
describeWorthless(servers, 'the capture attacked: none earns 1, none masks its 0', CAPTURE_EPISODES);
