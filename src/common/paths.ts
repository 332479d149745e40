import { fileURLToPath } from 'node:url';

/** The package root, whether running from src/ (tests) or dist/src/ (built). */
export function packageRoot(): string {
  const here = import.meta.url;
  return fileURLToPath(new URL(here.includes('/dist/') ? '../../../' : '../../', here));
}
