import type { Command } from 'commander';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createLogger } from '../common/logger.js';
import { packageRoot } from '../common/paths.js';
import { DockerSandboxProvider } from '../sandbox/docker-sandbox.js';
import { buildDemoImages } from '../tasks/demo/demo-images.js';
import { readDemoSources } from '../tasks/demo/demo-sources.js';
import { buildTaskImages } from '../tasks/image-build.js';
import { DEFAULT_BASE_IMAGE, DEMO_DIR, collect, loadAll, number, selectInstances } from './options.js';
import { Progress } from './progress.js';
import { Interrupt } from './interrupt.js';

export function registerImageCommands(program: Command): void {
  const images = program.command('images').description('task images');
  images
    .command('build-demo')
    .description('build the demo tasks\' images on the base image (offline)')
    .option('--base <image>', 'base image', DEFAULT_BASE_IMAGE)
    .action(async (o: { base: string }) => {
      const logger = createLogger();
      const provider = new DockerSandboxProvider('image-build');
      const built = await buildDemoImages(provider, await readDemoSources(DEMO_DIR), o.base, logger);
      process.stdout.write(`${built.length} demo task images ready\n`);
    });

  images
    .command('base')
    .description('build a base image (offline, from the machine\'s apt sources) with more Debian packages or local wheels')
    .option('--packages <list>', 'more Debian packages, comma-separated')
    .option('--wheels <dir>', 'a directory of .whl files to install into the image\'s python (no index)')
    .action(async (o: { packages?: string; wheels?: string }) => {
      const args = [join(packageRoot(), 'scripts', 'build-base-image.sh')];
      if (o.packages) args.push('--packages', o.packages);
      if (o.wheels) args.push('--wheels', o.wheels);
      const image = await runScript('bash', args);
      process.stdout.write(`${image.trim()}\n(use it with: swe-env images build --base ${image.trim()} ...)\n`);
    });

  images
    .command('build')
    .description('build each task\'s image from a local git repository (offline): /testbed at base_commit, no later history')
    .requiredOption('--tasks <file>', 'task file, repeatable', collect)
    .requiredOption('--repo <dir>', 'git repository (bare or not, a snapshot will do) holding the base commits, or a folder of them named owner__name')
    .option('--base <image>', 'base image', DEFAULT_BASE_IMAGE)
    .option('--install <cmd>', 'install step for tasks whose record has none')
    .option('--instance <id>', 'only this task (repeatable; a trailing * matches a prefix)', collect)
    .option('--image-template <t>', 'image name per task')
    .option('--concurrency <n>', 'images built at once', number, 2)
    .option('--force', 'rebuild even when up to date')
    .action(async (o: { tasks: string[]; repo: string; base: string; install?: string; instance?: string[]; imageTemplate?: string; concurrency: number; force?: boolean }) => {
      const logger = createLogger('warn');
      const tasks = selectInstances(await loadAll(o.tasks, o.imageTemplate), o.instance);
      const progress = new Progress(tasks.length, 'images');
      // Build containers name this process as their owner: what a killed run left, the next removes.
      const provider = new DockerSandboxProvider('image-build', { ownedByThisProcess: true });
      await provider.removeExpired();
      const interrupt = new Interrupt('stopping the builds that run and removing their containers');
      // The running builds fail once their containers are gone; no new one starts.
      interrupt.signal.addEventListener('abort', () => void provider.removeOwnBuilds().catch(() => undefined), { once: true });
      try {
        const results = await buildTaskImages({
          provider,
          tasks,
          repoDir: o.repo,
          baseImage: o.base,
          concurrency: o.concurrency,
          logger,
          signal: interrupt.signal,
          ...(o.install ? { install: o.install } : {}),
          ...(o.force ? { force: true } : {}),
          onProgress: (r) => progress.tick(`${interrupt.interrupted && r.status === 'failed' ? 'interrupted' : r.status} ${r.taskId}`),
        });
        progress.end();
        for (const r of results) {
          const status = interrupt.interrupted && r.status === 'failed' ? 'interrupted' : r.status;
          process.stdout.write(`${status.padEnd(11)} ${r.durationS.toFixed(1).padStart(7)}s  ${r.image}${r.error && status === 'failed' ? `  ${r.error.split('\n')[0]}` : ''}\n`);
        }
        if (interrupt.interrupted) {
          process.stdout.write(`interrupted: ${results.filter((r) => r.status !== 'failed').length} of ${tasks.length} images ready; run the same command again to build the rest\n`);
          process.exitCode = interrupt.exitCode;
        } else if (results.some((r) => r.status === 'failed')) process.exitCode = 1;
      } finally {
        interrupt.dispose();
        await provider.removeOwnBuilds();
      }
    });
}

/** Runs a set-up script, its progress on stderr, and returns what it prints on stdout. */
function runScript(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args[0]} exited ${code}`))));
  });
}
