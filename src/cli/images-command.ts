import type { Command } from 'commander';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { InvalidArgumentError } from '../common/errors.js';
import { createLogger } from '../common/logger.js';
import { packageRoot } from '../common/paths.js';
import { DockerSandboxProvider } from '../sandbox/docker-sandbox.js';
import { buildDemoImages } from '../tasks/demo/demo-images.js';
import { readDemoSources } from '../tasks/demo/demo-sources.js';
import { buildBaseVariant } from '../tasks/base-variant.js';
import { buildLanguageDemoImages, readLanguageDemo } from '../tasks/demo/language-demo.js';
import { LANGUAGE_FAMILIES, familyPackages } from '../tasks/language-families.js';
import { buildTaskImages } from '../tasks/image-build.js';
import { checkSuite, describeSuites } from '../tasks/debian-suites.js';
import { DEFAULT_BASE_IMAGE, DEMO_DIR, LANGUAGE_DEMO_DIR, collect, loadAll, number, selectInstances } from './options.js';
import { Progress } from './progress.js';
import { Interrupt } from './interrupt.js';
import { registerImagePull } from './images-pull-command.js';

export function registerImageCommands(program: Command): void {
  const images = program.command('images').description('task images');
  registerImagePull(images);
  images
    .command('build-demo')
    .description("build the demo tasks' images on the base image (offline)")
    .option('--base <image>', 'base image', DEFAULT_BASE_IMAGE)
    .option('--languages', "the demo tasks beyond Python instead (tasks/demo-languages/), each on its toolchain family's base variant")
    .action(async (o: { base: string; languages?: boolean }) => {
      const logger = createLogger();
      const provider = new DockerSandboxProvider('image-build');
      const built = o.languages
        ? await buildLanguageDemoImages(provider, await readLanguageDemo(LANGUAGE_DEMO_DIR), o.base, logger)
        : await buildDemoImages(provider, await readDemoSources(DEMO_DIR), o.base, logger);
      process.stdout.write(`${built.length} ${o.languages ? 'language ' : ''}demo task images ready\n`);
    });

  images
    .command('base')
    .description(
      "build the base image (debootstrap, offline, from the machine's apt sources); with --packages or --wheels, a variant: one layer on the base image, tagged after it",
    )
    .option('--packages <list>', 'more Debian packages, comma-separated (apt, with the network at build time only)')
    .option(
      '--family <list>',
      `language toolchain families' packages, comma-separated (${Object.keys(LANGUAGE_FAMILIES).join(', ')}); with --packages, both`,
    )
    .option('--wheels <dir>', "a directory of .whl files to install into the image's python (no index)")
    .option('--base <image>', 'the image a variant is layered on (built first when it is the default and missing)', DEFAULT_BASE_IMAGE)
    .option(
      '--suite <name>',
      `the Debian release of a base built from scratch (no --packages, --family or --wheels): ${describeSuites()}; its image is printed, and a variant takes it through --base`,
    )
    .action(async (o: { packages?: string; family?: string; wheels?: string; base: string; suite?: string }) => {
      const split = (list: string | undefined): string[] =>
        (list ?? '')
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean);
      const packages = [...new Set([...familyPackages(split(o.family)), ...split(o.packages)])];
      if (o.suite !== undefined && (packages.length > 0 || o.wheels)) {
        throw new InvalidArgumentError(
          '--suite builds a base from scratch: build it alone, then layer the packages on it with --base <the printed image>',
        );
      }
      if (packages.length === 0 && !o.wheels) {
        const suite = o.suite === undefined ? [] : ['--suite', checkSuite(o.suite)];
        const image = (await runScript('bash', [join(packageRoot(), 'scripts', 'build-base-image.sh'), ...suite])).trim();
        process.stdout.write(`${image}\n`);
        return;
      }
      const provider = new DockerSandboxProvider('image-build', { ownedByThisProcess: true });
      await provider.removeExpired();
      try {
        await ensureBase(provider, o.base);
        const variant = await buildBaseVariant({ provider, baseImage: o.base, packages, ...(o.wheels ? { wheelsDir: o.wheels } : {}) });
        process.stdout.write(
          `${variant.image}${variant.built ? '' : ' (already built)'}\n(use it with: swe-env images build --base ${variant.image} ...)\n`,
        );
      } finally {
        await provider.removeOwnBuilds();
      }
    });

  images
    .command('build')
    .description(
      "build each task's image from a local git repository (offline unless --network-install): /testbed at base_commit with the tags on its history, nothing later",
    )
    .requiredOption('--tasks <file>', 'task file, repeatable', collect)
    .requiredOption(
      '--repo <dir>',
      'git repository (bare or not; a shallow or partial snapshot will do) holding the base commits, or a folder of them named owner__name, owner+name, owner/name or name (each also as NAME.git)',
    )
    .option('--base <image>', 'base image', DEFAULT_BASE_IMAGE)
    .option('--install <cmd>', 'install step for tasks whose record has none')
    .option(
      '--network-install',
      "give each build container the host's network so the install may download missing dependencies (PIP_INDEX_URL, PIP_EXTRA_INDEX_URL, PIP_TRUSTED_HOST and proxy variables are passed on); the images still run with no network",
    )
    .option('--instance <id>', 'only this task (repeatable; a trailing * matches a prefix)', collect)
    .option('--image-template <t>', 'image name per task')
    .option('--concurrency <n>', 'images built at once', number, 2)
    .option('--force', 'rebuild even when up to date')
    .action(
      async (o: {
        tasks: string[];
        repo: string;
        base: string;
        install?: string;
        networkInstall?: boolean;
        instance?: string[];
        imageTemplate?: string;
        concurrency: number;
        force?: boolean;
      }) => {
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
            ...(o.networkInstall ? { networkInstall: true } : {}),
            onProgress: (r) => progress.tick(`${interrupt.interrupted && r.status === 'failed' ? 'interrupted' : r.status} ${r.taskId}`),
          });
          progress.end();
          for (const r of results) {
            const status = interrupt.interrupted && r.status === 'failed' ? 'interrupted' : r.status;
            process.stdout.write(
              `${status.padEnd(11)} ${r.durationS.toFixed(1).padStart(7)}s  ${r.image}${r.error && status === 'failed' ? `  ${r.error.split('\n')[0]}` : ''}\n`,
            );
            if (r.harnessInstall) {
              const apt = r.harnessInstall.aptPackages;
              process.stdout.write(
                `            install: the SWE-bench harness's set-up for this repository and version (the record has none)${apt.length ? `; it also wants Debian packages ${apt.join(',')}: build the base with \`images base --packages ${apt.join(',')}\`` : ''}\n`,
              );
              const python = r.harnessInstall.python;
              if (python)
                process.stdout.write(
                  `            python: the harness runs this row on Python ${python.wanted}, the base has ${python.base}${python.suite ? `: a base with ${python.wanted} is \`images base --suite ${python.suite}\` (then --base for the packages' variant and this build)` : ' (no Debian release here has it; tests that depend on the version may fail)'}\n`,
                );
            }
            for (const m of r.missingSubmodules ?? []) {
              process.stdout.write(
                `            submodule ${m.path} left empty (${m.url}): ${m.reason}; put a clone of it beside the others under --repo\n`,
              );
            }
          }
          if (interrupt.interrupted) {
            process.stdout.write(
              `interrupted: ${results.filter((r) => r.status !== 'failed').length} of ${tasks.length} images ready; run the same command again to build the rest\n`,
            );
            process.exitCode = interrupt.exitCode;
          } else if (results.some((r) => r.status === 'failed')) process.exitCode = 1;
        } finally {
          interrupt.dispose();
          await provider.removeOwnBuilds();
        }
      },
    );
}

/** The base a variant is layered on: the default one is built (debootstrap) when missing, another must exist. */
async function ensureBase(provider: DockerSandboxProvider, image: string): Promise<void> {
  const present = await provider.docker
    .getImage(image)
    .inspect()
    .then(
      () => true,
      () => false,
    );
  if (present) return;
  if (image !== DEFAULT_BASE_IMAGE)
    throw new Error(`no image ${image} here: build it first (swe-env images base builds ${DEFAULT_BASE_IMAGE})`);
  await runScript('bash', [join(packageRoot(), 'scripts', 'build-base-image.sh')]);
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
