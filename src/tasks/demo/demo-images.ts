import type { Logger } from '../../common/logger.js';
import type { DockerSandboxProvider } from '../../sandbox/docker-sandbox.js';
import { IMAGE_BUILDER_VERSION, buildImageFromFiles, imageLabels, tagImage } from '../../sandbox/image-builder.js';
import { DEFAULT_IMAGE_TEMPLATE, imageName } from '../image-name.js';
import type { Task } from '../task.js';
import {
  BASE_COMMIT_MESSAGE,
  DEMO_ORG,
  DEMO_VERSION,
  DETERMINISTIC_GIT_ENV,
  hashFiles,
  type DemoRepoSource,
  type DemoTaskSource,
} from './demo-sources.js';

/** A demo task as the loader would make it from its row, in `dataset` (its lists empty until derived by grading). */
export function demoTask(repo: DemoRepoSource, source: DemoTaskSource, dataset: string): Task {
  const id = demoTaskId(source.name);
  return {
    id,
    dataset,
    repo: `${DEMO_ORG}/${repo.name}`,
    baseCommit: repo.baseCommit,
    version: DEMO_VERSION,
    problemStatement: source.problemStatement,
    hintsText: source.hintsText,
    createdAt: source.createdAt,
    environmentSetupCommit: repo.baseCommit,
    goldPatch: source.goldPatch,
    testPatch: source.testPatch,
    failToPass: [],
    passToPass: [],
    image: demoImageFor(id, repo.name),
    workdir: '/testbed',
  };
}

export const LABEL_SOURCE_HASH = 'swe-env.source-hash';
export const LABEL_BASE_COMMIT = 'swe-env.base-commit';

/** Commits the repository at /testbed with the fixed identity and checks the SHA is the expected one. */
const COMMIT_SCRIPT = `
set -euo pipefail
cd /testbed
${Object.entries(DETERMINISTIC_GIT_ENV)
  .map(([k, v]) => `export ${k}='${v}'`)
  .join('\n')}
git -c init.defaultBranch=main init -q
git add -A
git commit -q -m '${BASE_COMMIT_MESSAGE}'
git config --global --add safe.directory /testbed
actual=$(git rev-parse HEAD)
if [ "$actual" != "$1" ]; then echo "base commit is $actual, expected $1" >&2; exit 1; fi
`;

export function demoTaskId(taskName: string): string {
  return `${DEMO_ORG}__${taskName}`;
}

export function demoImageFor(taskId: string, repoName: string): string {
  return imageName(DEFAULT_IMAGE_TEMPLATE, { id: taskId, repo: `${DEMO_ORG}/${repoName}`, version: DEMO_VERSION });
}

/**
 * Builds one image per demo repository on the base image (/testbed at the base commit, no other
 * history) and tags it with each of its tasks' image names. Up-to-date images are kept.
 */
export async function buildDemoImages(
  provider: DockerSandboxProvider,
  repos: readonly DemoRepoSource[],
  baseImage: string,
  logger: Logger,
): Promise<string[]> {
  const baseId = (await provider.docker.getImage(baseImage).inspect()).Id;
  const built: string[] = [];
  for (const repo of repos) {
    const sourceHash = hashFiles(repo.files, `${baseId}\0${repo.baseCommit}\0${COMMIT_SCRIPT}\0${IMAGE_BUILDER_VERSION}`).slice(0, 16);
    const repoImage = `${DEMO_ORG}/${repo.name}:${sourceHash}`;
    const labels = await imageLabels(provider.docker, repoImage);
    if (labels?.[LABEL_SOURCE_HASH] !== sourceHash) {
      logger.info({ image: repoImage }, 'building demo image');
      await buildImageFromFiles(provider, {
        baseImage,
        files: repo.files.map((f) => ({ path: `/testbed/${f.path}`, content: f.content })),
        script: COMMIT_SCRIPT,
        scriptArgs: [repo.baseCommit],
        tag: repoImage,
        labels: { [LABEL_SOURCE_HASH]: sourceHash, [LABEL_BASE_COMMIT]: repo.baseCommit },
        workdir: '/testbed',
      });
    }
    for (const task of repo.tasks) {
      const image = demoImageFor(demoTaskId(task.name), repo.name);
      await tagImage(provider.docker, repoImage, image);
      built.push(image);
    }
  }
  return built;
}
