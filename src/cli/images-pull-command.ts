import type { Command } from 'commander';
import { InvalidArgumentError } from '../common/errors.js';
import { DockerSandboxProvider } from '../sandbox/docker-sandbox.js';
import { parseMirrorRule } from '../sandbox/images/image-reference.js';
import { describeProgress } from '../sandbox/images/pull-progress.js';
import { RegistryCredentials } from '../sandbox/images/registry-credentials.js';
import { DEFAULT_IMAGE_SUPPLY } from '../sandbox/images/image-supply.js';
import { compileConfig } from '../server/config.js';
import { addPullOptions, imageSupplyInput } from './image-supply-options.js';
import { Interrupt } from './interrupt.js';
import { collect, loadAll, selectInstances } from './options.js';
import { Progress } from './progress.js';

type Outcome = 'present' | 'pulled' | 'failed' | 'interrupted';

/**
 * `swe-env images pull`: the task images of a data set onto this node's engine before training
 * (a node's set-up, a DaemonSet's init job). Resumable by being idempotent: what is present is
 * skipped, and the engine keeps the layers an interrupted pull finished.
 */
export function registerImagePull(images: Command): void {
  const pull = images
    .command('pull')
    .description("pull the tasks' images onto this engine (present ones are skipped: run it again to resume)")
    .requiredOption('--tasks <file>', 'task file, repeatable', collect)
    .option('--instance <id>', 'only this task (repeatable; a trailing * matches a prefix)', collect)
    .option('--image-template <t>', 'image name per task, e.g. swebench/sweb.eval.x86_64.{id_docker}:latest')
    .option('--docker-socket <path>', "the container engine's socket (default: DOCKER_HOST or /var/run/docker.sock)");
  addPullOptions(pull).action(async (o: Record<string, unknown>) => {
    const tasks = selectInstances(
      await loadAll(o['tasks'] as string[], o['imageTemplate'] as string | undefined),
      o['instance'] as string[] | undefined,
    );
    const byImage = new Map<string, number>();
    for (const task of tasks) byImage.set(task.image, (byImage.get(task.image) ?? 0) + 1);
    const outcomes = await pullAll([...byImage.keys()], o);
    const count = (outcome: Outcome): number => [...outcomes.values()].filter((r) => r.outcome === outcome).length;
    process.stdout.write(
      `${count('present')} present, ${count('pulled')} pulled, ${count('failed')} failed${count('interrupted') ? `, ${count('interrupted')} not pulled (interrupted)` : ''} of ${byImage.size} images (${tasks.length} tasks)\n`,
    );
  });
}

async function pullAll(images: readonly string[], o: Record<string, unknown>): Promise<Map<string, { outcome: Outcome; error?: string }>> {
  // The same checks a server makes of these options, and the same credentials and mirrors.
  const config = compileConfig({ images: imageSupplyInput(o) }).images;
  const credentials = await RegistryCredentials.load(config.registryConfig).catch((error: unknown) => {
    throw new InvalidArgumentError(`${(error as Error).message} (--registry-config)`);
  });
  const provider = new DockerSandboxProvider('image-pull', {
    ...(o['dockerSocket'] ? { socketPath: o['dockerSocket'] as string } : {}),
    images: {
      ...DEFAULT_IMAGE_SUPPLY,
      maxPulls: config.maxPulls,
      pullRetries: config.pullRetries,
      pullBackoffBaseMs: config.pullBackoffS * 1000,
      pullBackoffMaxMs: Math.max(60_000, config.pullBackoffS * 1000),
      credentials,
      mirrors: config.registryMirrors.map(parseMirrorRule),
    },
  });
  await provider.ping();
  const supply = provider.images;
  const progress = new Progress(images.length, 'images');
  const interrupt = new Interrupt('stopping the pulls; the layers they finished stay for the next run');
  interrupt.signal.addEventListener('abort', () => supply.stop(), { once: true });
  // What the running pulls are doing, redrawn every few seconds (a multi-GB pull takes minutes).
  const ticker = setInterval(() => progress.show(runningDetail(supply.snapshot().pulls)), process.stderr.isTTY ? 1000 : 30_000);
  const outcomes = new Map<string, { outcome: Outcome; error?: string }>();
  try {
    progress.show(`${images.length} images, up to ${config.maxPulls} at once`);
    await Promise.all(
      images.map(async (image) => {
        const outcome = await pullOne(provider, image, interrupt.signal);
        outcomes.set(image, outcome);
        progress.tick(`${outcome.outcome} ${image}`);
        if (outcome.outcome !== 'present')
          process.stdout.write(`${outcome.outcome.padEnd(11)} ${image}${outcome.error ? `  ${outcome.error}` : ''}\n`);
      }),
    );
  } finally {
    clearInterval(ticker);
    progress.end();
    interrupt.dispose();
    supply.stop();
  }
  if (interrupt.interrupted) {
    process.stderr.write(
      'interrupted: run the same command again to pull the rest (present images are skipped, finished layers are kept)\n',
    );
    process.exitCode = interrupt.exitCode;
  } else if ([...outcomes.values()].some((r) => r.outcome === 'failed')) process.exitCode = 1;
  return outcomes;
}

async function pullOne(provider: DockerSandboxProvider, image: string, signal: AbortSignal): Promise<{ outcome: Outcome; error?: string }> {
  try {
    if (await provider.imageExists(image)) return { outcome: 'present' };
    if (signal.aborted) return { outcome: 'interrupted' };
    await provider.ensureImage(image, signal);
    return { outcome: 'pulled' };
  } catch (error) {
    if (signal.aborted) return { outcome: 'interrupted' };
    return { outcome: 'failed', error: (error as Error).message.split('\n')[0]! };
  }
}

function runningDetail(
  pulls: ReadonlyArray<{ image: string; phase: string; bytesDone: number; bytesTotal: number; layersDone: number; layersTotal: number }>,
): string {
  const running = pulls.filter((p) => p.phase === 'pulling');
  const queued = pulls.filter((p) => p.phase === 'queued').length;
  const first = running[0];
  if (!first) return queued ? `${queued} queued` : '';
  return `pulling ${running.length}${queued ? `, ${queued} queued` : ''}: ${first.image} ${describeProgress(first)}`;
}
