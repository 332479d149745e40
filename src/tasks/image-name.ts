/**
 * Docker image names per task, as the SWE-bench harness and SWE-Gym publish them.
 * Placeholders: {id} (instance id as is), {id_lower}, {id_1776} (namespace form, `__` -> `_1776_`),
 * {id_s} (SWE-Gym / OpenHands form, `__` -> `_s_`), {repo}, {version}.
 */
export const DEFAULT_IMAGE_TEMPLATE = 'sweb.eval.x86_64.{id_lower}:latest';
export const SWEBENCH_NAMESPACE_TEMPLATE = 'swebench/sweb.eval.x86_64.{id_1776}:latest';
export const SWE_GYM_TEMPLATE = 'xingyaoww/sweb.eval.x86_64.{id_s}:latest';

export function imageName(template: string, record: { id: string; repo: string; version: string }): string {
  const lower = record.id.toLowerCase();
  const values: Record<string, string> = {
    id: record.id,
    id_lower: lower,
    id_1776: lower.replaceAll('__', '_1776_'),
    id_s: lower.replaceAll('__', '_s_'),
    repo: record.repo,
    version: record.version,
  };
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
}
