/**
 * Image references as the engine and registries read them: `[registry/]path[:tag][@digest]`.
 * The first component names a registry when it has a '.', a ':' or is 'localhost'; otherwise the
 * image lives on the engine's default registry (Docker Hub), whose one-word names sit under
 * `library/`. Facts from the distribution reference grammar; no registry is contacted here.
 */

/** The default registry's name in references and in Docker's config.json (its historical key). */
export const DEFAULT_REGISTRY = 'docker.io';
const DEFAULT_REGISTRY_ALIASES = ['docker.io', 'index.docker.io'];

export interface ImageReference {
  /** Registry host (with port), DEFAULT_REGISTRY when the name has none. */
  readonly registry: string;
  /** The repository path within it (`library/ubuntu`, `swebench/sweb.eval.x86_64.astropy_1776_astropy-12907`). */
  readonly path: string;
  /** The tag, 'latest' when neither tag nor digest is given. */
  readonly tag: string | undefined;
  readonly digest: string | undefined;
}

export function parseReference(reference: string): ImageReference {
  let rest = reference.trim();
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  if (tag === undefined && digest === undefined) tag = 'latest';
  const slash = rest.indexOf('/');
  const first = slash >= 0 ? rest.slice(0, slash) : '';
  const namesRegistry = first !== '' && (first.includes('.') || first.includes(':') || first === 'localhost');
  let registry = namesRegistry ? first : DEFAULT_REGISTRY;
  let path = namesRegistry ? rest.slice(slash + 1) : rest;
  if (DEFAULT_REGISTRY_ALIASES.includes(registry)) registry = DEFAULT_REGISTRY;
  if (registry === DEFAULT_REGISTRY && !path.includes('/')) path = `library/${path}`;
  return { registry, path, tag, digest };
}

/** The fully qualified name: registry, path, tag and digest all written out. */
export function fullName(ref: ImageReference): string {
  return `${ref.registry}/${ref.path}${ref.tag !== undefined ? `:${ref.tag}` : ''}${ref.digest !== undefined ? `@${ref.digest}` : ''}`;
}

/** Whether two references name the same image (`ubuntu` and `docker.io/library/ubuntu:latest` do). */
export function sameImage(a: string, b: string): boolean {
  return fullName(parseReference(a)) === fullName(parseReference(b));
}

/** A mirror rule: images whose full name starts with `from` are pulled from `to` instead. */
export interface MirrorRule {
  readonly from: string;
  readonly to: string;
}

/**
 * Parses `FROM=TO` (the --registry-mirror flag): each side a registry host or a registry/path
 * prefix, e.g. `docker.io=127.0.0.1:5000` or `docker.io/swebench=mirror.local/hub/swebench`.
 */
export function parseMirrorRule(text: string): MirrorRule {
  const eq = text.indexOf('=');
  const from = eq > 0 ? text.slice(0, eq).trim().replace(/\/+$/, '') : '';
  const to =
    eq > 0
      ? text
          .slice(eq + 1)
          .trim()
          .replace(/\/+$/, '')
      : '';
  if (!from || !to || /\s/.test(from + to)) {
    throw new Error(
      `a registry mirror is FROM=TO (a registry or registry/path prefix on each side, e.g. docker.io=127.0.0.1:5000), got '${text}'`,
    );
  }
  return { from: DEFAULT_REGISTRY_ALIASES.includes(from) ? DEFAULT_REGISTRY : from, to };
}

/**
 * Where to pull an image from under the mirror rules: the mirrored name (longest matching prefix
 * first), or undefined when no rule applies.
 */
export function mirrored(reference: string, rules: readonly MirrorRule[]): string | undefined {
  const name = fullName(parseReference(reference));
  const matching = rules.filter((rule) => name.startsWith(`${rule.from}/`)).sort((a, b) => b.from.length - a.from.length);
  const rule = matching[0];
  return rule ? `${rule.to}${name.slice(rule.from.length)}` : undefined;
}
